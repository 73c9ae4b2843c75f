"""The layered layout on its own, for any graph: boxes apart, each edge from its source's bottom to its target's
top through the gaps between boxes, layers that follow the edges, and crossings removed where that is possible."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ndgrad.viz.layout import V_GAP, _inversions, layout


@st.composite
def graphs(draw):
    count = draw(st.integers(1, 14))
    sizes = {f"n{i}": (draw(st.integers(20, 160)), draw(st.integers(16, 90))) for i in range(count)}
    pairs = st.tuples(st.integers(0, count - 1), st.integers(0, count - 1))
    edges = [(f"n{a}", f"n{b}") for a, b in draw(st.lists(pairs, max_size=3 * count))]
    return sizes, edges


def _apart(a, b):
    (x, y, w, h), (u, v, p, q) = a, b
    return x + w <= u or u + p <= x or y + h <= v or v + q <= y


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_boxes_keep_apart_and_edges_run_from_box_to_box(graph):
    sizes, edges = graph
    placed = layout(sizes, edges)
    rects = list(placed.rects.values())
    assert [rect[2:] for rect in rects] == list(sizes.values())
    assert all(_apart(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])
    for (source, target), route in zip(edges, placed.routes):
        if source == target:
            assert route is None  # a self-loop is not drawn
            continue
        (x, y, w, h), (u, v, p, q) = placed.rects[source], placed.rects[target]
        start, end = route[0], route[-1]
        downward = start[1] == y + h and end[1] == v
        upward = start[1] == y and end[1] == v + q  # an edge that closes a cycle runs up
        assert downward or upward
        assert x <= start[0] <= x + w and u <= end[0] <= u + p
        for (ax, ay), (bx, by) in zip(route[1::2], route[2::2]):  # the vertical runs through the layers in between
            assert ax == bx
            low, high = sorted((ay, by))
            assert all(not (rx < ax < rx + rw and ry < high and low < ry + rh) for rx, ry, rw, rh in rects)


def test_layers_follow_the_longest_path_from_the_root():
    sizes = {name: (60, 30) for name in "rabcl"}
    placed = layout(sizes, [("r", "a"), ("a", "b"), ("b", "c"), ("r", "c"), ("c", "l")])
    tops = {name: rect[1] for name, rect in placed.rects.items()}
    assert tops["r"] < tops["a"] < tops["b"] < tops["c"] < tops["l"]
    assert tops["b"] - tops["a"] == 30 + V_GAP  # one layer per step, the long edge r -> c passes by
    assert len(placed.routes[3]) == 2 + 2 * 2  # through the two layers between r and c


def test_barycentre_ordering_untangles_crossed_edges():
    # The first layer lists a, b; the second lists the children crossed (b's child first).
    sizes = {name: (40, 20) for name in ["r", "a", "b", "b1", "b2", "a1", "a2"]}
    edges = [("r", "a"), ("r", "b"), ("b", "b1"), ("b", "b2"), ("a", "a1"), ("a", "a2")]
    placed = layout(sizes, edges)
    x = {name: rect[0] for name, rect in placed.rects.items()}
    assert (x["a"] < x["b"]) == (x["a1"] < x["b1"]) == (x["a2"] < x["b2"])


@settings(max_examples=40)
@given(st.lists(st.integers(0, 20), max_size=30))
def test_inversion_count(values):
    expected = sum(1 for i in range(len(values)) for j in range(i + 1, len(values)) if values[i] > values[j])
    assert _inversions(values) == expected
