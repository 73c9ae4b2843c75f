"""Sample cases for every op in OP_TABLE: inputs drawn inside the op's domain, and one call that reads the same on
ndgrad and on torch. The families give most ops their samples; BUILDERS holds the few that need their own."""

import inspect
import zlib
from dataclasses import dataclass
from functools import partial

import numpy as np

from ndgrad.ops import linalg, pointwise, reduction, shape
from ndgrad.ops._op import BINARY, NONZERO, POSITIVE, REAL, REDUCTION, SHAPE, UNARY

__all__ = [
    "Case", "Input", "draw", "samples_for", "binary_case", "reduction_case", "first", "has_dim", "BUILDERS",
    "MAX_REDUCED_DIMS",
]

TINY = 40  # input elements at most, for finite differences: they cost two forward passes per element


# ---- inputs ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    """One tensor argument: float64 values, and its memory layout (a transposed or strided view of ``base``)."""

    base: np.ndarray
    layout: str = "contiguous"

    def array(self, dtype):
        """A fresh array of ``dtype`` with these values and this layout; no two calls share memory."""
        array = self.base.astype(dtype)
        if self.layout == "transposed":
            return array.T
        if self.layout == "strided":
            return array[..., ::2]
        return array

    @property
    def shape(self):
        return self.array(np.float64).shape

    def __str__(self):
        layout = "" if self.layout == "contiguous" else f"({self.layout})"
        return f"[{','.join(map(str, self.shape))}]{layout}"


def draw(rng, shape, domain=REAL, layout="contiguous"):
    """An Input of ``shape`` with values where the op is smooth: |x| in [0.5, 2] away from 0 for NONZERO."""
    shape = tuple(shape)
    if layout == "transposed":
        base_shape = shape[::-1]
    elif layout == "strided":
        base_shape = shape[:-1] + (2 * shape[-1],)
    else:
        base_shape = shape
    if domain == REAL:
        values = rng.uniform(-2.0, 2.0, base_shape)
    elif domain == POSITIVE:
        values = rng.uniform(0.5, 2.0, base_shape)
    elif domain == NONZERO:
        values = rng.uniform(0.5, 2.0, base_shape) * rng.choice([-1.0, 1.0], base_shape)
    else:
        raise ValueError(f"unknown domain {domain!r}")
    return Input(np.asarray(values, dtype=np.float64), layout)


# ---- how a case calls the op ----------------------------------------------------------------------------------
class Call:
    """The same Python run on both libraries: ``call(lib, *tensors)`` where lib is ndgrad or torch.

    ``text`` shows it with ``$`` where the tensors go, e.g. ``sum($, dim=(0,), keepdim=True)`` or ``$ ** 2.5``.
    """

    def __init__(self, text, fn):
        self.text, self.fn = text, fn

    def __call__(self, lib, *tensors):
        return self.fn(lib, *tensors)


def _arguments(args, kwargs):
    return [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]


def function(name, *args, **kwargs):
    """lib.name(*tensors, *args, **kwargs): ndgrad.sum(x, dim=0) and torch.sum(x, dim=0)."""
    text = f"{name}({', '.join(['$'] + _arguments(args, kwargs))})"
    return Call(text, lambda lib, *tensors: getattr(lib, name)(*tensors, *args, **kwargs))


def method(name, *args, **kwargs):
    """x.name(*args, **kwargs) on the tensor: x.view(3, 4)."""
    text = f"$.{name}({', '.join(_arguments(args, kwargs))})"
    return Call(text, lambda lib, x: getattr(x, name)(*args, **kwargs))


def expression(text, fn):
    """An operator form such as ``$ ** 2.5``; fn(x) builds it from one tensor."""
    return Call(text, lambda lib, x: fn(x))


@dataclass
class Case:
    """One sample of one op: inputs and the call. ``smooth=False`` marks a kink (ties, zeros): it is checked
    against torch's convention there, not against finite differences."""

    op: type
    inputs: tuple
    call: Call
    smooth: bool = True

    def tensors(self, lib, dtype, requires_grad=True):
        """Leaf tensors of ``lib`` (ndgrad or torch), in ``dtype`` (a NumPy dtype), keeping each input's layout."""
        tensors = tuple(lib.from_numpy(i.array(dtype)) for i in self.inputs)
        return tuple(t.requires_grad_() for t in tensors) if requires_grad else tensors

    def run(self, lib, tensors):
        return self.call(lib, *tensors)

    def is_tiny(self):
        return sum(int(np.prod(i.shape)) for i in self.inputs) <= TINY

    def __str__(self):
        names = ["x", "y"] if len(self.inputs) == 2 else ["x"]
        text = self.call.text.replace("$", ", ".join(names), 1) if "$" in self.call.text else self.call.text
        shapes = " ".join(f"{n}{i}" for n, i in zip(names, self.inputs))
        return f"{text} {shapes}" + ("" if self.smooth else " kink")


def first(result):
    """The output that carries the gradient: the result, or the values of a (values, indices) pair."""
    return result[0] if isinstance(result, tuple) else result


def has_dim(op):
    """Whether this overload takes a dim (SumDim) or reduces everything (Sum)."""
    return "dim" in inspect.signature(op.forward).parameters


# ---- family samplers ------------------------------------------------------------------------------------------
# (shape, layout) pairs: 0-d, 1-d, 2-d, 3-d, and non-contiguous views.
UNARY_SHAPES = [
    ((), "contiguous"), ((5,), "contiguous"), ((3, 4), "contiguous"), ((2, 3, 4), "contiguous"),
    ((3, 4), "transposed"), ((2, 3, 2), "strided"),
]


def unary_cases(op, rng, call=None):
    call = call or function(op.name)
    return [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout in UNARY_SHAPES]


# Pairs that broadcast one way, the other way, both ways, with 0-d on either side, and non-contiguous.
BINARY_SHAPES = [
    (((3, 4), "contiguous"), ((3, 4), "contiguous")),
    (((), "contiguous"), ((), "contiguous")),
    (((3, 4), "contiguous"), ((), "contiguous")),
    (((), "contiguous"), ((2, 3), "contiguous")),
    (((2, 1, 4), "contiguous"), ((3, 1), "contiguous")),
    (((4,), "contiguous"), ((3, 4), "contiguous")),
    (((3, 4), "transposed"), ((3, 4), "strided")),
    (((3, 1), "strided"), ((2, 3, 2), "transposed")),
]


def binary_cases(op, rng, scalar_other=True, **kwargs):
    """Tensor pairs; ``scalar_other`` adds ``op(x, 1.5)``, which is this same op (not so for pow, rsub, remainder)."""
    call = function(op.name, **kwargs)
    cases = [
        Case(op, (draw(rng, s, op.domain, lx), draw(rng, t, op.domain, ly)), call)
        for (s, lx), (t, ly) in BINARY_SHAPES
    ]
    if scalar_other:
        cases += [Case(op, (draw(rng, (3, 4), op.domain),), function(op.name, 1.5, **kwargs))]
    return cases


def binary_case(op, shapes, seed):
    """One case for a pair of shapes drawn by hypothesis (mutually_broadcastable_shapes)."""
    rng = np.random.default_rng(seed)
    return Case(op, tuple(draw(rng, s, op.domain) for s in shapes), function(op.name))


# (shape, layout, dim, keepdim): int, negative and tuple dims, the empty tuple (all dims), 0-d inputs.
REDUCTION_DIMS = [
    ((3, 4), "contiguous", 0, False),
    ((3, 4), "contiguous", -1, True),
    ((5,), "contiguous", 0, True),
    ((), "contiguous", 0, False),
    ((), "contiguous", -1, True),
    ((2, 3, 4), "contiguous", 1, False),
    ((2, 3, 4), "contiguous", (0, 2), False),
    ((2, 3, 4), "contiguous", (-1,), True),
    ((2, 3, 4), "contiguous", (2, 0, 1), True),
    ((2, 3, 4), "contiguous", (), False),
    ((3, 4), "transposed", 1, False),
    ((2, 3, 2), "strided", (1, -1), True),
]


# torch.norm (p='fro') takes at most two dims; more raise "linalg.matrix_norm: dim must be a 2-tuple".
MAX_REDUCED_DIMS = {reduction.LinalgVectorNorm: 2}


def reduction_cases(op, rng):
    """Whole-tensor overloads get the unary shapes; dim overloads a dim (an int only, if they return indices)."""
    if not has_dim(op):
        return unary_cases(op, rng)
    most = -1 if len(op.outputs) > 1 else MAX_REDUCED_DIMS.get(op, 4)
    return [
        reduction_case(op, draw(rng, s, op.domain, layout), dim, keepdim)
        for s, layout, dim, keepdim in REDUCTION_DIMS
        if isinstance(dim, int) or len(dim) <= most
    ]


def reduction_case(op, input, dim, keepdim):
    return Case(op, (input,), function(op.name, dim=dim, keepdim=keepdim))


def shape_cases(op, rng, calls):
    """Shape ops: each entry is (shape, layout, call)."""
    return [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in calls]


def matmul_cases(op, rng, pairs):
    return [Case(op, (draw(rng, s, op.domain, lx), draw(rng, t, op.domain, ly)), function(op.name))
            for (s, lx), (t, ly) in pairs]


def kinks(op, rng, arrays, call=None):
    """Cases at the points where the op is not smooth, to check that we pick torch's (sub)gradient there."""
    call = call or function(op.name)
    return [Case(op, tuple(Input(np.asarray(a, dtype=np.float64)) for a in array), call, smooth=False)
            for array in arrays]


C, T, S = "contiguous", "transposed", "strided"
TIES = [([1.0, 3.0, 3.0, -2.0],), ([[2.0, 2.0], [2.0, 1.0]],)]

# The per-op knowledge: ops whose overload needs its own arguments, or that have kinks worth checking.
BUILDERS = {
    pointwise.Add: lambda op, rng: binary_cases(op, rng) + binary_cases(op, rng, alpha=2.5)[:1],
    pointwise.Sub: lambda op, rng: binary_cases(op, rng) + binary_cases(op, rng, alpha=2.5)[:1],
    pointwise.Rsub: lambda op, rng: binary_cases(op, rng, scalar_other=False) + [
        Case(op, (draw(rng, (3, 4)), draw(rng, (4,))), function("rsub", alpha=2.5))],
    pointwise.RsubScalar: lambda op, rng: unary_cases(op, rng, expression("2.5 - $", lambda x: 2.5 - x))[:3]
    + unary_cases(op, rng, function("rsub", 2.0, alpha=3))[3:],
    pointwise.Remainder: partial(binary_cases, scalar_other=False),
    pointwise.RemainderScalar: lambda op, rng: unary_cases(op, rng, expression("$ % 1.5", lambda x: x % 1.5))[:3]
    + unary_cases(op, rng, function("remainder", -0.75))[3:],
    pointwise.PowTensor: partial(binary_cases, scalar_other=False),
    pointwise.Pow: lambda op, rng: [
        Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
            ((3, 4), C, expression("$ ** 2", lambda x: x**2)),
            ((), C, expression("$ ** 2.5", lambda x: x**2.5)),
            ((5,), C, function("pow", -1.5)),
            ((2, 3, 2), S, function("pow", 0.5)),
            ((3, 4), T, expression("$ ** 3", lambda x: x**3)),
            ((3, 4), C, function("pow", 0)),
            ((5,), C, function("pow", 1.0)),
        ]
    ],
    pointwise.PowScalarBase: lambda op, rng: [
        Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout, call in [
            ((3, 4), C, expression("2.0 ** $", lambda x: 2.0**x)),
            ((), C, expression("3 ** $", lambda x: 3**x)),
            ((2, 3, 2), S, Call("pow(0.5, $)", lambda lib, x: lib.pow(0.5, x))),
            ((3, 4), T, expression("1.5 ** $", lambda x: 1.5**x)),
        ]
    ],
    pointwise.Abs: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
    pointwise.Relu: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
    pointwise.Sign: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 0.0, 2.0],)]),
    reduction.Max: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, TIES),
    reduction.Min: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, [([-1.0, 3.0, -1.0],)]),
    reduction.LinalgVectorNorm: lambda op, rng: reduction_cases(op, rng) + unary_cases(op, rng) + kinks(
        op, rng, [(np.zeros((2, 3)),)], function("norm", dim=1)),
    shape.View: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, method("view", 12)),
        ((3, 4), C, method("view", 2, -1, 3)),
        ((3, 4), C, method("view", (4, 3))),
        ((), C, method("view", 1)),
        ((1,), C, method("view", ())),
        ((2, 3, 4), S, method("view", 6, 4)),
        ((3, 4), T, method("view", 3, 2, 1, 2)),
    ]),
    shape.Transpose: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("transpose", 0, 1)),
        ((2, 3, 4), C, function("transpose", -1, 0)),
        ((2, 3, 4), C, function("transpose", 1, 1)),
        ((5,), C, function("transpose", 0, -1)),
        ((), C, function("transpose", 0, -1)),
        ((3, 4), T, function("transpose", 1, 0)),
        ((2, 3, 2), S, function("transpose", 0, 2)),
    ]),
    shape.T: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("t")), ((5,), C, function("t")), ((), C, function("t")), ((3, 4), T, function("t")),
        ((3, 4), S, method("t")),
    ]),
    shape.Permute: lambda op, rng: shape_cases(op, rng, [
        ((2, 3, 4), C, function("permute", (2, 0, 1))),
        ((2, 3, 4), C, function("permute", (-1, 0, 1))),
        ((), C, function("permute", ())),
        ((3, 4), T, function("permute", (1, 0))),
        ((2, 3, 2), S, method("permute", 1, 2, 0)),
    ]),
    shape.Squeeze: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze")),
        ((), C, function("squeeze")),
        ((1,), C, function("squeeze")),
        ((3, 4), C, function("squeeze")),
        ((1, 3, 2), S, method("squeeze")),
    ]),
    shape.SqueezeDim: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze", 2)),
        ((1, 3, 1, 4), C, function("squeeze", -4)),
        ((3, 4), C, function("squeeze", 0)),
        ((), C, function("squeeze", 0)),
        ((3, 1, 2), S, method("squeeze", 1)),
    ]),
    shape.SqueezeDims: lambda op, rng: shape_cases(op, rng, [
        ((1, 3, 1, 4), C, function("squeeze", (0, 2))),
        ((1, 3, 1, 4), C, function("squeeze", (-2, 1))),
        ((3, 4), C, function("squeeze", (0,))),
        ((), C, function("squeeze", ())),
        ((1, 3, 2), S, function("squeeze", (0, -1))),
    ]),
    shape.Unsqueeze: lambda op, rng: shape_cases(op, rng, [
        ((3, 4), C, function("unsqueeze", 0)),
        ((3, 4), C, function("unsqueeze", -1)),
        ((), C, function("unsqueeze", 0)),
        ((3, 4), T, function("unsqueeze", 1)),
        ((2, 3, 2), S, method("unsqueeze", -2)),
    ]),
    shape.Expand: lambda op, rng: shape_cases(op, rng, [
        ((3, 1), C, method("expand", 3, 4)),
        ((4,), C, method("expand", 2, 3, 4)),
        ((), C, method("expand", 3)),
        ((3, 1), C, method("expand", (-1, 4))),
        ((4, 1), T, method("expand", 2, -1, 3)),
        ((1, 3, 2), S, method("expand", 2, -1, -1, 2)),
    ]),
    linalg.Dot: partial(matmul_cases, pairs=[
        (((3,), C), ((3,), C)), (((1,), C), ((1,), C)), (((4,), S), ((4,), C)),
    ]),
    linalg.Mv: partial(matmul_cases, pairs=[
        (((3, 4), C), ((4,), C)), (((1, 1), C), ((1,), C)), (((3, 4), T), ((4,), S)),
    ]),
    linalg.Mm: partial(matmul_cases, pairs=[
        (((3, 4), C), ((4, 2), C)), (((1, 1), C), ((1, 1), C)), (((3, 4), T), ((4, 2), S)),
        (((2, 3), S), ((3, 2), T)),
    ]),
    linalg.Bmm: partial(matmul_cases, pairs=[
        (((2, 3, 4), C), ((2, 4, 2), C)), (((1, 1, 1), C), ((1, 1, 1), C)), (((2, 3, 4), S), ((2, 4, 2), T)),
    ]),
}

# Families whose ops need nothing of their own: the call is lib.<name>(inputs).
FAMILY_BUILDERS = {UNARY: unary_cases, BINARY: binary_cases, REDUCTION: reduction_cases, SHAPE: unary_cases}


def builder_for(op):
    """The sampler for an op: its own entry, else its family's (SHAPE only for ops with no parameters)."""
    if op in BUILDERS:
        return BUILDERS[op]
    if op.family == SHAPE and len(inspect.signature(op.forward).parameters) > 2:
        return None  # a shape op with arguments (dims, sizes) needs its own entry
    return FAMILY_BUILDERS.get(op.family)


def samples_for(op):
    """All cases of one op, the same on every run (the generator is seeded by the op's class name)."""
    build = builder_for(op)
    if build is None:
        return []
    return build(op, np.random.default_rng(zlib.crc32(op.__name__.encode())))

