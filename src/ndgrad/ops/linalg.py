"""Matrix products: dot, mv, mm, bmm as primitives, and matmul composed from them as PyTorch composes it."""

from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad.ops._arrays import conj, matmul_in_dtype
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._broadcast import broadcast_shape
from ndgrad.ops._checks import no_bool_kernel
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.shape import Expand, SqueezeInplace, UnsafeView, reshape

__all__ = ["dot", "mv", "mm", "bmm", "matmul"]


class Dot(Op):
    """torch.dot: inner product of two 1-D tensors."""

    name, family = "dot", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y):
        return matmul_in_dtype(xp, x, y)  # of two vectors, the dot product

    formula = "grad_self = grad * tensor; grad_tensor = grad * self"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (grad * y.conj() if need_x else None), (grad * x.conj() if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return dot(x_t, y) + dot(x, y_t)


class Mv(Op):
    """torch.mv: matrix times vector."""

    name, family = "mv", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y):
        return matmul_in_dtype(xp, x, y)

    formula = "grad_self = grad outer vec; grad_vec = self^T @ grad"
    @staticmethod
    def vjp(ctx, grad):
        matrix, vector = ctx.saved_tensors
        need_matrix, need_vector = ctx.needs_input_grad
        grad_matrix = mm(grad.unsqueeze(1), vector.conj().unsqueeze(0)) if need_matrix else None
        return grad_matrix, (mv(matrix.t().conj(), grad) if need_vector else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return mv(x_t, y) + mv(x, y_t)


class Mm(Op):
    """torch.mm: product of two matrices."""

    name, family = "mm", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y):
        return matmul_in_dtype(xp, x, y)

    formula = "grad_self = grad @ mat2^T; grad_mat2 = self^T @ grad"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (mm(grad, y.t().conj()) if need_x else None), (mm(x.t().conj(), grad) if need_y else None)

    @staticmethod
    def vjp_arrays(ctx, grad):
        x, y = ctx.saved_arrays
        need_x, need_y = ctx.needs_input_grad
        return (grad @ conj(y.T) if need_x else None), (conj(x.T) @ grad if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return mm(x_t, y) + mm(x, y_t)


class Bmm(Op):
    """torch.bmm: a batch of matrix products, (b, n, k) @ (b, k, m)."""

    name, family = "bmm", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y):
        return matmul_in_dtype(xp, x, y)

    formula = "grad_self = grad @ mat2^T; grad_mat2 = self^T @ grad  (per batch)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (
            bmm(grad, y.transpose(1, 2).conj()) if need_x else None,
            bmm(x.transpose(1, 2).conj(), grad) if need_y else None,
        )

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return bmm(x_t, y) + bmm(x, y_t)


def _check(condition, message):
    if not condition:
        raise RuntimeError(message)


@parses("dot(Tensor input, Tensor tensor, *, Tensor out=None)")
def dot(input, other):
    _check(input.ndim == 1 and other.ndim == 1,
           f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    _check_same_dtype("dot", input, other)
    _check(input.shape[0] == other.shape[0],
           f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] to have the "
           f"same number of elements, but got {input.shape[0]} and {other.shape[0]} elements respectively")
    no_bool_kernel("dot", input)
    return Dot.apply(input, other)


@parses("mv(Tensor input, Tensor vec, *, Tensor out=None)")
def mv(input, vec):
    if AUTOCAST.active:
        input, vec = autocast_inputs("mv", input, vec)
    _check(input.ndim == 2 and vec.ndim == 1,
           f"vector + matrix @ vector expected, got {1}, {input.ndim}, {vec.ndim}")
    _check(input.shape[1] == vec.shape[0],
           f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x{input.shape[1]}), "
           f"vec ({vec.shape[0]})")
    _check_same_dtype("mv", input, vec)
    no_bool_kernel("addmv_impl_cpu", input)
    return Mv.apply(input, vec)


@parses("mm(Tensor input, Tensor mat2, *, Tensor out=None)",
        "mm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor out=None)")
def mm(input, mat2):
    if AUTOCAST.active:
        input, mat2 = autocast_inputs("mm", input, mat2)
    _check(input.ndim == 2, "self must be a matrix")
    _check(mat2.ndim == 2, "mat2 must be a matrix")
    _check(input.shape[1] == mat2.shape[0],
           f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
           f"{mat2.shape[0]}x{mat2.shape[1]})")
    _check_same_dtype("mm", input, mat2)
    no_bool_kernel("addmm_impl_cpu_", input)
    return Mm.apply(input, mat2)


@parses("bmm(Tensor input, Tensor mat2, *, Tensor out=None)",
        "bmm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor out=None)")
def bmm(input, mat2):
    if AUTOCAST.active:
        input, mat2 = autocast_inputs("bmm", input, mat2)
    _check(input.ndim == 3, "batch1 must be a 3D tensor")
    _check(mat2.ndim == 3, "batch2 must be a 3D tensor")
    _check(input.shape[0] == mat2.shape[0] and input.shape[2] == mat2.shape[1],
           f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, {input.shape[2]}] "
           f"but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _check_same_dtype("bmm", input, mat2)
    no_bool_kernel("bmm", input)
    return Bmm.apply(input, mat2)


def _check_same_dtype(name, a, b):
    if a.dtype is b.dtype:
        return
    if name == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {a.dtype.title} and "
                           f"{b.dtype.title}")
    if name == "mv":  # PyTorch runs mv as addmv into a result of the vector's dtype
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {b.dtype.title}, {a.dtype.title}, "
                           f"and {b.dtype.title}")
    if name == "bmm":
        raise RuntimeError(f"expected scalar type {a.dtype.title} but found {b.dtype.title}")
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype.cpp_name} != {b.dtype.cpp_name}")


@parses("matmul(Tensor input, Tensor other, *, Tensor out=None)")
def matmul(input, other):
    """Matrix product with PyTorch's rules for 1-D, 2-D and batched (broadcast) operands (see torch.matmul)."""
    if AUTOCAST.active:
        input, other = autocast_inputs("matmul", input, other)
    a, b = input.ndim, other.ndim
    _check(a > 0 and b > 0, f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        return SqueezeInplace.apply(mm(input.unsqueeze(0), other), dims=(0,))
    if a == 2 and b == 2:
        return mm(input, other)
    if a >= 3 and b <= 2:
        # Fold the batch dims into the rows: one big mm (or mv) instead of a batch of small ones.
        folded = reshape(input, (_prod(input.shape[:-1]), input.shape[-1]))  # not -1: a 0 there infers nothing
        product = mv(folded, other) if b == 1 else mm(folded, other)
        out_shape = input.shape[:-1] + (() if b == 1 else (other.shape[-1],))
        return UnsafeView.apply(product, shape=out_shape)
    return _batched_matmul(input, other)


def _batched_matmul(input, other):
    """Broadcast the batch dims, flatten them into one, bmm, and view the result back."""

    left = input.unsqueeze(0) if input.ndim == 1 else input
    right = other.unsqueeze(-1) if other.ndim == 1 else other
    n, k = left.shape[-2:]
    k2, m = right.shape[-2:]
    _check(k == k2, f"Expected size for first two dimensions of batch2 tensor to be: [{_prod(left.shape[:-2])}, {k}] "
                    f"but got: [{_prod(right.shape[:-2])}, {k2}].")
    batch = broadcast_shape(left.shape[:-2], right.shape[:-2])
    left = _expand_to(left, batch + (n, k))
    right = _expand_to(right, batch + (k, m))
    count = _prod(batch)  # not -1: with a zero-size matrix there is nothing to infer it from
    product = bmm(reshape(left, (count, n, k)), reshape(right, (count, k, m)))
    out_shape = batch + ((n,) if input.ndim > 1 else ()) + ((m,) if other.ndim > 1 else ())
    return UnsafeView.apply(product, shape=out_shape)


def _expand_to(tensor, shape):
    return tensor if tuple(tensor.shape) == shape else Expand.apply(tensor, shape=shape)


def _prod(shape):
    result = 1
    for size in shape:
        result *= size
    return result


class LinalgMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    dot = tensor_method(dot)
    mv = tensor_method(mv)
    @parses_method("mm(Tensor mat2)")
    def mm(self, mat2):
        return mm(self, mat2)
    @parses_method("bmm(Tensor mat2)")
    def bmm(self, mat2):
        return bmm(self, mat2)
    matmul = tensor_method(matmul)
