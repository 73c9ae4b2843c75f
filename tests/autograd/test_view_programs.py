"""Random programs of views and in-place writes, run by torch and by ndgrad: a chain of view ops on a non-leaf base,
in-place writes through the views (or the base), more ops on the base, a backward. Both must raise the same error at
the same line, or agree on every value, gradient, version, leaf flag and grad_fn."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import normalise
from torch._prims_common import is_non_overlapping_and_dense_or_false as is_non_overlapping_and_dense

import ndgrad
from ndgrad.autograd.hints import without_hint

PROGRAMS = 150  # programs tried per run; with derandomize, the same ones every run


# ---- view ops: each draws a call valid for the current shape ("@" stands for the tensor) ----------------------
def _dim(draw, ndim, extra=0):
    """A dim of a tensor with ``ndim`` dims (+ ``extra`` for unsqueeze), sometimes negative."""
    bound = max(ndim + extra, 1)
    return draw(st.integers(-bound, bound - 1))


def _regrouped(draw, shape):
    """Another shape with as many elements: dims split, merged, ones added or dropped, one dim sometimes -1."""
    shape = list(shape)
    for _ in range(draw(st.integers(1, 2))):
        move = draw(st.sampled_from(["split", "merge", "one", "drop", "flat"]))
        if move == "split" and shape:
            i = draw(st.integers(0, len(shape) - 1))
            f = draw(st.sampled_from([f for f in range(1, shape[i] + 1) if shape[i] % f == 0] or [1]))
            shape[i:i + 1] = [f, shape[i] // f]
        elif move == "merge" and len(shape) > 1:
            i = draw(st.integers(0, len(shape) - 2))
            shape[i:i + 2] = [shape[i] * shape[i + 1]]
        elif move == "one":
            shape.insert(draw(st.integers(0, len(shape))), 1)
        elif move == "drop" and 1 in shape:
            shape.remove(1)
        elif move == "flat":
            shape = [int(np.prod(shape, dtype=np.int64))]
    if shape and draw(st.booleans()):
        shape[draw(st.integers(0, len(shape) - 1))] = -1
    return shape


def _view(draw, shape, complex_):
    return f"@.view({', '.join(map(str, _regrouped(draw, shape))) or '()'})"


def _reshape(draw, shape, complex_):
    return f"@.reshape({tuple(_regrouped(draw, shape))})"


def _transpose(draw, shape, complex_):
    return f"@.transpose({_dim(draw, len(shape))}, {_dim(draw, len(shape))})"


def _permute(draw, shape, complex_):
    order = draw(st.permutations(range(len(shape))))
    return f"@.permute({', '.join(str(d - len(shape) * draw(st.booleans())) for d in order) or '()'})"


def _t(draw, shape, complex_):
    return "@.t()" if len(shape) <= 2 else None


def _movedim(draw, shape, complex_):
    return f"@.movedim({_dim(draw, len(shape))}, {_dim(draw, len(shape))})" if shape else None


def _narrow(draw, shape, complex_):
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    start = draw(st.integers(0, shape[dim]))
    length = draw(st.integers(0, shape[dim] - start))
    return f"@.narrow({dim - len(shape) * draw(st.booleans())}, {start}, {length})"


def _expand(draw, shape, complex_):
    sizes = [draw(st.sampled_from([1, 2, 3])) for _ in range(draw(st.integers(0, 2)))]
    sizes += [draw(st.sampled_from([1, 2, -1])) if s == 1 else draw(st.sampled_from([s, -1])) for s in shape]
    return f"@.expand({', '.join(map(str, sizes))})" if sizes else None


def _diagonal(draw, shape, complex_):
    if len(shape) < 2:
        return None
    dim1, dim2 = draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
    return f"@.diagonal({draw(st.integers(-2, 2))}, {dim1}, {dim2 - len(shape) * draw(st.booleans())})"


def _slice(draw, shape, complex_):
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    start, stop = draw(st.sampled_from(["", "1", "-2"])), draw(st.sampled_from(["", "3", "-1"]))
    step = draw(st.sampled_from(["", ":2", ":3"]))
    return f"@[{':, ' * dim}{start}:{stop}{step}]"


def _select(draw, shape, complex_):
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    if not shape[dim]:
        return None
    index = draw(st.integers(-shape[dim], shape[dim] - 1))
    return draw(st.sampled_from([f"@.select({dim}, {index})", f"torch.select(@, {dim - len(shape)}, {index})",
                                 f"@[{':, ' * dim}{index}]"]))


def _unfold(draw, shape, complex_):
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    return f"@.unfold({dim}, {draw(st.integers(0, shape[dim]))}, {draw(st.integers(1, 3))})"


def _piece(draw, shape, complex_):
    """One output of unbind, split or chunk: a view that torch refuses to write in place."""
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    size = shape[dim]
    call = draw(st.sampled_from([f"@.unbind({dim})", f"@.split({draw(st.integers(1, 3))}, {dim})",
                                 f"torch.chunk(@, {draw(st.integers(1, 3))}, {dim})"]))
    count = len(eval(call.replace("@", "torch.empty(shape)"), {"torch": torch, "shape": shape}))
    return f"{call}[{draw(st.integers(0, count - 1))}]" if count and size else None


def _squeeze(draw, shape, complex_):
    return draw(st.sampled_from(["@.squeeze()", f"@.squeeze({_dim(draw, len(shape))})"]))


def _unsqueeze(draw, shape, complex_):
    return f"@.unsqueeze({_dim(draw, len(shape), extra=1)})"


def _flatten(draw, shape, complex_):
    start, end = sorted([_dim(draw, len(shape)) % max(len(shape), 1), _dim(draw, len(shape)) % max(len(shape), 1)])
    return f"@.flatten({start}, {end})"


def _unflatten(draw, shape, complex_):
    if not shape:
        return None
    dim = draw(st.integers(0, len(shape) - 1))
    factors = [f for f in range(1, shape[dim] + 1) if shape[dim] % f == 0] or [1]
    first = draw(st.sampled_from(factors))
    rest = draw(st.sampled_from([shape[dim] // first if first else 0, -1]))
    return f"@.unflatten({dim}, ({first}, {rest}))"


def _complex_parts(draw, shape, complex_):
    if not complex_:
        return None
    return draw(st.sampled_from(["@.real", "@.imag", "torch.view_as_real(@)"]))


VIEW_OPS = [
    _view, _reshape, _transpose, _permute, _t, _movedim, _narrow, _expand, _diagonal, _slice, _select, _unfold,
    _piece, _squeeze, _unsqueeze, _flatten, _unflatten, _complex_parts,
]


# ---- what torch's memory checks make of a view (computed on torch's own tensors) ---------------------------------
def _offsets(tensor):
    """The storage offset of every element."""
    grids = np.indices(tuple(tensor.shape), dtype=np.int64).reshape(tensor.ndim, tensor.numel())
    strides = np.asarray(tensor.stride(), dtype=np.int64).reshape(tensor.ndim, 1)
    return tensor.storage_offset() + (strides * grids).sum(axis=0)


def _writable(tensor):
    """False where torch's answer to an in-place write is neither an error nor well defined: elements that share
    memory without a stride-0 dim (torch cannot tell, writes anyway, and the result depends on its kernel)."""
    zero_stride = any(size > 1 and stride == 0 for size, stride in zip(tensor.shape, tensor.stride()))
    return zero_stride or len(np.unique(_offsets(tensor))) == tensor.numel()


def _can_read_while_writing(target, source):
    """False where torch would read ``source`` while writing ``target`` with an ill-defined result: they share some
    memory, are not the same, and torch cannot tell (one is not dense), so it neither refuses nor copies."""
    shared = np.intersect1d(_offsets(target), _offsets(source)).size
    same = target.storage_offset() == source.storage_offset() and target.stride() == source.stride() \
        and target.shape == source.shape
    return not shared or same or (is_non_overlapping_and_dense(target) and is_non_overlapping_and_dense(source))


# ---- programs --------------------------------------------------------------------------------------------------
WRITES = [
    "{t}.add_({s})", "{t}.add_({s}, alpha=-0.5)", "{t}.add_(2.0)", "{t}.mul_({s})", "{t}.mul_(-1.5)",
    "{t}.copy_({s})", "{t}.zero_()", "{t}.fill_(0.25)", "{t}.clamp_(-0.5, 0.5)", "{t}[{index}] = {s}",
    "{t}[{index}] = 3.0", "{t}.sub_({other})", "{t}.mul_({other})",
]


@st.composite
def programs(draw):
    """(source lines, arrays): x -> b = x * c -> v1 ... vk (views) -> in-place writes -> loss -> backward."""
    complex_ = draw(st.integers(0, 5)) == 0
    dtype = "torch.complex128" if complex_ else "torch.float64"
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    arrays = {"X": _values(rng, shape, complex_)}
    # the base is contiguous, or laid out as a permutation of its dims (what x.permute(...) * 1.5 gives)
    order = tuple(draw(st.permutations(range(len(shape))))) if draw(st.booleans()) else tuple(range(len(shape)))
    permuted = f".permute{order}" if order != tuple(range(len(shape))) else ""
    lines = [f"x = torch.tensor(X, dtype={dtype}, requires_grad=True)", f"b = x{permuted} * 1.5"]
    shadows = {"b": torch.zeros(shape, dtype=torch.complex128 if complex_ else torch.float64).permute(order) * 1.5}
    shape = tuple(shadows["b"].shape)
    names = ["b"]
    for i in range(1, draw(st.integers(1, 5)) + 1):
        parent = names[-1] if draw(st.integers(0, 3)) else draw(st.sampled_from(names))
        shadow = shadows[parent]
        call = draw(st.sampled_from(VIEW_OPS))(draw, tuple(shadow.shape), shadow.is_complex())
        if call is None:
            continue
        lines.append(f"v{i} = {call.replace('@', parent)}")
        try:
            shadows[f"v{i}"] = eval(call.replace("@", "shadow"), {"torch": torch, "shadow": shadow})
        except Exception:  # noqa: BLE001 - a call torch refuses ends the program: both must raise the same
            return lines, arrays
        names.append(f"v{i}")
    for k in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(names))
        t = shadows[target]
        if not _writable(t):
            continue
        write = draw(st.sampled_from(WRITES))
        index = _index(draw, tuple(t.shape))
        if "{index}" in write and index is None:
            continue
        s_shape = tuple(eval(f"e[{index}]", {"e": torch.empty(tuple(t.shape))}).shape) if "{index}" in write \
            else tuple(t.shape)
        if draw(st.booleans()) and s_shape:  # a source that broadcasts along the leading dims
            s_shape = s_shape[draw(st.integers(1, len(s_shape))):]
        other = draw(st.sampled_from(names))
        if "{other}" in write:
            if not _can_read_while_writing(t, shadows[other]):
                continue
            try:
                torch.broadcast_shapes(tuple(shadows[other].shape), tuple(t.shape))
            except RuntimeError:
                continue
        arrays[f"S{k}"] = _values(rng, s_shape, t.is_complex())
        lines.append(f"s{k} = torch.tensor(S{k}, dtype={_dtype_text(t)}, requires_grad=True)")
        lines.append(write.format(t=target, s=f"s{k}", index=index, other=other))
    arrays["W"] = _values(rng, shape, complex_)
    lines.append("b.retain_grad()")
    loss = "(b * W)"
    for name in names[1:]:
        if draw(st.integers(0, 2)) == 0:  # a view whose history was rebuilt after the writes
            loss += f".sum() + ({name} * 0.5)"
    lines.append(f"W = torch.tensor(W, dtype={dtype})")
    lines.append(f"out = torch.view_as_real({loss}.sum()).sum()" if complex_ else f"out = {loss}.sum()")
    lines.append("out.backward()")
    return lines, arrays


def _values(rng, shape, complex_):
    values = rng.uniform(-1, 1, shape)
    return values + 1j * rng.uniform(-1, 1, shape) if complex_ else values


def _dtype_text(shadow):
    return f"torch.{str(shadow.dtype).rsplit('.', 1)[-1]}"


def _index(draw, shape):
    """An index for assignment into a tensor of ``shape``: an int, a slice, or ``...`` with a slice."""
    if not shape or not shape[0]:
        return None
    return draw(st.sampled_from([str(draw(st.integers(-shape[0], shape[0] - 1))), "1:", "::2", "..., :1"]))


# ---- running one program ---------------------------------------------------------------------------------------
OBSERVED = ("x", "b", "v1", "v2", "v3", "v4", "v5", "s0", "s1", "s2", "out")


def run(lib, lines, arrays):
    """What the program does with ``lib`` as torch: the line and error it stopped at (or None), and what each named
    tensor shows at the end."""
    scope = {"torch": lib, **arrays}
    error = None
    for number, line in enumerate(lines):
        try:
            exec(line, scope)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            error = (number, type(exc).__name__, normalise(without_hint(str(exc))))
            break
    tensors = {name: scope[name] for name in OBSERVED if isinstance(scope.get(name), lib.Tensor)}
    return error, {name: _observe(tensor, tensors) for name, tensor in tensors.items()}


def _observe(tensor, tensors):
    def grad():
        leaf_or_retained = tensor.is_leaf or tensor.retains_grad
        return None if not leaf_or_retained or tensor.grad is None else _array(tensor.grad)

    fields = {
        "value": lambda: _array(tensor),
        "grad": grad,
        "version": lambda: tensor._version,
        "is_leaf": lambda: tensor.is_leaf,
        "requires_grad": lambda: tensor.requires_grad,
        "grad_fn": lambda: type(tensor.grad_fn).__name__,
        "base": lambda: next((name for name, other in tensors.items() if tensor._base is other), tensor._base is None),
    }
    return {key: _outcome(read) for key, read in fields.items()}


def _outcome(read):
    """What reading a field gives, or the error it raises (torch refuses to show some views' grad_fn)."""
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return type(exc).__name__, normalise(without_hint(str(exc)))


def _array(tensor):
    return np.asarray(tensor.detach().tolist()).reshape(tuple(tensor.shape))


def disagreement(lines, arrays):
    """None if torch and ndgrad agree on the program; else what differs."""
    expected, actual = run(torch, lines, arrays), run(ndgrad, lines, arrays)
    if expected[0] != actual[0]:
        return f"error: torch {expected[0]}, ndgrad {actual[0]}"
    if expected[0] is not None:
        return None
    for name, theirs in expected[1].items():
        ours = actual[1].get(name)
        if ours is None:
            return f"{name}: missing"
        for key, value in theirs.items():
            if not _same(value, ours[key]):
                return f"{name}.{key}: torch {value}, ndgrad {ours[key]}"
    return None


def _same(expected, actual):
    if isinstance(expected, np.ndarray):
        return isinstance(actual, np.ndarray) and expected.shape == actual.shape and np.allclose(
            expected, actual, rtol=1e-9, atol=1e-12, equal_nan=True)
    return expected == actual


@settings(max_examples=PROGRAMS, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(programs())
def test_view_programs_match_torch(program):
    lines, arrays = program
    problem = disagreement(lines, arrays)
    assert problem is None, "\n".join(lines) + f"\n--- {problem}\n--- arrays: {arrays}"


@pytest.mark.parametrize("lines", [
    ["x = torch.ones(2, 3, requires_grad=True)", "b = x * 1.5", "v1 = b.expand(2, 3)", "v1.add_(1.0)",
     "out = b.sum()", "out.backward()"],
    ["x = torch.arange(12., requires_grad=True)", "b = x * 1.5",
     "v1 = b.reshape(1, 12).reshape(1, 2, 6).permute(1, 2, 0).reshape(12)", "v1.mul_(2)", "v1.add_(x)",
     "out = (b * torch.arange(12.).flip(0)).sum() + v1.sum()", "out.backward()"],
])
def test_reported_programs(lines):
    assert disagreement(lines, {}) is None
