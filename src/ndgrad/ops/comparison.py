"""Comparisons, logical and bitwise ops (results never require grad), and the selections made by comparing:
where, maximum/minimum and fmax/fmin, whose gradients follow PyTorch's conventions at ties and NaNs."""

import math

from ndgrad._argument_parser import alias, parses, parses_method, tensor_method
from ndgrad._dtype import bool_, get_default_dtype, result_type, uint8
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.ops._broadcast import broadcast_error, broadcast_shape
from ndgrad.ops._checks import (
    as_tensor,
    check_castable,
    first_as_tensor,
    is_tensor,
    no_complex,
    no_complex_kernel,
    zeros_like_grad,
)
from ndgrad.ops._op import BINARY, TERNARY, Op, operand, operand_or_raise

__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal", "isclose", "allclose", "equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "where", "maximum", "minimum", "fmax", "fmin",
]


class _Comparison(Op):
    """Ops whose results are bool or integer: never recorded, never differentiated."""

    differentiable = False


class _Relation(_Comparison):
    """==, !=, <, <=, >, >=. Written in place into a float tensor (``x.eq_(0)``), PyTorch records them, with a
    zero gradient: the old values no longer reach the result."""

    zero_grad_in_place = True

    formula = "grad_self = zeros_like(grad); grad_other = zeros_like(grad)  (a comparison is piecewise constant)"
    @staticmethod
    def vjp(ctx, grad):
        return tuple(None if node is None else zeros_like_grad(grad) for node, _ in ctx.next_functions)


class Eq(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.equal(x, y))


class Ne(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.not_equal(x, y))


class Lt(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.less(x, y))


class Le(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.less_equal(x, y))


class Gt(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.greater(x, y))


class Ge(_Relation):
    forward = staticmethod(lambda xp, x, y: xp.greater_equal(x, y))


# The same relations with a tensor ``other``: PyTorch names their in-place nodes apart (EqBackward1).
class EqTensor(Eq):
    node_name = "EqBackward1"


class NeTensor(Ne):
    node_name = "NeBackward1"


class LtTensor(Lt):
    node_name = "LtBackward1"


class LeTensor(Le):
    node_name = "LeBackward1"


class GtTensor(Gt):
    node_name = "GtBackward1"


class GeTensor(Ge):
    node_name = "GeBackward1"


def _relation_(by_number, by_tensor, self, other):
    """``self.eq_(other)``: the overload (and so the node's name) depends on whether ``other`` is a tensor."""
    other = operand_or_raise(other)
    return (by_tensor if is_tensor(other) else by_number).apply_(self, other)


def _inexact(test, fill):
    """A floating-point test; integer and bool elements are all finite numbers, so the answer is ``fill``."""
    return staticmethod(lambda xp, x: test(xp)(x) if x.dtype.kind in "fcV" else xp.full(x.shape, fill))


class IsNan(_Comparison):
    forward = _inexact(lambda xp: xp.isnan, False)


class IsInf(_Comparison):
    forward = _inexact(lambda xp: xp.isinf, False)


class IsPosInf(_Comparison):
    forward = _inexact(lambda xp: xp.isposinf, False)


class IsNegInf(_Comparison):
    forward = _inexact(lambda xp: xp.isneginf, False)


class IsFinite(_Comparison):
    forward = _inexact(lambda xp: xp.isfinite, True)


class IsReal(_Comparison):
    forward = staticmethod(lambda xp, x: xp.isreal(x))


class IsClose(_Comparison):
    """torch.isclose: |x - y| <= atol + rtol * |y|, with equal infinities (and NaNs if asked) close."""

    @staticmethod
    def forward(xp, x, y, rtol, atol, equal_nan):
        close = xp.equal(x, y)
        if equal_nan:
            close |= xp.isnan(x) & xp.isnan(y)
        if rtol == 0 and atol == 0:
            return close
        if x.dtype.kind not in "fcV":
            x, y = x.astype(get_default_dtype().numpy), y.astype(get_default_dtype().numpy)
        error = xp.abs(x - y)
        return close | (xp.isfinite(error) & (error <= atol + xp.abs(rtol * y)))


class LogicalAnd(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.logical_and(x, y))


class LogicalOr(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.logical_or(x, y))


class LogicalXor(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.logical_xor(x, y))


class LogicalNot(_Comparison):
    forward = staticmethod(lambda xp, x: xp.logical_not(x))


class BitwiseAnd(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.bitwise_and(x, y))


class BitwiseOr(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.bitwise_or(x, y))


class BitwiseXor(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.bitwise_xor(x, y))


class BitwiseNot(_Comparison):
    forward = staticmethod(lambda xp, x: xp.invert(x))


# NOTE: NumPy, like PyTorch, gives 0 (or -1 for negative values shifted right) for shifts by a negative amount or
# by at least the bit width, rather than C's undefined behaviour.
class BitwiseLeftShift(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.left_shift(x, y))


class BitwiseRightShift(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.right_shift(x, y))


# ---- selections: differentiable ----------------------------------------------------------------------------------
class Where(Op):
    """torch.where(condition, input, other); the condition is a parameter, not an input: it has no gradient."""

    name, family = "where", TERNARY

    @staticmethod
    def forward(xp, x, y, condition):
        if _is_zero(x) and _is_real_floating(y):  # where(mask, 0, grad): most gradient rules' masks take this form
            return _kept(y, xp.logical_not(condition))
        if _is_zero(y) and _is_real_floating(x):
            return _kept(x, condition)
        return xp.where(condition, x, y)

    formula = "grad_self = where(condition, grad, 0); grad_other = where(condition, 0, grad)"
    @staticmethod
    def vjp(ctx, grad):
        need_x, need_y = ctx.needs_input_grad
        grad_x = Where.apply(grad, 0.0, condition=ctx.condition) if need_x else None
        return grad_x, (Where.apply(0.0, grad, condition=ctx.condition) if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        return Where.apply(0.0 if x_t is None else x_t, 0.0 if y_t is None else y_t, condition=ctx.condition)


_UNSIGNED = {2: "uint16", 4: "uint32", 8: "uint64"}  # the same bits as a float of that size


def _is_zero(value):
    return type(value) in (int, float) and value == 0 and math.copysign(1.0, value) > 0  # +0 only: -0. is kept


def _is_real_floating(value):
    return getattr(value, "dtype", None) is not None and value.dtype.kind in "fV"


def _kept(array, keep):
    """where(keep, array, 0) for a real floating array, exactly (NaN, infinities and -0. kept, +0. elsewhere), as
    its bits times the mask: NumPy's where takes a branch per element, several times slower on a mixed mask."""
    return (array.view(_UNSIGNED[array.dtype.itemsize]) * keep).view(array.dtype)


class Maximum(Op):
    """torch.maximum: NaN wins; at a tie each side gets half the gradient."""

    name, family = "maximum", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.maximum(x, y)

    formula = "grad_self = grad where self > other; grad_other = grad where other > self; ties: grad / 2 each"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        shared = where(x == y, grad / 2, grad)
        return where(x < y, 0.0, shared), where(x > y, 0.0, shared)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return y_t + where(x == y, 0.5, (x > y).to(x_t.dtype)) * (x_t - y_t)


class Minimum(Maximum):
    """torch.minimum: NaN wins; at a tie each side gets half the gradient."""

    name = "minimum"
    forward = staticmethod(lambda xp, x, y: xp.minimum(x, y))

    formula = "grad_self = grad where self < other; grad_other = grad where other < self; ties: grad / 2 each"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        shared = where(x == y, grad / 2, grad)
        return where(x > y, 0.0, shared), where(x < y, 0.0, shared)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return y_t + where(x == y, 0.5, (x < y).to(x_t.dtype)) * (x_t - y_t)


class Fmax(Op):
    """torch.fmax: NaN loses to a number; at a tie the whole gradient goes to input."""

    name, family = "fmax", BINARY
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y):
        return xp.fmax(x, y)

    formula = "grad_self = where(self >= other or isnan(other), grad, 0); grad_other = grad elsewhere"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        input_wins = logical_or(x >= y, isnan(y))
        return where(input_wins, grad, 0.0), where(input_wins, 0.0, grad)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        # NOTE: unlike its vjp (and fmin's jvp), PyTorch's fmax tangent takes other's at a tie.
        return where(logical_or(x > y, isnan(y)), x_t, y_t)


class Fmin(Fmax):
    """torch.fmin: NaN loses to a number; at a tie the whole gradient goes to input."""

    name = "fmin"
    forward = staticmethod(lambda xp, x, y: xp.fmin(x, y))

    formula = "grad_self = where(self <= other or isnan(other), grad, 0); grad_other = grad elsewhere"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        input_wins = logical_or(x <= y, isnan(y))
        return where(input_wins, grad, 0.0), where(input_wins, 0.0, grad)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return where(logical_or(x <= y, isnan(y)), x_t, y_t)


# ---- the functions users call --------------------------------------------------------------------------------------
@parses("eq(Tensor input, Tensor other, *, Tensor out=None)",
        "eq(Tensor input, Scalar other, *, Tensor out=None)")
def eq(input, other):
    """Elementwise ==, a bool tensor (see torch.eq)."""
    return Eq.apply(input, other)


@parses("ne(Tensor input, Tensor other, *, Tensor out=None)",
        "ne(Tensor input, Scalar other, *, Tensor out=None)")
def ne(input, other):
    """Elementwise != (see torch.ne)."""
    return Ne.apply(input, other)


@parses("lt(Tensor input, Tensor other, *, Tensor out=None)",
        "lt(Tensor input, Scalar other, *, Tensor out=None)")
def lt(input, other):
    """Elementwise < (see torch.lt)."""
    no_complex_kernel("lt_cpu", input, other)  # complex numbers have no order
    return Lt.apply(input, other)


@parses("le(Tensor input, Tensor other, *, Tensor out=None)",
        "le(Tensor input, Scalar other, *, Tensor out=None)")
def le(input, other):
    """Elementwise <= (see torch.le)."""
    no_complex_kernel("le_cpu", input, other)
    return Le.apply(input, other)


@parses("gt(Tensor input, Tensor other, *, Tensor out=None)",
        "gt(Tensor input, Scalar other, *, Tensor out=None)")
def gt(input, other):
    """Elementwise > (see torch.gt)."""
    no_complex_kernel("gt_cpu", input, other)
    return Gt.apply(input, other)


@parses("ge(Tensor input, Tensor other, *, Tensor out=None)",
        "ge(Tensor input, Scalar other, *, Tensor out=None)")
def ge(input, other):
    """Elementwise >= (see torch.ge)."""
    no_complex_kernel("ge_cpu", input, other)
    return Ge.apply(input, other)


greater = alias(gt, "greater(Tensor input, Tensor other, *, Tensor out=None)",
                    "greater(Tensor input, Scalar other, *, Tensor out=None)")
greater_equal = alias(ge, "greater_equal(Tensor input, Tensor other, *, Tensor out=None)",
                          "greater_equal(Tensor input, Scalar other, *, Tensor out=None)")
less = alias(lt, "less(Tensor input, Tensor other, *, Tensor out=None)",
                 "less(Tensor input, Scalar other, *, Tensor out=None)")
less_equal = alias(le, "less_equal(Tensor input, Tensor other, *, Tensor out=None)",
                       "less_equal(Tensor input, Scalar other, *, Tensor out=None)")
not_equal = alias(ne, "not_equal(Tensor input, Tensor other, *, Tensor out=None)",
                      "not_equal(Tensor input, Scalar other, *, Tensor out=None)")


@parses("isnan(Tensor input)")
def isnan(input):
    """True where input is NaN (see torch.isnan)."""
    return IsNan.apply(input)


@parses("isinf(Tensor input)")
def isinf(input):
    """True where input is +inf or -inf (see torch.isinf)."""
    return IsInf.apply(input)


@parses("isposinf(Tensor input, *, Tensor out=None)")
def isposinf(input):
    """True where input is +inf (see torch.isposinf)."""
    no_complex(input, "isposinf does not support complex inputs.", RuntimeError)
    return IsPosInf.apply(input)


@parses("isneginf(Tensor input, *, Tensor out=None)")
def isneginf(input):
    """True where input is -inf (see torch.isneginf)."""
    no_complex(input, "isneginf does not support complex inputs.", RuntimeError)
    return IsNegInf.apply(input)


@parses("isfinite(Tensor input)")
def isfinite(input):
    """True where input is neither infinite nor NaN (see torch.isfinite)."""
    return IsFinite.apply(input)


@parses("isreal(Tensor input)")
def isreal(input):
    """True where input has no imaginary part (see torch.isreal)."""
    return IsReal.apply(input)


@parses("isclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise closeness within atol + rtol * |other| (see torch.isclose)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.title} did not match {other.dtype.title}")
    for label, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{label} must be greater than or equal to zero, but got {value:g}")
    return IsClose.apply(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


@parses("allclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close, a Python bool (see torch.allclose)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@parses("equal(Tensor input, Tensor other)")
def equal(input, other):
    """Whether both have the same shape and elements, a Python bool (see torch.equal)."""
    return input.shape == other.shape and bool(eq(input, other)._data.all())


@parses("logical_and(Tensor input, Tensor other, *, Tensor out=None)")
def logical_and(input, other):
    """Elementwise logical and, a bool tensor (see torch.logical_and)."""
    return LogicalAnd.apply(input, other)


@parses("logical_or(Tensor input, Tensor other, *, Tensor out=None)")
def logical_or(input, other):
    """Elementwise logical or (see torch.logical_or)."""
    return LogicalOr.apply(input, other)


@parses("logical_xor(Tensor input, Tensor other, *, Tensor out=None)")
def logical_xor(input, other):
    """Elementwise logical exclusive or (see torch.logical_xor)."""
    return LogicalXor.apply(input, other)


@parses("logical_not(Tensor input, *, Tensor out=None)")
def logical_not(input):
    """Elementwise logical not (see torch.logical_not)."""
    return LogicalNot.apply(input)


def _integral(kernel, *operands):
    """Bitwise ops have integer and bool kernels only; a shift has no bool kernel either."""
    dtype = result_type(operands)
    if dtype._category > 1 or (dtype is bool_ and "shift" in kernel):
        shapes = [x.shape for x in operands if is_tensor(x)]
        if len(shapes) == 2 and broadcast_error(*shapes) is not None:  # PyTorch checks the shapes first
            raise broadcast_error(*shapes)
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{dtype.title}'")


@parses("bitwise_and(Tensor input, Tensor other, *, Tensor out=None)",
        "bitwise_and(Scalar self, Tensor other)",
        "bitwise_and(Tensor input, Scalar other, *, Tensor out=None)")
def bitwise_and(input, other):
    """Elementwise bitwise and of integer or bool tensors (see torch.bitwise_and)."""
    _integral("bitwise_and", input, other)
    return BitwiseAnd.apply(first_as_tensor(input, other), other)


@parses("bitwise_or(Tensor input, Tensor other, *, Tensor out=None)",
        "bitwise_or(Scalar self, Tensor other)",
        "bitwise_or(Tensor input, Scalar other, *, Tensor out=None)")
def bitwise_or(input, other):
    """Elementwise bitwise or (see torch.bitwise_or)."""
    _integral("bitwise_or", input, other)
    return BitwiseOr.apply(first_as_tensor(input, other), other)


@parses("bitwise_xor(Tensor input, Tensor other, *, Tensor out=None)",
        "bitwise_xor(Scalar self, Tensor other)",
        "bitwise_xor(Tensor input, Scalar other, *, Tensor out=None)")
def bitwise_xor(input, other):
    """Elementwise bitwise exclusive or (see torch.bitwise_xor)."""
    _integral("bitwise_xor", input, other)
    return BitwiseXor.apply(first_as_tensor(input, other), other)


@parses("bitwise_not(Tensor input, *, Tensor out=None)")
def bitwise_not(input):
    """Elementwise bitwise not; logical not for bool (see torch.bitwise_not)."""
    _integral("bitwise_not", input)
    return BitwiseNot.apply(input)


@parses("bitwise_left_shift(Tensor input, Tensor other, *, Tensor out=None)",
        "bitwise_left_shift(Scalar self, Tensor other)",
        "bitwise_left_shift(Tensor input, Scalar other, *, Tensor out=None)")
def bitwise_left_shift(input, other):
    """input shifted left by other bits (see torch.bitwise_left_shift)."""
    _integral("lshift", input, other)
    return BitwiseLeftShift.apply(first_as_tensor(input, other), other)


@parses("bitwise_right_shift(Tensor input, Tensor other, *, Tensor out=None)",
        "bitwise_right_shift(Scalar self, Tensor other)",
        "bitwise_right_shift(Tensor input, Scalar other, *, Tensor out=None)")
def bitwise_right_shift(input, other):
    """input shifted right by other bits, keeping the sign (see torch.bitwise_right_shift)."""
    _integral("rshift", input, other)
    return BitwiseRightShift.apply(first_as_tensor(input, other), other)


@parses("where(Tensor condition)",
        "where(Tensor condition, Tensor input, Tensor other, *, Tensor out=None)",
        "where(Tensor condition, Scalar self, Tensor other)",
        "where(Tensor condition, Tensor input, Scalar other)",
        "where(Tensor condition, Scalar self, Scalar other)")
def where(condition, input=None, other=None):
    """Elements of input where condition holds, else of other; with the condition alone, nonzero(as_tuple=True)
    (see torch.where)."""
    if input is None and other is None:
        from ndgrad.ops.sorting import nonzero

        return nonzero(condition, as_tuple=True)
    if condition.dtype is uint8:
        warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a future "
            "version of PyTorch. Use a boolean condition instead.", UserWarning,
        )
        condition = condition != 0
    elif condition.dtype is not bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.title}"
        )
    if not is_tensor(input) and not is_tensor(other):
        input = as_tensor(input, result_type((input, other)), condition)
    shapes = [t.shape for t in (condition, input, other) if is_tensor(t)]
    if any(shape != shapes[0] for shape in shapes):
        broadcast_shape(*shapes)  # PyTorch's error for shapes that clash, the condition's first
    return Where.apply(input, other, condition=condition._data)


def _selection(function, cls, input, other):
    for tensor in (input, other):
        no_complex(tensor, f"{function} not implemented for complex tensors.", RuntimeError)
    return cls.apply(input, other)


@parses("maximum(Tensor input, Tensor other, *, Tensor out=None)")
def maximum(input, other):
    """Elementwise maximum; NaN propagates (see torch.maximum)."""
    return _selection("maximum", Maximum, input, other)


@parses("minimum(Tensor input, Tensor other, *, Tensor out=None)")
def minimum(input, other):
    """Elementwise minimum; NaN propagates (see torch.minimum)."""
    return _selection("minimum", Minimum, input, other)


@parses("fmax(Tensor input, Tensor other, *, Tensor out=None)")
def fmax(input, other):
    """Elementwise maximum that ignores a NaN (see torch.fmax)."""
    return _selection("fmax", Fmax, input, other)


@parses("fmin(Tensor input, Tensor other, *, Tensor out=None)")
def fmin(input, other):
    """Elementwise minimum that ignores a NaN (see torch.fmin)."""
    return _selection("fmin", Fmin, input, other)


def _operator(function, other):
    """A binary operator: NotImplemented for operand types Tensor does not take (Python then raises TypeError)."""
    other = operand(other)
    return NotImplemented if other is None else function(other)


def _logical_(cls, self, *other):
    """PyTorch's logical in-place ops run outside autograd: they write even a leaf that requires grad, and record
    nothing."""
    if self._requires_grad:
        with no_grad():
            return cls.apply_(self, *other)
    return cls.apply_(self, *other)


def _bitwise_(cls, kernel, self, *other):
    other = tuple(operand_or_raise(x) for x in other)
    check_castable(self, *other)
    _integral(kernel, self, *other)
    return cls.apply_(self, *other)


class ComparisonMethods:
    """The Tensor methods and bitwise operators of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    eq = tensor_method(eq)
    ne = tensor_method(ne)
    lt = tensor_method(lt)
    le = tensor_method(le)
    gt = tensor_method(gt)
    ge = tensor_method(ge)
    greater = tensor_method(greater)
    greater_equal = tensor_method(greater_equal)
    less = tensor_method(less)
    less_equal = tensor_method(less_equal)
    not_equal = tensor_method(not_equal)
    @parses_method("eq_(Tensor other)",
                   "eq_(Scalar other)")
    def eq_(self, other):
        return _relation_(Eq, EqTensor, self, other)
    @parses_method("ne_(Tensor other)",
                   "ne_(Scalar other)")
    def ne_(self, other):
        return _relation_(Ne, NeTensor, self, other)
    @parses_method("lt_(Tensor other)",
                   "lt_(Scalar other)")
    def lt_(self, other):
        no_complex_kernel("lt_cpu", self, other)
        return _relation_(Lt, LtTensor, self, other)
    @parses_method("le_(Tensor other)",
                   "le_(Scalar other)")
    def le_(self, other):
        no_complex_kernel("le_cpu", self, other)
        return _relation_(Le, LeTensor, self, other)
    @parses_method("gt_(Tensor other)",
                   "gt_(Scalar other)")
    def gt_(self, other):
        no_complex_kernel("gt_cpu", self, other)
        return _relation_(Gt, GtTensor, self, other)
    @parses_method("ge_(Tensor other)",
                   "ge_(Scalar other)")
    def ge_(self, other):
        no_complex_kernel("ge_cpu", self, other)
        return _relation_(Ge, GeTensor, self, other)
    greater_ = alias(gt_, "greater_(Tensor other)",
                          "greater_(Scalar other)")
    greater_equal_ = alias(ge_, "greater_equal_(Tensor other)",
                                "greater_equal_(Scalar other)")
    less_ = alias(lt_, "less_(Tensor other)",
                       "less_(Scalar other)")
    less_equal_ = alias(le_, "less_equal_(Tensor other)",
                             "less_equal_(Scalar other)")
    not_equal_ = alias(ne_, "not_equal_(Tensor other)",
                            "not_equal_(Scalar other)")
    def isnan(self):
        return isnan.__wrapped__(self)
    def isinf(self):
        return isinf.__wrapped__(self)
    def isposinf(self):
        return isposinf.__wrapped__(self)
    def isneginf(self):
        return isneginf.__wrapped__(self)
    def isfinite(self):
        return isfinite.__wrapped__(self)
    def isreal(self):
        return isreal.__wrapped__(self)
    isclose = tensor_method(isclose)
    allclose = tensor_method(allclose)
    equal = tensor_method(equal)
    logical_and = tensor_method(logical_and)
    logical_or = tensor_method(logical_or)
    logical_xor = tensor_method(logical_xor)
    def logical_not(self):
        return logical_not.__wrapped__(self)
    @parses_method("logical_and_(Tensor other)")
    def logical_and_(self, other):
        return _logical_(LogicalAnd, self, other)
    @parses_method("logical_or_(Tensor other)")
    def logical_or_(self, other):
        return _logical_(LogicalOr, self, other)
    @parses_method("logical_xor_(Tensor other)")
    def logical_xor_(self, other):
        return _logical_(LogicalXor, self, other)
    def logical_not_(self):
        return _logical_(LogicalNot, self)
    bitwise_and = tensor_method(bitwise_and)
    bitwise_or = tensor_method(bitwise_or)
    bitwise_xor = tensor_method(bitwise_xor)
    def bitwise_not(self):
        return bitwise_not.__wrapped__(self)
    bitwise_left_shift = tensor_method(bitwise_left_shift)
    bitwise_right_shift = tensor_method(bitwise_right_shift)
    @parses_method("bitwise_and_(Tensor other)",
                   "bitwise_and_(Scalar other)")
    def bitwise_and_(self, other):
        return _bitwise_(BitwiseAnd, "bitwise_and", self, other)
    @parses_method("bitwise_or_(Tensor other)",
                   "bitwise_or_(Scalar other)")
    def bitwise_or_(self, other):
        return _bitwise_(BitwiseOr, "bitwise_or", self, other)
    @parses_method("bitwise_xor_(Tensor other)",
                   "bitwise_xor_(Scalar other)")
    def bitwise_xor_(self, other):
        return _bitwise_(BitwiseXor, "bitwise_xor", self, other)
    def bitwise_not_(self):
        return _bitwise_(BitwiseNot, "bitwise_not", self)
    @parses_method("bitwise_left_shift_(Tensor other)",
                   "bitwise_left_shift_(Scalar other)")
    def bitwise_left_shift_(self, other):
        return _bitwise_(BitwiseLeftShift, "lshift", self, other)
    @parses_method("bitwise_right_shift_(Tensor other)",
                   "bitwise_right_shift_(Scalar other)")
    def bitwise_right_shift_(self, other):
        return _bitwise_(BitwiseRightShift, "rshift", self, other)
    def __and__(self, other):
        return _operator(self.bitwise_and, other)
    __rand__ = __and__
    def __or__(self, other):
        return _operator(self.bitwise_or, other)
    __ror__ = __or__
    def __xor__(self, other):
        return _operator(self.bitwise_xor, other)
    __rxor__ = __xor__
    def __lshift__(self, other):
        return _operator(self.bitwise_left_shift, other)
    def __rlshift__(self, other):
        return _operator(lambda number: bitwise_left_shift(number, self), other)
    def __rshift__(self, other):
        return _operator(self.bitwise_right_shift, other)
    def __rrshift__(self, other):
        return _operator(lambda number: bitwise_right_shift(number, self), other)
    def __invert__(self):
        if self.dtype._category > 1:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return bitwise_not(self)
    @parses_method("where(Tensor condition, Tensor other)",
                   "where(Tensor condition, Scalar other)")
    def where(self, condition, other):
        return where(condition, self, other)
    maximum = tensor_method(maximum)
    minimum = tensor_method(minimum)
    fmax = tensor_method(fmax)
    fmin = tensor_method(fmin)

