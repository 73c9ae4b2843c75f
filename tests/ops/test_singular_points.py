"""Every op in OP_TABLE at its singular points, against torch: zeros (and -0.), zeros mixed in, ±inf, NaN, ties
(one value everywhere, two values alternating), empty inputs and single slices, and the kinks its sampler names.
A few smooth samples of each op get their input values replaced by each point; values, the VJP, second derivatives
and forward mode must match torch there, NaN equal to NaN and infinities equal to infinities of the same sign (-0.
may differ from 0.). Where torch refuses a point, ndgrad must refuse it too."""

import warnings
from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_forward

import ndgrad
import ndgrad.autograd.forward_ad as forward

from . import exceptions
from .samples import first, random_like, real_samples_for
from .test_against_torch import outputs, second_order
from .test_forward_ad import directions, tangent_of

CASES_PER_OP = 2  # this many smooth samples of each op get every point: the first small ones, else the smallest
SMALL = 24  # elements in all of a case's inputs, at most, for a small case


# ---- the points: each gives an input's new values from its old ones (and the first input's) ---------------------
def _every(base, step, start=0):
    """A mask of every ``step``-th element of ``base`` (in memory order), from ``start``."""
    mask = np.zeros(base.size, dtype=bool)
    mask[start::step] = True
    return mask.reshape(base.shape)


def _filled(value):
    return lambda base, first: np.full_like(base, value)


def _mixed_in(value, step):
    return lambda base, first: np.where(_every(base, step), value, base)


def _infinities(base, first):
    """+inf and -inf mixed in, sparsely enough that most windows and slices hold one of them or none."""
    return np.where(_every(base, 5), np.inf, np.where(_every(base, 5, 2), -np.inf, base))


def _one_value(base, first):
    """Every input holds the first input's first value: ties within each input and across inputs (x == y)."""
    return np.full_like(base, first.flat[0])


def _two_values(base, first):
    """The first input's first two values, alternating: ties that still leave an order."""
    a, b = first.flat[:2] if first.size > 1 else (first.flat[0], -first.flat[0])
    return np.where(_every(base, 2), a, b)


POINTS = {
    "zeros": _filled(0.0),
    "negative zeros": _filled(-0.0),
    "zeros mixed in": _mixed_in(0.0, 2),
    "infinities": _infinities,
    "minus infinities": _filled(-np.inf),  # softmax's fully masked rows, logsumexp and max of nothing but -inf
    "nan": _mixed_in(np.nan, 4),
    "one value": _one_value,
    "two values": _two_values,
}
# Points where the first input and the others differ: x = 0 with y as drawn (pow(0, y), atan2(0, y), xlogy(0, y)),
# and 0 against infinities either way round (0 * inf, 0 / 0 after a product, pow(0, inf), pow(inf, 0), inf / 0).
MIXED = {
    "zeros in the first input only": ("zeros", None),
    "zeros against infinities": ("zeros", "infinities"),
    "infinities against zeros": ("infinities", "zeros"),
}


def chosen_cases(op):
    """The op's first small smooth samples; its smallest smooth ones if none is small."""
    smooth = [case for case in real_samples_for(op) if case.smooth]
    size = {id(case): sum(i.base.size for i in case.inputs) for case in smooth}
    small = [case for case in smooth if size[id(case)] <= SMALL] or sorted(smooth, key=lambda case: size[id(case)])
    return small[:CASES_PER_OP]


def at_point(case, first, rest):
    """The case with its first differentiable input's values replaced by the point ``first``'s and the other
    differentiable inputs' by the point ``rest``'s (None: left as drawn). Layouts are kept."""
    differentiable = [k for k, i in enumerate(case.inputs) if not i.fixed]
    first_values = case.inputs[differentiable[0]].base
    inputs = list(case.inputs)
    for k in differentiable:
        point = first if k == differentiable[0] else rest
        if point is not None:
            inputs[k] = replace(inputs[k], base=POINTS[point](inputs[k].base, first_values))
    return replace(case, inputs=tuple(inputs), smooth=False)


def resized(case, size):
    """The case with its first differentiable input's first dimension cut to ``size`` (0: empty; 1: a single
    slice, whose variance is 0 / 0), and that of the other inputs (targets and indices too) with as many elements
    there (a batch they share); None where that dimension is missing or not longer than ``size``."""
    first = next(i.shape[:1] for i in case.inputs if not i.fixed)
    if not first or first[0] <= size:
        return None

    def cut(item):
        if item.shape[:1] != first:
            return item
        axis = -1 if item.layout == "transposed" else 0  # the base's axis that the view shows first
        return replace(item, base=np.take(item.base, range(size), axis=axis))

    return replace(case, inputs=tuple(cut(i) for i in case.inputs), smooth=False)


def variants(op):
    """(point name, case) for each chosen sample at each point, then the sampler's own kink cases."""
    for case in chosen_cases(op):
        for point in POINTS:
            yield point, at_point(case, point, point)
        if sum(not i.fixed for i in case.inputs) > 1:
            for name, (first, rest) in MIXED.items():
                yield name, at_point(case, first, rest)
        for name, size in (("empty", 0), ("one slice", 1)):
            if (cut := resized(case, size)) is not None:
                yield name, cut
    for case in real_samples_for(op):
        if not case.smooth:
            yield "kink", case


# ---- one variant in one library ----------------------------------------------------------------------------------
def _numpy(tensor, like=None):
    """A NumPy copy of a result; zeros of ``like``'s shape for a gradient that is None (nothing depends on it)."""
    if tensor is None:
        return None if like is None else np.zeros(tuple(like.shape))
    if isinstance(tensor, torch.Tensor):
        return np.array(tensor.detach().resolve_conj().numpy(force=True))
    return np.array(tensor.detach().resolve_conj().numpy())


def _guarded(run):
    """What ``run()`` gives, or the type of the exception it raised (torch's refusal is a result to match)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run()
    except Exception as error:
        return type(error)


def results(lib, fw, case, seed=0):
    """{"values", "vjp", "second derivatives", "jvp"}: lists of arrays, or the exception type if ``lib`` refused."""
    rng = np.random.default_rng(seed)
    found = {"values": _guarded(lambda: [_numpy(o) for o in outputs(
        case.run(lib, case.tensors(lib, np.float64, requires_grad=False)))])}
    if isinstance(found["values"], type) or not found["values"]:
        return found
    cotangent = random_like(rng, found["values"][0].shape, np.float64)
    inputs = case.differentiable(case.tensors(torch, np.float64, requires_grad=False))
    weights = [random_like(rng, x.shape, x.dtype) for x in inputs]

    def vjp():
        tensors = case.tensors(lib, np.float64)
        wrt = case.differentiable(tensors)
        grads = lib.autograd.grad(first(case.run(lib, tensors)), wrt, lib.from_numpy(cotangent.copy()),
                                  allow_unused=True)
        return [_numpy(g, x) for g, x in zip(grads, wrt)]

    def second():
        like = list(inputs) + [torch.from_numpy(cotangent)]
        return [_numpy(g, x) for g, x in zip(second_order(lib, case, cotangent, weights), like)]

    found["vjp"] = _guarded(vjp)
    found["second derivatives"] = _guarded(second)
    found["jvp"] = _guarded(lambda: [tangent_of(lib, fw, case, directions(case, seed))[1]])
    return found


# ---- comparing ---------------------------------------------------------------------------------------------------
# torch has no forward AD or no double backward for some ops: there ndgrad's answer has nothing to match.
UNDEFINED_WHERE_TORCH_RAISES = ("second derivatives", "jvp")


def tie_sums(gradient, values):
    """The gradient summed over each set of equal input values (NaN a value of its own): what ties leave defined."""
    keys = np.where(np.isnan(values), np.inf, values).ravel()
    order = np.unique(keys, return_inverse=True)[1]
    return np.bincount(order, weights=gradient.ravel(), minlength=order.max() + 1 if order.size else 0)


def comparable(case, op, found):
    """The parts of a result that torch defines at this case, in the form they are compared in.

    An op that picks one of several equal elements (sort, topk, max(dim), median, mode, kthvalue, cummax, max
    pooling) may pick any: torch's choice depends on the CPU's sorting and vector kernels. There only the values
    and the gradient summed over equal input elements are defined (the indices, the tangent and the second
    derivatives follow the choice)."""
    if op not in exceptions.PICKS_AMONG_TIES or isinstance(found.get("values"), type):
        return found
    kept = {"values": found["values"][:1]}
    if "vjp" in found:
        differentiable = [i for i in case.inputs if not i.fixed]
        kept["vjp"] = found["vjp"] if isinstance(found["vjp"], type) else [
            tie_sums(g, i.array(np.float64)) for g, i in zip(found["vjp"], differentiable)]
    return kept


def disagreements(ours, theirs, tolerance):
    """What differs, e.g. ["vjp[0]: ndgrad [nan], torch [0.]"]; empty when ndgrad gives what torch gives."""
    found = []
    for what, expected in theirs.items():
        got = ours.get(what)
        if isinstance(expected, type):
            if what not in UNDEFINED_WHERE_TORCH_RAISES and not isinstance(got, type):
                found.append(f"{what}: torch raises {expected.__name__}, ndgrad does not")
            continue
        if isinstance(got, type) or got is None:
            found.append(f"{what}: ndgrad raises {getattr(got, '__name__', 'an error earlier')}")
            continue
        if len(got) != len(expected):
            found.append(f"{what}: {len(got)} results, torch {len(expected)}")
            continue
        for index, (a, b) in enumerate(zip(got, expected)):
            if a is None or b is None:
                if (a is None) != (b is None):
                    found.append(f"{what}[{index}]: ndgrad {a}, torch {b}")
                continue
            if what == "second derivatives" and a.shape == b.shape:
                # NaN in torch's second derivative is an artifact of differentiating a masked formula (norm, std
                # and sinc at 0): only its numbers are defined.
                a = np.where(np.isnan(b), np.nan, a)
            try:
                torch.testing.assert_close(torch.from_numpy(a), torch.from_numpy(b), equal_nan=True,
                                           check_dtype=False, **tolerance)
            except AssertionError as error:
                found.append(f"{what}[{index}]: ndgrad {a.ravel()[:8]}, torch {b.ravel()[:8]} "
                             f"({str(error).splitlines()[0]})")
    return found


def _params():
    for op in exceptions.SINGULAR_OPS:
        for number, (point, case) in enumerate(variants(op)):
            reason = exceptions.SINGULAR_POINTS.get((op, point))
            yield pytest.param(op, point, case, id=f"{op.__name__}-{number}-{point}: {case}",
                               marks=[pytest.mark.skip(reason=reason)] if reason else [])


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Small tensors: torch's thread pool only adds its start-up cost to each call (and contends on a loaded
    machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("op, point, case", list(_params()))
def test_singular_point_matches_torch(op, point, case):
    theirs = comparable(case, op, results(torch, torch_forward, case))
    ours = comparable(case, op, results(ndgrad, forward, case))
    if (op, point) in exceptions.NOISY_SECOND_DERIVATIVES:
        theirs.pop("second derivatives", None)
    problems = disagreements(ours, theirs, exceptions.tolerance(op))
    if problems and (op, point) in exceptions.SINGULAR_XFAILS:  # known, for some of the op's samples at the point
        pytest.xfail(exceptions.SINGULAR_XFAILS[(op, point)])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("op, point", [pytest.param(op, point, id=f"{op.__name__}-{point}")
                                       for op, point in exceptions.SINGULAR_XFAILS])
def test_singular_xfails_still_fail(op, point):
    """An entry of SINGULAR_XFAILS names a difference that still shows at one of the op's samples at least."""
    cases = [case for name, case in variants(op) if name == point]
    assert any(disagreements(comparable(case, op, results(ndgrad, forward, case)),
                             comparable(case, op, results(torch, torch_forward, case)), exceptions.tolerance(op))
               for case in cases), f"{op.__name__} agrees with torch at {point!r} now: remove its SINGULAR_XFAILS entry"
