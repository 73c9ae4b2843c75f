"""Sample builders for the ops of ndgrad.ops.indexing, .gather_scatter and .sorting: each call says where its
tensors go, since indices and masks (fixed int64 / bool inputs) sit between the differentiated ones."""

import numpy as np

from ndgrad.ops import gather_scatter, indexing, sorting

from ..samples import C, Call, Case, S, T, draw, fixed, kinks


def cases(op, rng, entries):
    """Each entry: (call text, fn(lib, *tensors), [inputs: a (shape, layout) to draw, or a fixed Input])."""
    return [
        Case(op, tuple(i if not isinstance(i, tuple) else draw(rng, i[0], op.domain, i[1]) for i in inputs),
             Call(text, fn))
        for text, fn, inputs in entries
    ]


def setitem(x, index, value):
    y = x.clone()
    y[index] = value
    return y


MASK = [[True, False, True, True], [False, False, False, False], [True, True, False, True]]
ROW_MASK = [True, False, True, False]
TIED = [[1.0, 3.0, 3.0, -2.0], [2.0, 2.0, 2.0, 2.0]]

BUILDERS = {
    indexing.Index: lambda op, rng: cases(op, rng, [
        ("x[i]", lambda lib, x, i: x[i], [((3, 4), C), fixed([0, 2, 2, -1])]),
        ("x[i] (2-d i)", lambda lib, x, i: x[i], [((3, 4), C), fixed([[0, 1], [2, 2]])]),
        ("x[mask]", lambda lib, x, m: x[m], [((3, 4), C), fixed(MASK, "bool")]),
        ("x[:, row mask]", lambda lib, x, m: x[:, m], [((3, 4), T), fixed(ROW_MASK, "bool")]),
        ("x[[2, 0, 2], 1:]", lambda lib, x: x[[2, 0, 2], 1:], [((3, 4), C)]),
        ("x[i, :, j] (apart)", lambda lib, x, i: x[i, :, [1, 0, 1]], [((2, 3, 4), C), fixed([1, 0, 1])]),
        ("x[:, i, j] (adjacent)", lambda lib, x, i: x[:, i, [[3], [0]]], [((2, 3, 4), C), fixed([1, 2, 2])]),
        ("x[1, :, [0, -1]] (int selects first)", lambda lib, x: x[1, :, [0, -1]], [((2, 3, 4), C)]),
        ("x[..., None, [0, 1]]", lambda lib, x: x[..., None, [0, 1]], [((2, 3, 2), S)]),
        ("x[True, 1]", lambda lib, x: x[True, 1], [((3, 4), C)]),
        ("x[tensor(True)]", lambda lib, x: x[lib.tensor(True)], [((), C)]),
        ("x[[[0, 1], [1, 2]]] (a list read as a tuple)", lambda lib, x: x[(0, 1), (1, 2)], [((3, 4), C)]),
        ("x[np.array([0, 2])]", lambda lib, x: x[np.array([0, 2])], [((3,), C)]),
    ]),
    indexing.IndexPut: lambda op, rng: cases(op, rng, [
        ("index_put(x, (i,), v)", lambda lib, x, v, i: lib.index_put(x, (i,), v), [((3, 4), C), ((4,), C),
                                                                                   fixed([2, 0])]),
        ("index_put(x, (i, j), v, accumulate=True)",
         lambda lib, x, v, i: lib.index_put(x, (i, i), v, accumulate=True), [((3, 4), C), ((), C), fixed([1, 1, 2])]),
        ("index_put(x, (mask,), v)", lambda lib, x, v, m: lib.index_put(x, (m,), v),
         [((3, 4), T), ((6,), C), fixed(MASK, "bool")]),
        ("x.index_put((i,), v, accumulate=True)", lambda lib, x, v, i: x.index_put((i,), v, accumulate=True),
         [((2, 3, 2), S), ((3, 2), C), fixed([1, 1, 0, 1])]),
        ("x[i] = v", lambda lib, x, v, i: setitem(x, i, v), [((3, 4), C), ((2, 4), C), fixed([2, -3])]),
        ("x[mask] = v", lambda lib, x, v, m: setitem(x, m, v), [((3, 4), C), ((), C), fixed(MASK, "bool")]),
    ]),
    gather_scatter.Gather: lambda op, rng: cases(op, rng, [
        ("gather(x, 1, i)", lambda lib, x, i: lib.gather(x, 1, i), [((3, 4), C), fixed([[0, 1, 1], [3, 2, 0]])]),
        ("gather(x, 0, i)", lambda lib, x, i: lib.gather(x, 0, i), [((3, 4), T), fixed([[2, 2, 0, 1]])]),
        ("x.gather(-1, i)", lambda lib, x, i: x.gather(-1, i), [((2, 3, 2), S), fixed([[[1], [0], [1]]])]),
        ("gather(x, 0, i) 0-d", lambda lib, x, i: lib.gather(x, 0, i), [((), C), fixed(0)]),
        ("take_along_dim(x, i, 1)", lambda lib, x, i: lib.take_along_dim(x, i, 1), [((3, 4), C), fixed([[0, 3]])]),
        ("take_along_dim(x, i)", lambda lib, x, i: lib.take_along_dim(x, i), [((3, 4), C), fixed([5, 0, 5])]),
    ]),
    gather_scatter.Scatter: lambda op, rng: cases(op, rng, [
        ("scatter(x, 1, i, y)", lambda lib, x, y, i: lib.scatter(x, 1, i, y),
         [((3, 4), C), ((3, 2), C), fixed([[0, 3], [1, 2], [2, 0]])]),
        ("x.scatter(0, i, y)", lambda lib, x, y, i: x.scatter(0, i, y), [((3, 4), T), ((1, 4), C),
                                                                        fixed([[2, 0, 1, 0]])]),
        ("scatter(x, 0, i, y) 0-d", lambda lib, x, y, i: lib.scatter(x, 0, i, y), [((), C), ((), C), fixed(0)]),
    ]),
    gather_scatter.ScatterValue: lambda op, rng: cases(op, rng, [
        ("scatter(x, 1, i, 2.5)", lambda lib, x, i: lib.scatter(x, 1, i, 2.5), [((3, 4), C), fixed([[0, 3], [1, 1]])]),
        ("x.scatter(0, i, value=-1.0)", lambda lib, x, i: x.scatter(0, i, value=-1.0),
         [((2, 3, 2), S), fixed([[[1]]])]),
    ]),
    gather_scatter.ScatterAdd: lambda op, rng: cases(op, rng, [
        ("scatter_add(x, 1, i, y)", lambda lib, x, y, i: lib.scatter_add(x, 1, i, y),
         [((3, 4), C), ((2, 3), T), fixed([[0, 0, 3], [1, 1, 1]])]),
        ("x.scatter_add(0, i, y)", lambda lib, x, y, i: x.scatter_add(0, i, y), [((), C), ((), C), fixed(0)]),
    ]),
    gather_scatter.ScatterReduce: lambda op, rng: [
        case
        for reduce in ("sum", "prod", "mean", "amax", "amin")
        for case in cases(op, rng, [
            (f"scatter_reduce(x, 1, i, y, {reduce!r}, include_self={include})",
             lambda lib, x, y, i, r=reduce, s=include: lib.scatter_reduce(x, 1, i, y, r, include_self=s),
             [((3, 4), C), ((2, 3), C), fixed([[0, 0, 3], [1, 1, 1]])])
            for include in (True, False)
        ])
    ] + kinks(op, rng, [(TIED, [[3.0, 1.0], [2.0, 2.0]])], Call(
        "scatter_reduce(x, 1, i, y, 'amax')", lambda lib, x, y: lib.scatter_reduce(
            x, 1, lib.tensor([[1, 1], [0, 3]]), y, "amax"))),
    gather_scatter.IndexSelect: lambda op, rng: cases(op, rng, [
        ("index_select(x, 0, i)", lambda lib, x, i: lib.index_select(x, 0, i), [((3, 4), C), fixed([2, 0, 2])]),
        ("x.index_select(-1, i)", lambda lib, x, i: x.index_select(-1, i), [((2, 3, 2), S), fixed([1])]),
        ("index_select(x, 1, i) 0-d i", lambda lib, x, i: lib.index_select(x, 1, i), [((3, 4), T), fixed(3)]),
        ("index_select(x, 0, i) 0-d x", lambda lib, x, i: lib.index_select(x, 0, i), [((), C), fixed([0])]),
    ]),
    gather_scatter.IndexAdd: lambda op, rng: cases(op, rng, [
        ("index_add(x, 0, i, y)", lambda lib, x, y, i: lib.index_add(x, 0, i, y), [((3, 4), C), ((3, 4), C),
                                                                                  fixed([2, 0, 2])]),
        ("x.index_add(1, i, y, alpha=2)", lambda lib, x, y, i: x.index_add(1, i, y, alpha=2),
         [((3, 4), T), ((3, 2), C), fixed([3, 3])]),
    ]),
    gather_scatter.IndexCopy: lambda op, rng: cases(op, rng, [
        ("index_copy(x, 0, i, y)", lambda lib, x, y, i: lib.index_copy(x, 0, i, y), [((3, 4), C), ((2, 4), C),
                                                                                    fixed([2, 0])]),
        ("x.index_copy(-1, i, y)", lambda lib, x, y, i: x.index_copy(-1, i, y), [((2, 3, 2), S), ((2, 3, 1), C),
                                                                                fixed([1])]),
    ]),
    gather_scatter.IndexFill: lambda op, rng: cases(op, rng, [
        ("index_fill(x, 1, i, 2.0)", lambda lib, x, i: lib.index_fill(x, 1, i, 2.0), [((3, 4), C), fixed([3, 0, 3])]),
        ("x.index_fill(0, i, -1)", lambda lib, x, i: x.index_fill(0, i, -1), [((3, 4), T), fixed([-1])]),
    ]),
    gather_scatter.IndexFillTensor: lambda op, rng: cases(op, rng, [
        ("index_fill(x, 1, i, v)", lambda lib, x, v, i: lib.index_fill(x, 1, i, v), [((3, 4), C), ((), C),
                                                                                    fixed([3, 0, 3])]),
    ]),
    indexing.MaskedFill: lambda op, rng: cases(op, rng, [
        ("masked_fill(x, m, 2.0)", lambda lib, x, m: lib.masked_fill(x, m, 2.0), [((3, 4), C), fixed(MASK, "bool")]),
        ("x.masked_fill(row m, -1.5)", lambda lib, x, m: x.masked_fill(m, -1.5),
         [((3, 4), T), fixed(ROW_MASK, "bool")]),
        ("masked_fill(x, m, 0) broadcast", lambda lib, x, m: lib.masked_fill(x, m, 0),
         [((4,), C), fixed(MASK, "bool")]),
    ]),
    indexing.MaskedFillTensor: lambda op, rng: cases(op, rng, [
        ("masked_fill(x, m, v)", lambda lib, x, v, m: lib.masked_fill(x, m, v), [((3, 4), C), ((), C),
                                                                                fixed(MASK, "bool")]),
    ]),
    indexing.MaskedScatter: lambda op, rng: cases(op, rng, [
        ("masked_scatter(x, m, y)", lambda lib, x, y, m: lib.masked_scatter(x, m, y),
         [((3, 4), C), ((3, 3), C), fixed(MASK, "bool")]),
        ("x.masked_scatter(row m, y)", lambda lib, x, y, m: x.masked_scatter(m, y),
         [((3, 4), T), ((2, 3), C), fixed(ROW_MASK, "bool")]),
    ]),
    indexing.MaskedSelect: lambda op, rng: cases(op, rng, [
        ("masked_select(x, m)", lambda lib, x, m: lib.masked_select(x, m), [((3, 4), C), fixed(MASK, "bool")]),
        ("x.masked_select(m) broadcast", lambda lib, x, m: x.masked_select(m), [((3, 1), C), fixed(MASK, "bool")]),
    ]),
    indexing.Take: lambda op, rng: cases(op, rng, [
        ("take(x, i)", lambda lib, x, i: lib.take(x, i), [((3, 4), T), fixed([[0, 11], [5, 5]])]),
        ("x.take(i) 0-d", lambda lib, x, i: x.take(i), [((), C), fixed([0, -1])]),
    ]),
    indexing.Put: lambda op, rng: cases(op, rng, [
        ("put(x, i, y)", lambda lib, x, y, i: lib.put(x, i, y), [((3, 4), C), ((3,), C), fixed([0, 11, -2])]),
        ("x.put(i, y, accumulate=True)", lambda lib, x, y, i: x.put(i, y, accumulate=True),
         [((3, 4), T), ((2, 2), C), fixed([[5, 5], [0, 5]])]),
    ]),
    indexing.Copy: lambda op, rng: cases(op, rng, [
        ("x.clone().copy_(y)", lambda lib, x, y: x.clone().copy_(y), [((3, 4), C), ((4,), C)]),
        ("x.clone().copy_(y) 0-d", lambda lib, x, y: x.clone().copy_(y), [((2, 3, 2), S), ((), C)]),
    ]),
    sorting.Sort: lambda op, rng: cases(op, rng, [
        ("sort(x)", lambda lib, x: lib.sort(x), [((3, 4), C)]),
        ("sort(x, 0, descending=True)", lambda lib, x: lib.sort(x, 0, descending=True), [((3, 4), T)]),
        ("x.sort(-2)", lambda lib, x: x.sort(-2), [((2, 3, 2), S)]),
        ("sort(x) 0-d", lambda lib, x: lib.sort(x), [((), C)]),
    ]) + kinks(op, rng, [(TIED,)], Call("sort(x, descending=True)", lambda lib, x: lib.sort(x, descending=True))),
    sorting.SortStable: lambda op, rng: cases(op, rng, [
        ("sort(x, stable=True)", lambda lib, x: lib.sort(x, stable=True), [((3, 4), C)]),
        ("x.sort(dim=0, stable=False)", lambda lib, x: x.sort(dim=0, stable=False), [((3, 4), T)]),
    ]) + kinks(op, rng, [(TIED,)], Call("sort(x, stable=True)", lambda lib, x: lib.sort(x, stable=True))),
    sorting.Topk: lambda op, rng: cases(op, rng, [
        ("topk(x, 2)", lambda lib, x: lib.topk(x, 2), [((3, 4), C)]),
        ("x.topk(1, dim=0, largest=False)", lambda lib, x: x.topk(1, dim=0, largest=False), [((3, 4), T)]),
        ("topk(x, 3, 1)", lambda lib, x: lib.topk(x, 3, 1), [((2, 3, 2), S)]),
        ("topk(x, 1) 0-d", lambda lib, x: lib.topk(x, 1), [((), C)]),
    ]),
}
