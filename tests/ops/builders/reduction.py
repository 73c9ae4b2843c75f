"""Sample builders for the ops of ndgrad.ops.reduction and ndgrad.ops.selection: dims, keyword forms, and the kinks
(zeros of prod, ties of max/median/mode/kthvalue, zero norms) checked against torch's convention."""

import math

import numpy as np

from ndgrad.ops import reduction, selection

from ..samples import (
    REDUCTION_DIMS,
    TIES,
    C,
    Call,
    Case,
    Input,
    S,
    T,
    draw,
    function,
    kinks,
    method,
    reduction_cases,
    unary_cases,
)

NAN = math.nan


def exact(op, arrays, call):
    """Cases at points that look special (zeros) where the op is still smooth: checked to second order."""
    return [Case(op, (Input(np.asarray(a, dtype=np.float64)),), call) for a in arrays]


def with_dtype(name, dtype, *args, **kwargs):
    """lib.name(x, *args, dtype=lib.<dtype>, **kwargs): the dtype object differs between the two libraries."""
    text = f"{name}($, {', '.join([*map(repr, args), *[f'{k}={v!r}' for k, v in kwargs.items()]])}dtype={dtype})"
    return Call(text, lambda lib, x: getattr(lib, name)(x, *args, dtype=getattr(lib, dtype), **kwargs))


def int_dim_cases(op, rng, call):
    """REDUCTION_DIMS with an int dim; ``call(dim, keepdim)`` makes the call."""
    return [Case(op, (draw(rng, s, op.domain, layout),), call(dim, keepdim))
            for s, layout, dim, keepdim in REDUCTION_DIMS if isinstance(dim, int)]


def _reduced_count(shape, dim):
    dims = range(len(shape)) if dim is None or dim == () else ([dim] if isinstance(dim, int) else dim)
    return math.prod(shape[d] for d in dims) if shape else 1


def variance_cases(op, rng):
    """var/std and their _mean forms: every dim form, unbiased and correction; correction 0 where N is 1."""
    name = op.name
    cases = []
    for s, layout, dim, keepdim in REDUCTION_DIMS:
        if dim == () and s:
            continue  # torch's backward takes dim=() as no dims at all: an infinite gradient (see the report)
        single = _reduced_count(s, dim) == 1  # correction 0 then; std is 0, its kink (torch's 2nd derivative: NaN)
        cases.append(Case(op, (draw(rng, s, op.domain, layout),),
                          function(name, dim=dim, keepdim=keepdim, correction=0 if single else 1),
                          smooth=not (single and name.startswith("std"))))
    return cases + [
        Case(op, (draw(rng, (3, 4)),), function(name)),
        Case(op, (draw(rng, (5,)),), function(name, False)),
        Case(op, (draw(rng, (3, 4), layout=T),), function(name, 1, True, True)),
        Case(op, (draw(rng, (2, 3, 4)),), function(name, dim=(0, 2), correction=2)),
        Case(op, (draw(rng, (2, 3, 2), layout=S),), function(name, unbiased=False)),
        Case(op, (draw(rng, (3, 4)),), method(name, 0) if name in ("var", "std") else function(name, 0)),
    ]


def prod_dim_cases(op, rng):
    return int_dim_cases(op, rng, lambda dim, keepdim: function("prod", dim, keepdim=keepdim)) + [
        Case(op, (draw(rng, (3, 4)),), method("prod", -1)),
        Case(op, (draw(rng, (3, 4)),), with_dtype("prod", "float64", 1)),
    ] + exact(op, [[[0.0, 2.0, 3.0], [1.5, 0.0, 0.0]], [[0.0, 2.0], [-1.0, 0.0], [0.0, 0.0]]],
              function("prod", 1)) + exact(op, [[[0.0, 1.5], [2.0, 0.0], [3.0, -1.0]]], function("prod", 0, True))


def logsumexp_cases(op, rng):
    return [Case(op, (draw(rng, s, op.domain, layout),), function("logsumexp", dim, keepdim=keepdim))
            for s, layout, dim, keepdim in REDUCTION_DIMS if dim != () or not s] + [
        Case(op, (Input(np.array([[1000.0, 999.0], [-1000.0, -1001.0]])),), function("logsumexp", 1)),
        Case(op, (draw(rng, (3, 4)),), method("logsumexp", (0, 1))),
    ]


def norm_cases(op, rng):
    cases = reduction_cases(op, rng) + unary_cases(op, rng)
    for p in (1, 3, 0.5, 1.5, math.inf, -math.inf, -2.0):  # p=0: tests/ops/test_errors_reduction.py
        cases += [
            Case(op, (draw(rng, (3, 4), op.domain),), function("norm", p)),
            Case(op, (draw(rng, (2, 3, 4), op.domain, S),), function("norm", p, dim=(0, -1), keepdim=True)),
            Case(op, (draw(rng, (3, 4), op.domain, T),), function("norm", p, 1)),
        ]
    return cases + [
        Case(op, (draw(rng, (3, 4)),), method("norm", 2, 0)),
        Case(op, (draw(rng, (3, 4)),), function("norm", None, (0, 1))),
    ] + kinks(op, rng, [(np.zeros((2, 3)),)], function("norm", dim=1)) + [
        case for p, array in [
            (1, [[0.0, 2.0, -1.0]]), (0.5, [[1.0, 0.0, 3.0]]), (1.5, np.zeros((2, 2))), (3, np.zeros((2, 2))),
            (math.inf, [1.0, -3.0, 3.0]), (-math.inf, [[1.0, -1.0, 2.0], [0.5, 3.0, -0.5]]),
        ] for case in kinks(op, rng, [(array,)], function("norm", p))
    ]


def nansum_cases(op, rng):
    return reduction_cases(op, rng) + unary_cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), with_dtype("nansum", "float64", 1)),
        Case(op, (draw(rng, (3, 4)),), method("nansum")),
    ] + kinks(op, rng, [([[1.0, NAN, 2.0], [NAN, NAN, 3.0]],)], function("nansum", 1)) + kinks(
        op, rng, [([1.0, NAN, 2.0],)])


def sum_cases(op, rng):
    if op is reduction.Sum or op is reduction.Mean:
        return unary_cases(op, rng) + [
            Case(op, (draw(rng, (3, 4)),), with_dtype(op.name, "float64")),
            Case(op, (draw(rng, (3, 4), layout=T),), method(op.name)),
        ]
    return reduction_cases(op, rng) + [
        Case(op, (draw(rng, (3, 4)),), with_dtype(op.name, "float64", 1, keepdim=True)),
        Case(op, (draw(rng, (2, 3, 4)),), method(op.name, (0, 2))),
    ]


def aminmax_cases(op, rng):
    return reduction_cases(op, rng) + [
        Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
            ((3, 4), C, function("aminmax")), ((), C, function("aminmax")), ((2, 3, 2), S, function("aminmax")),
            ((3, 4), C, function("aminmax", keepdim=True)), ((3, 4), T, method("aminmax", dim=0)),
        ]
    ] + kinks(op, rng, TIES + [([[3.0, -1.0, 3.0], [-1.0, 2.0, -1.0]],)], function("aminmax")) + kinks(
        op, rng, [([[3.0, -1.0, 3.0], [-1.0, 2.0, -1.0]],)], function("aminmax", dim=1))


def extremum_cases(op, rng):
    """amax/amin: every dims form, and ties, which share the gradient."""
    return reduction_cases(op, rng) + [Case(op, (draw(rng, (3, 4)),), function(op.name))] + kinks(
        op, rng, TIES, function(op.name)) + kinks(
        op, rng, [([[2.0, 2.0, 1.0], [-1.0, 0.5, -1.0]],)], function(op.name, 1)) + kinks(
        op, rng, [([[2.0, 2.0, 1.0], [2.0, 0.5, 2.0]],)], function(op.name, (0, 1), True))


def dim_tie_cases(op, rng, arrays, call):
    return reduction_cases(op, rng) + kinks(op, rng, arrays, call)


MEDIAN_TIES = [([[1.0, 3.0, 3.0, 3.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, -1.0, 5.0]],), ([[3.0, 1.0, 3.0, 1.0]],)]
MODE_TIES = [([[2.0, 1.0, 2.0, 1.0, 3.0, 3.0], [4.0, 4.0, 1.0, 1.0, 4.0, 0.5]],), ([[5.0, 1.0, 2.0]],)]


def kthvalue_cases(op, rng):
    cases = [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
        ((5,), C, function("kthvalue", 2)),
        ((3, 4), C, function("kthvalue", 4)),
        ((3, 4), C, function("kthvalue", 1, 0)),
        ((3, 4), C, function("kthvalue", 2, dim=-2, keepdim=True)),
        ((), C, function("kthvalue", 1)),
        ((2, 3, 4), C, function("kthvalue", 3, 1)),
        ((3, 4), T, method("kthvalue", 3, 1, True)),
        ((2, 3, 2), S, function("kthvalue", 2, -1)),
    ]]
    ties = np.random.default_rng(7).integers(0, 3, (4, 15)).astype(np.float64)  # many ties: PyTorch's quickselect
    return cases + kinks(op, rng, [([1.0, 3.0, 3.0, 2.0, 3.0],)], function("kthvalue", 3)) + kinks(
        op, rng, [([1.0, 3.0, 3.0, 2.0, 3.0],)], function("kthvalue", 4)) + kinks(
        op, rng, [([[2.0, 2.0, 2.0, 2.0]],)], function("kthvalue", 2)) + kinks(
        op, rng, [(ties,)], function("kthvalue", 6, 1)) + kinks(op, rng, [(ties,)], function("kthvalue", 3, 0))


BUILDERS = {
    reduction.Sum: sum_cases,
    reduction.SumDim: sum_cases,
    reduction.Mean: sum_cases,
    reduction.MeanDim: sum_cases,
    reduction.Prod: lambda op, rng: unary_cases(op, rng) + [Case(op, (draw(rng, (3, 4)),), method("prod"))] + exact(
        op, [[0.0, 2.0, 3.0], [[0.0, 2.0], [3.0, 0.0]], [[1.5, 0.0], [2.0, -1.0]]], function("prod")),
    reduction.ProdDim: prod_dim_cases,
    reduction.Var: variance_cases,
    reduction.Std: lambda op, rng: variance_cases(op, rng) + kinks(
        op, rng, [([[1.0, 1.0, 1.0], [2.0, -1.0, 0.5]],)], function("std", 1)),
    reduction.VarMean: variance_cases,
    reduction.StdMean: lambda op, rng: variance_cases(op, rng) + kinks(
        op, rng, [([[1.0, 1.0, 1.0], [2.0, -1.0, 0.5]],)], function("std_mean", 1)),
    reduction.Logsumexp: logsumexp_cases,
    reduction.LinalgVectorNorm: norm_cases,
    reduction.Nansum: nansum_cases,
    selection.Max: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, TIES),
    selection.Min: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 3.0, -1.0],)]),
    selection.MaxDim: lambda op, rng: dim_tie_cases(op, rng, [([[2.0, 2.0, 1.0], [-1.0, 3.0, 3.0]],)],
                                                    function("max", 1)) + [
        Case(op, (draw(rng, (3, 4)),), method("max", 0, True))],
    selection.MinDim: lambda op, rng: dim_tie_cases(op, rng, [([[2.0, 1.0, 1.0], [-1.0, 3.0, -1.0]],)],
                                                    function("min", 1)),
    selection.Amax: extremum_cases,
    selection.Amin: extremum_cases,
    selection.Aminmax: aminmax_cases,
    selection.Median: lambda op, rng: unary_cases(op, rng) + [Case(op, (draw(rng, (4,)),), method("median"))] + kinks(
        op, rng, TIES + [([2.0, 2.0, 1.0, 2.0],)]),
    selection.Nanmedian: lambda op, rng: unary_cases(op, rng) + kinks(
        op, rng, TIES + [([2.0, 2.0, NAN, 2.0],), ([1.0, NAN, 3.0, 4.0],)]),
    selection.MedianDim: lambda op, rng: dim_tie_cases(op, rng, MEDIAN_TIES, function("median", 1)) + [
        Case(op, (draw(rng, (3, 4)),), method("median", 0))],
    selection.NanmedianDim: lambda op, rng: dim_tie_cases(
        op, rng, MEDIAN_TIES + [([[1.0, NAN, 3.0, 2.0], [NAN, 5.0, 5.0, 4.0]],)], function("nanmedian", 1)),
    selection.Mode: lambda op, rng: dim_tie_cases(op, rng, MODE_TIES, function("mode", 1)) + [
        Case(op, (draw(rng, (3, 4)),), function("mode")), Case(op, (draw(rng, (3, 4)),), method("mode", 0))],
    selection.Kthvalue: kthvalue_cases,
}
