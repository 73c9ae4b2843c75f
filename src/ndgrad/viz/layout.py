"""A layered layout for the SVG picture, with no external program: longest-path layers from the roots, barycentre
ordering to cut crossings, the least movement that keeps boxes apart, and edge routes that pass between boxes."""

from collections import deque
from dataclasses import dataclass

__all__ = ["Layout", "layout", "H_GAP", "V_GAP", "MARGIN"]

H_GAP = 28  # between two boxes of a layer
V_GAP = 56  # between layers, where the edges bend
MARGIN = 16
DUMMY_GAP = 8  # an edge passing through a layer keeps this far from its neighbours
DUMMY_WEIGHT = 2.0  # long edges resist bending more than boxes resist moving
SWEEPS = 12


@dataclass
class Layout:
    """Boxes as (left, top, width, height) by id; per edge, its route from source to target: points where
    segments alternate between a curve (crossing the gap between layers) and a vertical line (through a layer)."""

    rects: dict
    routes: list
    width: float
    height: float


class _Vertex:
    __slots__ = ("key", "width", "height", "rank", "pos", "x", "dummy", "ups", "downs")

    def __init__(self, key, width, height, dummy=False):
        self.key, self.width, self.height, self.dummy = key, width, height, dummy
        self.rank, self.pos, self.x = 0, 0, 0.0
        self.ups, self.downs = [], []  # neighbours in the layer above and below


def layout(sizes, edges):
    """Place boxes of ``sizes`` ({id: (width, height)}, in a stable order) joined by ``edges`` ([(source, target)])."""
    vertices = {key: _Vertex(key, width, height) for key, (width, height) in sizes.items()}
    forward = _break_cycles(list(vertices), edges)
    _rank(vertices, forward)
    chains = _chains(vertices, forward)
    layers = _layers(vertices)
    _order(layers)
    _place_x(layers)
    tops, bottoms = _place_y(layers)
    left = min((v.x - v.width / 2 for v in vertices.values()), default=0)
    for vertex in vertices.values():
        vertex.x += MARGIN - left
    routes = _routes(chains, tops, bottoms)
    real = [v for v in vertices.values() if not v.dummy]
    rects = {v.key: (v.x - v.width / 2, _top(v, tops, bottoms), v.width, v.height) for v in real}
    width = max((v.x + v.width / 2 for v in vertices.values()), default=0) + MARGIN
    return Layout(rects, routes, width, (bottoms[-1] if bottoms else 0) + MARGIN)


def _break_cycles(keys, edges):
    """Each edge as (upper, lower, reversed): a depth-first walk reverses the edges that close a cycle, which only
    grouping nodes into module boxes can make. Self-loops are dropped (None)."""
    out, has_in = {key: [] for key in keys}, set()
    for index, (source, target) in enumerate(edges):
        if source != target:
            out[source].append((index, target))
            has_in.add(target)
    oriented = [None] * len(edges)
    state = {}  # key -> 1 while on the walk's stack, 2 when done
    for start in [k for k in keys if k not in has_in] + keys:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(out[start]))]
        while stack:
            key, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                state[key] = 2
                stack.pop()
                continue
            index, target = step
            if state.get(target) == 1:
                oriented[index] = (target, key, True)
            else:
                oriented[index] = (key, target, False)
                if target not in state:
                    state[target] = 1
                    stack.append((target, iter(out[target])))
    return oriented


def _rank(vertices, forward):
    """Longest-path layering: a box sits one layer below the lowest box that points at it."""
    downs, indegree = {key: [] for key in vertices}, dict.fromkeys(vertices, 0)
    for oriented in forward:
        if oriented is not None:
            upper, lower, _ = oriented
            downs[upper].append(lower)
            indegree[lower] += 1
    ready = deque(key for key, count in indegree.items() if count == 0)
    while ready:
        key = ready.popleft()
        for lower in downs[key]:
            vertices[lower].rank = max(vertices[lower].rank, vertices[key].rank + 1)
            indegree[lower] -= 1
            if indegree[lower] == 0:
                ready.append(lower)


def _chains(vertices, forward):
    """Per edge, the vertices it passes from top to bottom (dummies in the layers it crosses) and whether it runs
    against its drawn direction; None for a dropped self-loop."""
    chains = []
    for index, oriented in enumerate(forward):
        if oriented is None:
            chains.append(None)
            continue
        upper, lower, reversed_ = oriented
        chain = [vertices[upper]]
        for rank in range(vertices[upper].rank + 1, vertices[lower].rank):
            dummy = _Vertex(("edge", index, rank), DUMMY_GAP, 0, dummy=True)
            dummy.rank = rank
            vertices[dummy.key] = dummy
            chain.append(dummy)
        chain.append(vertices[lower])
        for above, below in zip(chain, chain[1:]):
            above.downs.append(below)
            below.ups.append(above)
        chains.append((chain, reversed_))
    return chains


def _layers(vertices):
    layers = [[] for _ in range(max((v.rank for v in vertices.values()), default=-1) + 1)]
    for vertex in vertices.values():
        vertex.pos = len(layers[vertex.rank])
        layers[vertex.rank].append(vertex)
    return layers


def _sort_by_neighbours(layer, neighbours_of):
    """Order ``layer`` by the mean position of each vertex's neighbours (the barycentre heuristic)."""

    def barycentre(vertex):
        neighbours = neighbours_of(vertex)
        if not neighbours:
            return vertex.pos
        return sum(n.pos for n in neighbours) / len(neighbours)

    layer.sort(key=lambda vertex: (barycentre(vertex), vertex.pos))
    for pos, vertex in enumerate(layer):
        vertex.pos = pos


def _crossings(layers):
    total = 0
    for layer in layers[:-1]:
        ends = sorted((v.pos, below.pos) for v in layer for below in v.downs)
        total += _inversions([below for _, below in ends])
    return total


def _inversions(values):
    """Pairs out of order, counted with a Fenwick tree."""
    size = max(values, default=0) + 2
    tree, count = [0] * (size + 1), 0
    for seen, value in enumerate(values):
        index, not_greater = value + 1, 0
        while index > 0:
            not_greater += tree[index]
            index -= index & -index
        count += seen - not_greater
        index = value + 1
        while index <= size:
            tree[index] += 1
            index += index & -index
    return count


def _order(layers):
    """Alternate downward and upward barycentre sweeps; keep the ordering with the fewest crossings."""
    best, best_count, stale = [list(layer) for layer in layers], _crossings(layers), 0
    for _ in range(SWEEPS):
        if best_count == 0 or stale >= 2:
            break
        for layer in layers[1:]:
            _sort_by_neighbours(layer, lambda v: v.ups)
        for layer in reversed(layers[:-1]):
            _sort_by_neighbours(layer, lambda v: v.downs)
        count = _crossings(layers)
        if count < best_count:
            best, best_count, stale = [list(layer) for layer in layers], count, 0
        else:
            stale += 1
    for index, layer in enumerate(best):
        layers[index] = layer
        for pos, vertex in enumerate(layer):
            vertex.pos = pos


def _separation(left, right):
    gap = DUMMY_GAP if left.dummy or right.dummy else H_GAP
    return (left.width + right.width) / 2 + gap


def _place_x(layers):
    """Pack each layer, then let each vertex move towards its neighbours' mean x, as little as keeps them apart."""
    for layer in layers:
        x = 0.0
        for index, vertex in enumerate(layer):
            if index:
                x += _separation(layer[index - 1], vertex)
            vertex.x = x
    passes = [(layers[1:], "ups"), (list(reversed(layers[:-1])), "downs")] * 4
    for sweep, side in passes:
        for layer in sweep:
            wanted = []
            for vertex in layer:
                neighbours = getattr(vertex, side)
                wanted.append(sum(n.x for n in neighbours) / len(neighbours) if neighbours else vertex.x)
            _closest_spaced(layer, wanted)


def _closest_spaced(layer, wanted):
    """Set x to minimise sum(weight * (x - wanted)**2) subject to each vertex keeping its separation from the
    previous one: with offsets removed this is isotonic regression, solved by pooling adjacent violators."""
    offsets, offset = [], 0.0
    for index, vertex in enumerate(layer):
        if index:
            offset += _separation(layer[index - 1], vertex)
        offsets.append(offset)
    blocks = []  # [weighted sum, weight, count]
    for vertex, target, offset in zip(layer, wanted, offsets):
        weight = DUMMY_WEIGHT if vertex.dummy else 1.0
        blocks.append([weight * (target - offset), weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight
            blocks[-1][2] += count
    index = 0
    for total, weight, count in blocks:
        for _ in range(count):
            layer[index].x = total / weight + offsets[index]
            index += 1


def _place_y(layers):
    tops, bottoms, y = [], [], MARGIN
    for layer in layers:
        tops.append(y)
        y += max((v.height for v in layer), default=0)
        bottoms.append(y)
        y += V_GAP
    return tops, bottoms


def _top(vertex, tops, bottoms):
    return (tops[vertex.rank] + bottoms[vertex.rank] - vertex.height) / 2


def _routes(chains, tops, bottoms):
    """Route each edge: from a port on its upper box's bottom, through its dummies, into a port on the lower box's
    top. Ports spread the edges of one side of a box across it, in the order of where the edges go."""
    leaving, arriving = {}, {}
    for index, item in enumerate(chains):
        if item is not None:
            chain, _ = item
            leaving.setdefault(id(chain[0]), []).append((chain[1].x, index))
            arriving.setdefault(id(chain[-1]), []).append((chain[-2].x, index))
    start_x, end_x = {}, {}
    for item in chains:
        if item is not None:
            upper, lower = item[0][0], item[0][-1]
            _spread(upper, leaving.pop(id(upper), ()), start_x)
            _spread(lower, arriving.pop(id(lower), ()), end_x)
    routes = []
    for index, item in enumerate(chains):
        if item is None:
            routes.append(None)
            continue
        chain, reversed_ = item
        upper, lower = chain[0], chain[-1]
        points = [(start_x[index], _top(upper, tops, bottoms) + upper.height)]
        for dummy in chain[1:-1]:
            points += [(dummy.x, tops[dummy.rank]), (dummy.x, bottoms[dummy.rank])]
        points.append((end_x[index], _top(lower, tops, bottoms)))
        routes.append(points[::-1] if reversed_ else points)
    return routes


def _spread(vertex, ends, ports):
    """Give the edges leaving (or entering) one side of ``vertex`` evenly spaced x positions, left to right."""
    ends = sorted(ends)
    usable = vertex.width * 0.8
    for number, (_, index) in enumerate(ends):
        ports[index] = vertex.x - usable / 2 + usable * (number + 1) / (len(ends) + 1)
