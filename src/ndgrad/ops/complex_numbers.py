"""Complex numbers: conj, the real and imaginary views, view_as_real/view_as_complex, complex/polar and angle.

Note [complex gradients]: as in PyTorch, a vjp returns the conjugate Wirtinger gradient, dL/dx + i dL/dy for a
real loss L of z = x + iy. For a holomorphic f that is ``grad * conj(f'(z))``, which is why the rules of the other
families conjugate the derivatives they multiply by (``y.conj()`` is the tensor itself for real dtypes). A real
input of a complex op gets the real part of its gradient (the engine takes it). The jvp of a holomorphic f is
``z_t * f'(z)``; that of a real function of a complex input is ``real(conj(vjp at grad 1) * z_t)``.
"""

from ndgrad._argument_parser import parses
from ndgrad._dtype import bfloat16, complex64, complex128, result_type
from ndgrad.ops._checks import zeros_like_grad
from ndgrad.ops._op import BINARY, UNARY, FloatUnary, Op
from ndgrad.ops.comparison import where
from ndgrad.ops.shape import Select

__all__ = [
    "conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "real", "imag",
    "view_as_real", "view_as_complex", "complex", "polar", "angle", "is_complex",
]


# ---- conjugation -------------------------------------------------------------------------------------------------
class Conj(Op):
    """torch.conj: PyTorch's is a lazy view with a conjugate bit; here the values are conjugated at once, and the
    bit is kept only as a flag that is_conj() reads (it follows views, as PyTorch's does)."""

    name, family = "conj", UNARY
    forward = staticmethod(lambda xp, x: xp.conj(x))

    formula = "grad_self = grad.conj()"
    @staticmethod
    def vjp(ctx, grad):
        return (grad.conj(),)

    @staticmethod
    def jvp(ctx, x_t):
        return x_t.conj()


class ConjPhysical(Conj):
    """torch.conj_physical: the conjugate in new memory, with no conjugate bit."""

    name = "conj_physical"


class ViewAsReal(Op):
    """torch.view_as_real: a complex tensor's memory seen as pairs (real, imaginary) along a new last dim."""

    name, family = "view_as_real", UNARY
    is_view = True
    replayed_view = True

    @staticmethod
    def forward(xp, x):
        real = x.real  # a view with the complex strides; the new last dim steps half an element
        return xp.lib.stride_tricks.as_strided(real, x.shape + (2,), x.strides + (real.itemsize,))

    formula = "grad_self = view_as_complex(grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (ViewAsComplex.apply(grad.contiguous()),)

    @staticmethod
    def jvp(ctx, x_t):
        return ViewAsReal.apply(_as_complex(x_t))


class ViewAsComplex(Op):
    """torch.view_as_complex: pairs along a last dim of size 2 seen as complex numbers, without copying."""

    name, family = "view_as_complex", UNARY
    is_view = True
    replayed_view = True

    @staticmethod
    def forward(xp, x):
        return x.view(_COMPLEX_OF[x.dtype.name])[..., 0]

    formula = "grad_self = view_as_real(grad)"
    @staticmethod
    def vjp(ctx, grad):
        return (ViewAsReal.apply(grad),)

    @staticmethod
    def jvp(ctx, x_t):
        return ViewAsComplex.apply(x_t.contiguous())


_COMPLEX_OF = {"float32": complex64.numpy, "float64": complex128.numpy}


def _as_complex(tensor):
    return tensor if tensor.is_complex() else tensor.to(tensor.dtype.to_complex())


# ---- building complex numbers ------------------------------------------------------------------------------------
class Complex(Op):
    """torch.complex: real + i imag, from two real tensors of one dtype."""

    name, family = "complex", BINARY

    @staticmethod
    def forward(xp, real, imag):
        result = xp.empty(xp.broadcast_shapes(real.shape, imag.shape), dtype=_COMPLEX_OF[real.dtype.name])
        result.real[...], result.imag[...] = real, imag  # through views: not every array library sets .real
        return result

    formula = "grad_real = grad.real; grad_imag = grad.imag"
    @staticmethod
    def vjp(ctx, grad):
        return real(grad), imag(grad)

    @staticmethod
    def jvp(ctx, real_t, imag_t):
        return Complex.apply(real_t, imag_t)


class Polar(Op):
    """torch.polar: abs * (cos(angle) + i sin(angle))."""

    name, family = "polar", BINARY
    saves = ("angle", "result")

    @staticmethod
    def forward(xp, abs, angle):
        return Complex.forward(xp, abs * xp.cos(angle), abs * xp.sin(angle))

    formula = "grad_abs = real(grad * conj(sgn(result))); grad_angle = real(grad * conj(1j * result))"
    @staticmethod
    def vjp(ctx, grad):
        _, result = ctx.saved_tensors
        need_abs, need_angle = ctx.needs_input_grad
        # NOTE: PyTorch's direction is sgn(result), not exp(i angle): they differ where abs <= 0, and so, as there
        # (where polar is not meant to be called), does the gradient.
        grad_abs = real(grad * result.sgn().conj()) if need_abs else None
        grad_angle = real(grad * (result * 1j).conj()) if need_angle else None
        return grad_abs, grad_angle

    @staticmethod
    def jvp(ctx, abs_t, angle_t):
        angle, result = ctx.saved_tensors
        # NOTE: in real and imaginary parts, as PyTorch's: a complex product by i would meet inf * 0 at abs = inf
        return Complex.apply(abs_t * angle.cos() - angle_t * imag(result), abs_t * angle.sin() + angle_t * real(result))


# ---- functions of complex numbers --------------------------------------------------------------------------------
class Angle(FloatUnary):
    """torch.angle: the argument of each element; for real inputs 0 or pi, with a zero gradient."""

    name = "angle"
    saves = ("x",)

    @staticmethod
    def forward(xp, x):
        angle = xp.angle(x)
        if x.dtype.kind != "c":  # NOTE: NumPy's angle(-0.) is arctan2(0, -0.) = pi; PyTorch's is pi only for x < 0
            angle = xp.where(x == 0, 0, angle)
        return angle.astype(x.real.dtype, copy=False)

    formula = "grad_self = grad * 1j * self / |self|^2  (0 at 0; zeros for a real self)"
    @staticmethod
    def vjp(ctx, grad):
        (x,) = ctx.saved_tensors
        if not x.is_complex():
            return (zeros_like_grad(grad),)
        # d angle / dx + i d angle / dy = i z / |z|^2; PyTorch's gradient at 0 is 0
        zero = x == 0
        return (grad * where(zero, 0.0, x * 1j / where(zero, 1.0, x.abs() ** 2)),)

    @staticmethod
    def jvp(ctx, x_t):
        (x,) = ctx.saved_tensors
        if not x.is_complex():
            return zeros_like_grad(x_t)
        zero = x == 0
        return where(zero, 0.0, imag(x.conj() * x_t) / where(zero, 1.0, x.abs() ** 2))


def conjugate(value):
    """The conjugate of a Tensor or of a Python number, for rules whose saved operands may be numbers."""
    return value.conj() if hasattr(value, "_data") else value.conjugate()


# ---- the functions users call ------------------------------------------------------------------------------------
@parses("conj(Tensor input)")
def conj(input):
    """The complex conjugate; real tensors are returned as they are (see torch.conj)."""
    if input._data.dtype.kind != "c":
        return input
    result = Conj.apply(input)
    result._conj_bit = not is_conj(input)
    return result


@parses("conj_physical(Tensor input, *, Tensor out=None)")
def conj_physical(input):
    """The complex conjugate in new memory (see torch.conj_physical)."""
    return ConjPhysical.apply(input) if input._data.dtype.kind == "c" else input


@parses("conj_physical_(Tensor input)")
def conj_physical_(input):
    return ConjPhysical.apply_(input) if input._data.dtype.kind == "c" else input


@parses("resolve_conj(Tensor input)")
def resolve_conj(input):
    """A tensor without the conjugate bit: a copy if it had one, else input itself (see torch.resolve_conj)."""
    from ndgrad.ops.shape import clone

    return clone(input) if is_conj(input) else input


@parses("resolve_neg(Tensor input)")
def resolve_neg(input):
    """ndgrad has no negative bit: input itself (see torch.resolve_neg)."""
    return input


@parses("is_conj(Tensor input)")
def is_conj(input):
    """Whether the tensor came from conj() (or is a view of one) (see torch.is_conj)."""
    return getattr(input, "_conj_bit", False)


@parses("is_neg(Tensor input)")
def is_neg(input):
    return False


@parses("is_complex(Tensor input)")
def is_complex(input):
    """Whether the dtype is complex (see torch.is_complex)."""
    return input.dtype.is_complex


@parses("real(Tensor input)")
def real(input):
    """The real part, a view; a real tensor itself (see torch.real)."""
    if input._data.dtype.kind != "c":
        return input
    return Select.apply(ViewAsReal.apply(input), dim=input.ndim, index=0)


@parses("imag(Tensor input)")
def imag(input):
    """The imaginary part, a view (see torch.imag)."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return Select.apply(ViewAsReal.apply(input), dim=input.ndim, index=1)


@parses("view_as_real(Tensor input)")
def view_as_real(input):
    """A real view of a complex tensor with a last dim of size 2 (see torch.view_as_real)."""
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(input):
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can "
            "view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
            "the original."
        )
    return ViewAsReal.apply(input)


@parses("view_as_complex(Tensor input)")
def view_as_complex(input):
    """A complex view of a real tensor whose last dim holds (real, imaginary) pairs (see torch.view_as_complex)."""
    if input.dtype.name not in _COMPLEX_OF:
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: "
            f"{input.dtype.title}"
        )
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(stride % 2 for stride in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if _storage_offset(input._data) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return ViewAsComplex.apply(input)


def _storage_offset(array):
    """How many elements into the memory it views the array starts (0 for an array owning its memory)."""
    owner = array
    while getattr(owner, "base", None) is not None and hasattr(owner.base, "__array_interface__"):
        owner = owner.base
    if owner is array or not hasattr(array, "__array_interface__"):
        return 0
    return (array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]) // array.itemsize


@parses("complex(Tensor real, Tensor imag, *, Tensor out=None)")
def complex(real, imag):
    """real + i imag, from two float tensors of one dtype (see torch.complex)."""
    _check_parts("complex", real, imag, ("real", "imag"))
    return Complex.apply(real, imag)


@parses("polar(Tensor abs, Tensor angle, *, Tensor out=None)")
def polar(abs, angle):
    """abs * exp(i angle) (see torch.polar)."""
    _check_parts("polar", abs, angle, ("abs", "angle"))
    return Polar.apply(abs, angle)


def _check_parts(function, first, second, names):
    kinds = (first.dtype, second.dtype)
    if not all(d.is_floating_point and d is not bfloat16 for d in kinds):
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {kinds[0].title} and {kinds[1].title}"
        )
    if kinds[0] is not kinds[1]:
        raise RuntimeError(
            f"Expected object of scalar type {kinds[0].title} but got scalar type {kinds[1].title} for second argument"
        )
    if result_type((first, second)).name not in _COMPLEX_OF:
        raise RuntimeError(f"{function}: ndgrad has no complex32 (complex half) dtype")


@parses("angle(Tensor input, *, Tensor out=None)")
def angle(input):
    """The argument of each element, in (-pi, pi] (see torch.angle)."""
    return Angle.apply(input)


class ComplexMethods:
    """The Tensor methods and properties of this module's ops (Tensor inherits them)."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def conj(self):
        return self if self._data.dtype.kind != "c" else conj(self)  # the check first: vjps call this on reals
    def conj_physical(self):
        return conj_physical.__wrapped__(self)
    def conj_physical_(self):
        return conj_physical_.__wrapped__(self)
    def resolve_conj(self):
        return resolve_conj.__wrapped__(self)
    def resolve_neg(self):
        return self
    def is_conj(self):
        return is_conj.__wrapped__(self)
    def is_neg(self):
        return False
    def angle(self):
        return angle.__wrapped__(self)

    @property
    def real(self):
        return real.__wrapped__(self)

    @real.setter
    def real(self, value):
        _assign(real(self), value)

    @property
    def imag(self):
        return imag.__wrapped__(self)

    @imag.setter
    def imag(self, value):
        _assign(imag(self), value)


def _assign(part, value):
    """``x.real = value``: a number or tensor copied into the part, else PyTorch's setitem refusal of the value."""
    from ndgrad.ops.indexing import value_tensor

    part.copy_(value if hasattr(value, "_data") else value_tensor(value, part))

