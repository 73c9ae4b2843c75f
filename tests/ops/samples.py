"""Sample cases for every op in OP_TABLE: inputs drawn inside the op's domain, and one call that reads the same on
ndgrad and on torch. The families give most ops their samples; tests/ops/builders/ holds the ops that need their own.
The ops of the families in COMPLEX_FAMILIES also get complex versions of a few samples (see complex_variants)."""

import functools
import inspect
import zlib
from dataclasses import dataclass, replace

import numpy as np

from ndgrad.ops import reduction
from ndgrad.ops._op import ABOVE_ONE, BINARY, NONZERO, POSITIVE, REAL, REDUCTION, SHAPE, UNARY, UNIT

__all__ = [
    "Case", "Input", "draw", "fixed", "samples_for", "real_samples_for", "binary_case", "reduction_case", "first",
    "has_dim", "MAX_REDUCED_DIMS", "random_like", "rejected_complex_samples",
]

TINY = 40  # input elements at most, for finite differences: they cost two forward passes per element


# ---- inputs ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    """One tensor argument: float64 (or complex128) values, and its memory layout (a transposed or strided view of
    ``base``). A complex input is made in the complex dtype that goes with the dtype asked for.

    ``fixed`` names a dtype the input always has (int64 indices, bool masks): such an input never requires grad.
    """

    base: np.ndarray
    layout: str = "contiguous"
    fixed: str | None = None

    @property
    def is_complex(self):
        return self.base.dtype.kind == "c"

    def array(self, dtype):
        """A fresh array of ``dtype`` with these values and this layout; no two calls share memory."""
        if self.is_complex and not self.fixed:
            dtype = np.promote_types(dtype, np.complex64)  # float32 -> complex64, float64 -> complex128
        array = self.base.astype(self.fixed or dtype)
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
    elif domain == UNIT:
        values = rng.uniform(-0.9, 0.9, base_shape)
    elif domain == ABOVE_ONE:
        values = rng.uniform(1.2, 3.0, base_shape)
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
        if not requires_grad:
            return tensors
        return tuple(t if i.fixed else t.requires_grad_() for t, i in zip(tensors, self.inputs))

    def differentiable(self, tensors):
        """The tensors gradients are taken with respect to: all but the fixed-dtype ones."""
        return tuple(t for t, i in zip(tensors, self.inputs) if not i.fixed)

    def run(self, lib, tensors):
        return self.call(lib, *tensors)

    def is_tiny(self):
        return sum(int(np.prod(i.shape)) for i in self.inputs) <= TINY

    @property
    def is_complex(self):
        return any(i.is_complex for i in self.inputs)

    @property
    def complex_kind(self):
        """None for a real case, "complex" if every differentiable input is complex, else "mixed"."""
        if not self.is_complex:
            return None
        return "complex" if all(i.is_complex or i.fixed for i in self.inputs) else "mixed"

    def __str__(self):
        names = ["x", "y"] if len(self.inputs) == 2 else ["x"]
        text = self.call.text.replace("$", ", ".join(names), 1) if "$" in self.call.text else self.call.text
        shapes = " ".join(f"{n}{i}" for n, i in zip(names, self.inputs))
        kind = self.complex_kind or ""
        if kind == "mixed":  # which inputs are complex (c) and which real (r)
            kind += " " + "".join("c" if i.is_complex else "r" for i in self.inputs if not i.fixed)
        return f"{text} {shapes}" + ("" if self.smooth else " kink") + (f" {kind}" if kind else "")


def random_like(rng, shape, dtype):
    """Standard normal values of ``shape``, with an imaginary part as well if ``dtype`` (any library's) is complex."""
    values = rng.standard_normal(shape)
    return np.asarray(values + 1j * rng.standard_normal(shape)) if "complex" in str(dtype) else values


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


def fixed(values, dtype="int64"):
    """An index or mask input: these exact values, always of ``dtype``, never differentiated."""
    return Input(np.asarray(values), fixed=dtype)


def kinks(op, rng, arrays, call=None):
    """Cases at the points where the op is not smooth, to check that we pick torch's (sub)gradient there."""
    call = call or function(op.name)
    return [Case(op, tuple(Input(np.asarray(a, dtype=np.float64)) for a in array), call, smooth=False)
            for array in arrays]


C, T, S = "contiguous", "transposed", "strided"
TIES = [([1.0, 3.0, 3.0, -2.0],), ([[2.0, 2.0], [2.0, 1.0]],)]


# Families whose ops need nothing of their own: the call is lib.<name>(inputs).
FAMILY_BUILDERS = {UNARY: unary_cases, BINARY: binary_cases, REDUCTION: reduction_cases, SHAPE: unary_cases}


def builder_for(op):
    """The sampler for an op: its own entry, else its family's (SHAPE only for ops with no parameters)."""
    from .builders import BUILDERS  # the per-op entries import this module's helpers

    if op in BUILDERS:
        return BUILDERS[op]
    if op.family == SHAPE and len(inspect.signature(op.forward).parameters) > 2:
        return None  # a shape op with arguments (dims, sizes) needs its own entry
    return FAMILY_BUILDERS.get(op.family)


def samples_for(op):
    """All cases of one op, the same on every run (the generator is seeded by the op's class name): its real cases,
    then the complex versions of some of them that torch differentiates."""
    real, complex_cases = _samples(op)
    return real + [case for case, outcome in complex_cases if outcome is None]


def rejected_complex_samples(op):
    """(case, (phase, exception type, message)) for the complex versions of op's samples that torch refuses, in
    the forward ("forward") or when differentiating ("backward"): ndgrad must refuse them alike."""
    return [(case, outcome) for case, outcome in _samples(op)[1] if outcome is not None]


@functools.cache
def real_samples_for(op):
    """The op's real cases only (built without running torch, unlike the complex ones)."""
    build = builder_for(op)
    return [] if build is None else build(op, np.random.default_rng(zlib.crc32(op.__name__.encode())))


@functools.cache
def _samples(op):
    cases = real_samples_for(op)
    if not cases:
        return [], []
    if op.__module__.rsplit(".", 1)[-1] not in COMPLEX_FAMILIES:
        return cases, []
    variants = complex_variants(op, cases, np.random.default_rng(zlib.crc32(op.__name__.encode()) + 1))
    return cases, [(case, torch_outcome(case)) for case in variants]


# ---- complex samples ----------------------------------------------------------------------------------------------
# The op families whose samples also run with complex inputs. The FFTs' builders make complex inputs themselves
# (which op runs depends on the input's dtype); the other families are not audited for complex numbers yet.
COMPLEX_FAMILIES = {
    "arithmetic", "rounding", "transcendental", "trigonometric", "special", "activation", "comparison",
    "complex_numbers", "reduction", "selection", "scan", "shape", "splitting", "joining", "indexing", "linalg",
    "products", "solvers", "lu", "decompositions", "matrix_functions", "eigen", "convolutions",
    "sorting", "regression_losses", "classification_losses", "margin_losses", "pooling", "max_pooling", "resampling",
    "gather_scatter", "normalization", "more_activations", "softmaxes", "layers", "dropout", "attention", "einsums",
}
COMPLEX_VARIANTS = 2  # complex versions of this many of an op's smooth tiny cases


def complex_variants(op, cases, rng):
    """Complex versions of an op's first smooth tiny cases: every differentiable input complex in the first; in the
    second only the first differentiable input, if there are several (a real input of a complex op gets a real
    gradient), else again all of them."""
    chosen = [case for case in cases if case.smooth and case.is_tiny()][:COMPLEX_VARIANTS]
    variants = []
    for number, case in enumerate(chosen):
        differentiable = [k for k, i in enumerate(case.inputs) if not i.fixed]
        which = differentiable[:1] if number and len(differentiable) > 1 else differentiable
        inputs = tuple(complexified(i, rng, op.domain) if k in which else i for k, i in enumerate(case.inputs))
        variants.append(replace(case, inputs=inputs))
    return variants


# The imaginary parts drawn for each domain: small enough to stay clear of branch cuts (on the real axis, outside
# the domain's interval) and of poles.
IMAGINARY_RANGE = {REAL: 1.5, POSITIVE: 1.0, NONZERO: 1.0, UNIT: 0.5, ABOVE_ONE: 1.0}


def complexified(input, rng, domain=REAL):
    """The input with an imaginary part added to its values."""
    scale = IMAGINARY_RANGE[domain]
    return replace(input, base=np.asarray(input.base + 1j * rng.uniform(-scale, scale, input.base.shape)))


def torch_outcome(case):
    """None if torch computes the case and its gradients, else (phase, exception type, message)."""
    import torch

    inputs = case.tensors(torch, np.float64)
    try:
        out = first(case.run(torch, inputs))
    except Exception as error:  # the refusal is the result: ndgrad must give the same one
        return "forward", type(error), str(error)
    cotangent = torch.from_numpy(np.asarray(random_like(np.random.default_rng(0), tuple(out.shape), out.dtype)))
    try:
        torch.autograd.grad(out, case.differentiable(inputs), cotangent.to(out.dtype), allow_unused=True)
    except Exception as error:
        return "backward", type(error), str(error)
    return None

