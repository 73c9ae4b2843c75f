"""Rounding and clamping: floor, ceil, round, trunc, frac, sign, clamp and its one-sided forms, nan_to_num.

The rounding ops are piecewise constant: PyTorch records them, with a zero gradient, and so do we.
"""

from ndgrad._argument_parser import alias, parses, tensor_method
from ndgrad._dtype import bool_, result_type
from ndgrad.ops._checks import (
    check_castable,
    is_tensor,
    kind_checked,
    no_complex,
    no_complex_kernel,
    promoted_with,
    require_kind,
    zeros_like_grad,
)
from ndgrad.ops._op import BINARY, NONZERO, TERNARY, UNARY, Op, operand_or_raise
from ndgrad.ops.comparison import isfinite, logical_and, logical_or, where
from ndgrad.ops.complex_numbers import real

__all__ = [
    "floor", "ceil", "round", "trunc", "fix", "frac", "sign", "sgn", "clamp", "clip", "clamp_min", "clamp_max",
    "nan_to_num", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "clamp_", "clip_", "clamp_min_", "clamp_max_",
    "nan_to_num_",
]


class _Step(Op):
    """Piecewise-constant ops: integers are returned as they are, and the gradient is zero."""

    family = UNARY

    formula = "grad_self = zeros_like(grad)  (piecewise constant)"
    @staticmethod
    def vjp(ctx, grad):
        return (zeros_like_grad(grad),)

    @staticmethod
    def jvp(ctx, x_t):
        return zeros_like_grad(x_t)


def _rounding(function):
    return staticmethod(lambda xp, x: getattr(xp, function)(x) if x.dtype.kind in "fcV" else x.copy())


class Floor(_Step):
    """torch.floor."""

    name, forward = "floor", _rounding("floor")


class Ceil(_Step):
    """torch.ceil."""

    name, forward = "ceil", _rounding("ceil")


class Round(_Step):
    """torch.round: halves to even."""

    name, forward = "round", _rounding("rint")


class RoundDecimals(_Step):
    """torch.round with decimals: x * 10**decimals rounded, then scaled back (NumPy's method too)."""

    name, node_name = "round", "RoundBackward1"
    forward = staticmethod(lambda xp, x, decimals: xp.round(x, decimals))


class Trunc(_Step):
    """torch.trunc and torch.fix: rounding toward zero."""

    name, forward = "trunc", _rounding("trunc")


class Sign(_Step):
    """torch.sign: -1, 0 or 1, and 0 for NaN (NumPy gives NaN)."""

    name, domain = "sign", NONZERO

    @staticmethod
    def forward(xp, x):
        if x.dtype.kind == "b":
            return x.copy()
        return xp.where(xp.isnan(x), 0, xp.sign(x)) if x.dtype.kind in "fV" else xp.sign(x)


class Sgn(Sign):
    """torch.sgn: torch.sign for real tensors; z / |z| (0 at 0) for complex ones, which have a gradient."""

    name = "sgn"
    saves = ("x", "result")

    @staticmethod
    def forward(xp, x):
        if x.dtype.kind != "c":
            return Sign.forward(xp, x)
        magnitude = xp.abs(x)
        return xp.where(magnitude == 0, 0, x / xp.where(magnitude == 0, 1, magnitude))

    formula = "grad_self = (grad - Re(grad * conj(result)) * result) / |self| (complex); zeros_like(grad) (real)"
    @staticmethod
    def vjp(ctx, grad):
        x, result = ctx.saved_tensors
        return (_sgn_derivative(grad, x, result) if x.is_complex() else zeros_like_grad(grad),)

    @staticmethod
    def jvp(ctx, x_t):
        x, result = ctx.saved_tensors
        return _sgn_derivative(x_t, x, result) if x.is_complex() else zeros_like_grad(x_t)


def _sgn_derivative(v, x, result):
    """(v - real(v conj(s)) s) / |z|, and 0 at z = 0: both the vjp and the jvp of s = z / |z| (the map is
    self-adjoint)."""
    zero = x == 0
    return where(zero, 0.0, (v - real(v * result.conj()) * result) / where(zero, 1.0, x.abs()))


class Frac(Op):
    """torch.frac: x - trunc(x); the subtracted part is piecewise constant, so the gradient is grad."""

    name, family = "frac", UNARY

    @staticmethod
    def forward(xp, x):
        return x - xp.trunc(x)

    formula = "grad_self = grad"
    @staticmethod
    def vjp(ctx, grad):
        return (grad,)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t


class Clamp(Op):
    """torch.clamp with tensor bounds (either may be absent: None); a tie with a bound gives the gradient to input.

    An absent bound is a None input, so the node has PyTorch's three edges.
    """

    name, family = "clamp", TERNARY
    saves = ("x", "min", "max")

    @staticmethod
    def forward(xp, x, min, max):
        result = x if min is None else xp.maximum(x, min)
        return result if max is None else xp.minimum(result, max)

    formula = "grad_self = where(min <= self <= max, grad, 0); grad_min, grad_max = grad where clamped to them"
    @staticmethod
    def vjp(ctx, grad):
        x, min, max = ctx.saved_tensors
        need_x, need_min, need_max = ctx.needs_input_grad
        if min is None:
            return where(x <= max, grad, 0.0) if need_x else None, None, where(x > max, grad, 0.0)
        if max is None:
            return where(x >= min, grad, 0.0) if need_x else None, where(x < min, grad, 0.0), None
        # NOTE: if min > max the result is max, and only max gets the gradient.
        grad_x = where(logical_and(x >= min, x <= max), grad, 0.0) if need_x else None
        grad_min = where(logical_and(x < min, min < max), grad, 0.0) if need_min else None
        return grad_x, grad_min, (where(logical_or(x > max, max < min), grad, 0.0) if need_max else None)

    @staticmethod
    def jvp(ctx, x_t, min_t, max_t):
        x, min, max = ctx.saved_tensors
        # NOTE: PyTorch's tangent at a tie with a bound is the bound's, where its vjp gives the gradient to input.
        if min is None:
            return where(x < max, x_t, max_t)
        if max is None:
            return where(x > min, x_t, min_t)
        return where(min > max, max_t, where(x < min, min_t, where(x > max, max_t, x_t)))


class ClampScalar(Op):
    """torch.clamp with number bounds (parameters, not inputs: the node has one edge)."""

    name, family = "clamp", UNARY
    node_name = "ClampBackward1"
    saves = ("x",)

    @staticmethod
    def forward(xp, x, min, max):
        result = x if min is None else xp.maximum(x, min)
        return result if max is None else xp.minimum(result, max)

    formula = "grad_self = where(min <= self <= max, grad, 0)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.min is None:
            return (where(x <= ctx.max, grad, 0.0),)
        inside = x >= ctx.min if ctx.max is None else logical_and(x >= ctx.min, x <= ctx.max)
        return (where(inside, grad, 0.0),)

    @staticmethod
    def jvp(ctx, x_t):
        return ClampScalar.vjp(ctx, x_t)[0]  # elementwise: the tangent goes through the gradient's formula


class ClampMin(Op):
    """torch.clamp_min with a number."""

    name, family = "clamp_min", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, min):
        return xp.maximum(x, min)

    formula = "grad_self = where(self >= min, grad, 0)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (where(x >= ctx.min, grad, 0.0),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return where(x >= ctx.min, x_t, 0.0)


class ClampMinTensor(Op):
    """torch.clamp_min with a tensor: a tie gives the gradient to input."""

    name, family = "clamp_min", BINARY
    node_name = "ClampMinBackward1"
    saves = ("x", "min")

    @staticmethod
    def forward(xp, x, min):
        return xp.maximum(x, min)

    formula = "grad_self = where(self >= min, grad, 0); grad_min = where(self < min, grad, 0)"
    @staticmethod
    def vjp(ctx, grad):
        x, min = ctx.saved_tensors
        return where(x >= min, grad, 0.0), where(x < min, grad, 0.0)

    @staticmethod
    def jvp(ctx, x_t, min_t):
        x, min = ctx.saved_tensors
        return where(x >= min, x_t, min_t)


class ClampMax(Op):
    """torch.clamp_max with a number."""

    name, family = "clamp_max", UNARY
    saves = ("x",)

    @staticmethod
    def forward(xp, x, max):
        return xp.minimum(x, max)

    formula = "grad_self = where(self <= max, grad, 0)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (where(x <= ctx.max, grad, 0.0),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return where(x <= ctx.max, x_t, 0.0)


class ClampMaxTensor(Op):
    """torch.clamp_max with a tensor: a tie gives the gradient to input."""

    name, family = "clamp_max", BINARY
    node_name = "ClampMaxBackward1"
    saves = ("x", "max")

    @staticmethod
    def forward(xp, x, max):
        return xp.minimum(x, max)

    formula = "grad_self = where(self <= max, grad, 0); grad_max = where(self > max, grad, 0)"
    @staticmethod
    def vjp(ctx, grad):
        x, max = ctx.saved_tensors
        return where(x <= max, grad, 0.0), where(x > max, grad, 0.0)

    @staticmethod
    def jvp(ctx, x_t, max_t):
        x, max = ctx.saved_tensors
        return where(x <= max, x_t, max_t)


class NanToNum(Op):
    """torch.nan_to_num: the replaced elements get a zero gradient."""

    name, family = "nan_to_num", UNARY
    saves = ("x",)
    complex_autograd = False

    @staticmethod
    def forward(xp, x, nan, posinf, neginf):
        return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    formula = "grad_self = grad * isfinite(self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * isfinite(x),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        return x_t * isfinite(x)


# ---- the functions users call --------------------------------------------------------------------------------------
def nan_keeping_sign(input):
    """sign(input), but NaN where input is NaN (torch.sign gives 0 there): the slope PyTorch's kernels use where a
    piece of their derivative is a sign (distances of p = 1, the linear side of smooth_l1 and huber)."""
    return where(input != input, input.detach(), sign(input))  # piecewise constant: no derivative at NaN either


@parses("sign(Tensor input, *, Tensor out=None)")
def sign(input):
    """-1, 0 or 1 by the sign of each element (see torch.sign)."""
    return Sign.apply(_no_complex_sign(input))


def _no_complex_sign(input):
    no_complex(input, "Unlike NumPy, ndgrad.sign is not intended to support complex numbers. Please use ndgrad.sgn "
               "instead.")
    return input


def _no_complex_rounding(input, name):
    no_complex(input, f"{name} is not supported for complex inputs")
    return input


@parses("sgn(Tensor input, *, Tensor out=None)")
def sgn(input):
    """The sign of each element; for real tensors, torch.sign (see torch.sgn)."""
    return Sgn.apply(input)


@parses("floor(Tensor input, *, Tensor out=None)")
def floor(input):
    """Round down (see torch.floor)."""
    return Floor.apply(kind_checked(_no_complex_rounding(input, "floor"), "floor_vml_cpu", "iuf"))


@parses("ceil(Tensor input, *, Tensor out=None)")
def ceil(input):
    """Round up (see torch.ceil)."""
    return Ceil.apply(kind_checked(_no_complex_rounding(input, "ceil"), "ceil_vml_cpu", "iuf"))


@parses("round(Tensor input, *, Tensor out=None)",
        "round(Tensor input, *, int decimals, Tensor out=None)")
def round(input, *, decimals=None):
    """Round half to even, to ``decimals`` places if given (see torch.round)."""
    no_complex_kernel("round_cpu" if decimals else "round_vml_cpu", input)  # decimals=0 rounds as without
    if decimals is None:  # torch's overload without decimals, which records RoundBackward0
        require_kind(input.dtype, "round_vml_cpu", "iuf")
        return Round.apply(input)
    require_kind(input.dtype, "round_cpu", "f")
    return RoundDecimals.apply(input, decimals=decimals)


@parses("trunc(Tensor input, *, Tensor out=None)")
def trunc(input):
    """Round toward zero (see torch.trunc)."""
    return Trunc.apply(kind_checked(_no_complex_rounding(input, "trunc"), "trunc_vml_cpu", "iuf"))


fix = alias(trunc, "fix(Tensor input, *, Tensor out=None)")


@parses("frac(Tensor input, *, Tensor out=None)")
def frac(input):
    """The fractional part, input - trunc(input) (see torch.frac)."""
    return Frac.apply(kind_checked(input, "frac_cpu", "f"))


@parses("clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor out=None)",
        "clamp(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor out=None)")
def clamp(input, min=None, max=None):
    """Limit each element to [min, max]; bounds are numbers or tensors (see torch.clamp)."""
    return _clamp(input, min, max, inplace=False)


clip = alias(clamp, "clip(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor out=None)",
                    "clip(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor out=None)")


def _clamp(input, min, max, inplace):
    """clamp and clamp_: the tensor overload (ClampBackward0) or the number one (ClampBackward1)."""
    no_complex(input, "clamp is not supported for complex types")
    if min is None and max is None:
        raise RuntimeError("ndgrad.clamp: At least one of 'min' or 'max' must not be None")
    bounds = [b for b in (min, max) if b is not None]
    if all(is_tensor(b) for b in bounds):
        dtype = result_type((input, *bounds))
        if len(bounds) == 2 and dtype is bool_:
            raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
        op, operands = Clamp, (min, max)
        if dtype._category < 2 and len(bounds) == 1:
            # NOTE: promotion would count an absent (None) bound as a float; integer results record no node, so
            # the one-sided op, which has no absent operand, computes the same values.
            op, operands = (ClampMinTensor if max is None else ClampMaxTensor), bounds
        return op.apply_(input, *operands) if inplace else op.apply(input, *operands)
    if result_type((input, *bounds)) is bool_:
        raise NotImplementedError("\"clamp_scalar_cpu\" not implemented for 'Bool'")
    if inplace:
        check_castable(input, *bounds, cpp_name=True)
        return ClampScalar.apply_(input, min=min, max=max)
    return ClampScalar.apply(promoted_with(input, *bounds), min=min, max=max)


@parses("clamp_min(Tensor input, Tensor min, *, Tensor out=None)",
        "clamp_min(Tensor input, Scalar min, *, Tensor out=None)")
def clamp_min(input, min):
    """Limit each element to at least min (see torch.clamp_min)."""
    return _clamp_one(ClampMinTensor, ClampMin, "clamp_min", input, min, inplace=False)


@parses("clamp_max(Tensor input, Tensor max, *, Tensor out=None)",
        "clamp_max(Tensor input, Scalar max, *, Tensor out=None)")
def clamp_max(input, max):
    """Limit each element to at most max (see torch.clamp_max)."""
    return _clamp_one(ClampMaxTensor, ClampMax, "clamp_max", input, max, inplace=False)


def _clamp_one(tensor_op, number_op, function, input, bound, inplace):
    """clamp_min and clamp_max, out of place or in place, by a tensor or a number."""
    if is_tensor(bound):
        no_complex_kernel("maximum_cpu" if function == "clamp_min" else "minimum_cpu", input, bound)
        return tensor_op.apply_(input, bound) if inplace else tensor_op.apply(input, bound)
    no_complex(input, "clamp is not supported for complex types")
    bound_name = function[-3:]
    if result_type((input, bound)) is bool_:
        raise NotImplementedError(f"\"{function}_scalar_cpu\" not implemented for 'Bool'")
    if inplace:
        check_castable(input, bound, cpp_name=True)
        return number_op.apply_(input, **{bound_name: bound})
    return number_op.apply(promoted_with(input, bound), **{bound_name: bound})


@parses("nan_to_num(Tensor input, float? nan=None, float? posinf=None, float? neginf=None, *, Tensor out=None)")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by numbers; infinities by default by the dtype's extremes (see torch.nan_to_num)."""
    return NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf)


# In-place forms: they write into ``input``, which keeps its dtype (see Op.apply_).
@parses("floor_(Tensor input)")
def floor_(input):
    return Floor.apply_(kind_checked(_no_complex_rounding(input, "floor"), "floor_vml_cpu", "iuf"))


@parses("ceil_(Tensor input)")
def ceil_(input):
    return Ceil.apply_(kind_checked(_no_complex_rounding(input, "ceil"), "ceil_vml_cpu", "iuf"))


@parses("round_(Tensor input)",
        "round_(Tensor input, *, int decimals)")
def round_(input, *, decimals=None):
    no_complex_kernel("round_cpu" if decimals else "round_vml_cpu", input)
    if decimals is None:
        return Round.apply_(kind_checked(input, "round_vml_cpu", "iuf"))
    return RoundDecimals.apply_(kind_checked(input, "round_cpu", "f"), decimals=decimals)


@parses("trunc_(Tensor input)")
def trunc_(input):
    return Trunc.apply_(kind_checked(_no_complex_rounding(input, "trunc"), "trunc_vml_cpu", "iuf"))


fix_ = alias(trunc_, "fix_(Tensor input)")


@parses("frac_(Tensor input)")
def frac_(input):
    return Frac.apply_(kind_checked(input, "frac_cpu", "f"))


@parses("clamp_(Tensor input, Tensor? min=None, Tensor? max=None)",
        "clamp_(Tensor input, Scalar? min=None, Scalar? max=None)")
def clamp_(input, min=None, max=None):
    return _clamp(input, min, max, inplace=True)


clip_ = alias(clamp_, "clip_(Tensor input, Tensor? min=None, Tensor? max=None)",
                      "clip_(Tensor input, Scalar? min=None, Scalar? max=None)")


@parses("clamp_min_(Tensor input, Tensor min)",
        "clamp_min_(Tensor input, Scalar min)")
def clamp_min_(input, min):
    return _clamp_one(ClampMinTensor, ClampMin, "clamp_min", input, operand_or_raise(min), inplace=True)


@parses("clamp_max_(Tensor input, Tensor max)",
        "clamp_max_(Tensor input, Scalar max)")
def clamp_max_(input, max):
    return _clamp_one(ClampMaxTensor, ClampMax, "clamp_max", input, operand_or_raise(max), inplace=True)


@parses("nan_to_num_(Tensor input, float? nan=None, float? posinf=None, float? neginf=None)")
def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return NanToNum.apply_(input, nan=nan, posinf=posinf, neginf=neginf)


class RoundingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def sign(self):
        return sign.__wrapped__(self)
    def sgn(self):
        return sgn.__wrapped__(self)
    def floor(self):
        return floor.__wrapped__(self)
    def ceil(self):
        return ceil.__wrapped__(self)
    round = tensor_method(round)
    def trunc(self):
        return trunc.__wrapped__(self)
    fix = trunc
    def frac(self):
        return frac.__wrapped__(self)
    clamp = tensor_method(clamp)
    clip = tensor_method(clip)
    clamp_min = tensor_method(clamp_min)
    clamp_max = tensor_method(clamp_max)
    nan_to_num = tensor_method(nan_to_num)
    def sign_(self):
        return Sign.apply_(_no_complex_sign(self))
    def sgn_(self):
        return Sgn.apply_(self)
    floor_, ceil_, round_ = floor_.__wrapped__, ceil_.__wrapped__, tensor_method(round_)
    trunc_, fix_, frac_ = trunc_.__wrapped__, trunc_.__wrapped__, frac_.__wrapped__
    clamp_, clip_ = tensor_method(clamp_), tensor_method(clip_)
    clamp_min_, clamp_max_ = tensor_method(clamp_min_), tensor_method(clamp_max_)
    nan_to_num_ = tensor_method(nan_to_num_)
