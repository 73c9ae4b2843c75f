"""Products: trace, the addmm family, cross, vdot, and the composites outer, inner, kron, tensordot, vecdot,
multi_dot and matrix_power, built from mm/bmm/mul and shape ops as PyTorch builds them (einsum has its own module)."""

import math

from ndgrad._argument_parser import alias, parses, parses_method, tensor_method
from ndgrad._warnings import warn
from ndgrad.ops._arrays import matmul_in_dtype
from ndgrad.ops._autocast import AUTOCAST, autocast_inputs
from ndgrad.ops._broadcast import broadcast_shape
from ndgrad.ops._checks import no_bool_kernel, zeros_like_grad
from ndgrad.ops._linalg_base import check_floating, check_kernel, check_square
from ndgrad.ops._op import MATMUL, Op
from ndgrad.ops.complex_numbers import conjugate
from ndgrad.ops.linalg import bmm, dot, mm, mv
from ndgrad.ops.rounding import nan_keeping_sign
from ndgrad.ops.shape import UnsafeView, expanded_shape, normalize_dims, permute, reshape, wrap_dim

__all__ = [
    "outer", "ger", "inner", "kron", "tensordot", "trace", "addmm", "addmv", "addbmm", "baddbmm", "cross",
    "matrix_power", "cdist", "vdot", "chain_matmul",
]
FUNCTIONAL = []  # the names torch.nn.functional has (ndgrad.nn.functional re-exports them)
LINALG = ["vecdot", "multi_dot", "matrix_power"]  # the names torch.linalg has


def _check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


# ---- trace, addmm family, cross -------------------------------------------------------------------------------
class Trace(Op):
    """torch.trace: the sum of the main diagonal of a matrix."""

    name, family = "trace", MATMUL

    @staticmethod
    def forward(xp, x):
        return xp.trace(x, dtype=xp.int64 if x.dtype.kind in "iu" else None)  # integers sum in int64, as PyTorch

    formula = "grad_self = grad * eye(self.shape)"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad._creation import eye

        return (grad * eye(*ctx.input_shapes[0], dtype=grad.dtype, device=grad.device),)

    @staticmethod
    def jvp(ctx, x_t):
        return Trace.apply(x_t)


def _scaled(tensor, factor):
    """tensor * conj(factor): the gradient of a product by the number ``factor``."""
    return tensor if factor == 1 else tensor * conjugate(factor)


def _times(tensor, factor):
    return tensor if factor == 1 else tensor * factor


def _beta_input_plus_alpha_product(input, product, beta, alpha):
    """beta * input + alpha * product on raw arrays; with beta = 0 the input is ignored (its NaN does not spread)."""
    product = product if alpha == 1 else alpha * product
    return product + input * beta if beta != 0 else product  # not product + 0 * product: 0 * inf is NaN


class Addmm(Op):
    """torch.addmm: beta * input + alpha * (mat1 @ mat2)."""

    name, family = "addmm", MATMUL
    saves = ("mat1", "mat2")
    saved_for = {"mat1": "mat2", "mat2": "mat1"}

    @staticmethod
    def forward(xp, input, mat1, mat2, beta, alpha):
        return _beta_input_plus_alpha_product(input, matmul_in_dtype(xp, mat1, mat2), beta, alpha)

    formula = "grad_self = grad * beta; grad_mat1 = grad @ mat2^T * alpha; grad_mat2 = mat1^T @ grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        need_input, need_1, need_2 = ctx.needs_input_grad
        return (
            _scaled(grad, ctx.beta) if need_input else None,
            _scaled(mm(grad, mat2.t().conj()), ctx.alpha) if need_1 else None,
            _scaled(mm(mat1.t().conj(), grad), ctx.alpha) if need_2 else None,
        )

    @staticmethod
    def jvp(ctx, input_t, mat1_t, mat2_t):
        mat1, mat2 = ctx.saved_tensors
        return _times(input_t, ctx.beta) + _times(mm(mat1_t, mat2) + mm(mat1, mat2_t), ctx.alpha)


class Addmv(Op):
    """torch.addmv: beta * input + alpha * (mat @ vec)."""

    name, family = "addmv", MATMUL
    saves = ("mat", "vec")
    saved_for = {"mat": "vec", "vec": "mat"}

    @staticmethod
    def forward(xp, input, mat, vec, beta, alpha):
        return _beta_input_plus_alpha_product(input, matmul_in_dtype(xp, mat, vec), beta, alpha)

    formula = "grad_self = grad * beta; grad_mat = grad outer vec * alpha; grad_vec = mat^T @ grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        mat, vec = ctx.saved_tensors
        need_input, need_mat, need_vec = ctx.needs_input_grad
        return (
            _scaled(grad, ctx.beta) if need_input else None,
            _scaled(mm(grad.unsqueeze(1), vec.conj().unsqueeze(0)), ctx.alpha) if need_mat else None,
            _scaled(mv(mat.t().conj(), grad), ctx.alpha) if need_vec else None,
        )

    @staticmethod
    def jvp(ctx, input_t, mat_t, vec_t):
        mat, vec = ctx.saved_tensors
        return _times(input_t, ctx.beta) + _times(mv(mat_t, vec) + mv(mat, vec_t), ctx.alpha)


class Baddbmm(Op):
    """torch.baddbmm: beta * input + alpha * (batch1 @ batch2), batch by batch."""

    name, family = "baddbmm", MATMUL
    saves = ("batch1", "batch2")
    saved_for = {"batch1": "batch2", "batch2": "batch1"}

    @staticmethod
    def forward(xp, input, batch1, batch2, beta, alpha):
        return _beta_input_plus_alpha_product(input, matmul_in_dtype(xp, batch1, batch2), beta, alpha)

    formula = "grad_self = grad * beta; grad_batch1 = grad @ batch2^T * alpha; grad_batch2 = batch1^T @ grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        batch1, batch2 = ctx.saved_tensors
        need_input, need_1, need_2 = ctx.needs_input_grad
        return (
            _scaled(grad, ctx.beta) if need_input else None,
            _scaled(bmm(grad, batch2.transpose(1, 2).conj()), ctx.alpha) if need_1 else None,
            _scaled(bmm(batch1.transpose(1, 2).conj(), grad), ctx.alpha) if need_2 else None,
        )

    @staticmethod
    def jvp(ctx, input_t, batch1_t, batch2_t):
        batch1, batch2 = ctx.saved_tensors
        return _times(input_t, ctx.beta) + _times(bmm(batch1_t, batch2) + bmm(batch1, batch2_t), ctx.alpha)


class Addbmm(Op):
    """torch.addbmm: beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""

    name, family = "addbmm", MATMUL
    saves = ("batch1", "batch2")
    saved_for = {"batch1": "batch2", "batch2": "batch1"}

    @staticmethod
    def forward(xp, input, batch1, batch2, beta, alpha):
        # summed in the inputs' dtype: NumPy would widen small integers
        product = matmul_in_dtype(xp, batch1, batch2).sum(axis=0, dtype=batch1.dtype)
        return _beta_input_plus_alpha_product(input, product, beta, alpha)

    formula = "grad_self = grad * beta; grad_batch1 = grad @ batch2^T * alpha; grad_batch2 = batch1^T @ grad * alpha"
    @staticmethod
    def vjp(ctx, grad):
        batch1, batch2 = ctx.saved_tensors
        need_input, need_1, need_2 = ctx.needs_input_grad
        grads = grad.unsqueeze(0).expand((batch1.shape[0],) + tuple(grad.shape))
        return (
            _scaled(grad, ctx.beta) if need_input else None,
            _scaled(bmm(grads, batch2.transpose(1, 2).conj()), ctx.alpha) if need_1 else None,
            _scaled(bmm(batch1.transpose(1, 2).conj(), grads), ctx.alpha) if need_2 else None,
        )

    @staticmethod
    def jvp(ctx, input_t, batch1_t, batch2_t):
        batch1, batch2 = ctx.saved_tensors
        product = (bmm(batch1_t, batch2) + bmm(batch1, batch2_t)).sum(0)
        return _times(input_t, ctx.beta) + _times(product, ctx.alpha)


class LinalgCross(Op):
    """torch.linalg.cross: the cross product of 3-vectors along ``dim``, broadcasting the other dims."""

    name, family = "cross", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y, dim):
        return xp.cross(x, y, axis=dim)

    formula = "grad_self = cross(other, grad); grad_other = cross(grad, self)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (
            LinalgCross.apply(y.conj(), grad, dim=ctx.dim) if need_x else None,
            LinalgCross.apply(grad, x.conj(), dim=ctx.dim) if need_y else None,
        )

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return LinalgCross.apply(x_t, y, dim=ctx.dim) + LinalgCross.apply(x, y_t, dim=ctx.dim)


class Vdot(Op):
    """torch.vdot: the inner product of two 1-D tensors with the first conjugated, sum(conj(x) * y)."""

    name, family = "vdot", MATMUL
    saves = ("x", "y")
    saved_for = {"x": "y", "y": "x"}

    @staticmethod
    def forward(xp, x, y):
        return xp.vdot(x, y)

    formula = "grad_self = grad.conj() * other; grad_other = grad * self"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        return (grad.conj() * y if need_x else None), (grad * x if need_y else None)

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return Vdot.apply(x_t, y) + Vdot.apply(x, y_t)


class Cdist(Op):
    """torch.cdist: the p-norm distance between each row of x1 and each row of x2, batched. Its second derivative
    is ndgrad's own: torch defines none (tests/ops/exceptions.py)."""

    name, family = "cdist", MATMUL
    saves = ("x1", "x2", "result")

    @staticmethod
    def forward(xp, x1, x2, p):
        diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
        if p == 0:  # NOTE: min(ceil(|d|), 1), as PyTorch's kernel: a NaN difference makes the count NaN
            return xp.minimum(xp.ceil(diff), 1).sum(-1)
        if p == math.inf:
            return diff.max(-1) if diff.shape[-1] else diff.sum(-1)
        if p == 1:
            return diff.sum(-1)
        if p == 2:
            return xp.sqrt((diff * diff).sum(-1))
        return (diff**p).sum(-1) ** (1 / p)

    formula = "grad_x1 = sum_j grad_ij * d dist_ij / d x1_i; grad_x2 = -sum_i grad_ij * d dist_ij / d x1_i"
    @staticmethod
    def vjp(ctx, grad):
        x1, x2, result = ctx.saved_tensors
        weights = _cdist_weights(x1, x2, result, ctx.p)
        weighted = grad.unsqueeze(-1) * weights
        need_1, need_2 = ctx.needs_input_grad
        return (weighted.sum(-2) if need_1 else None), (-weighted.sum(-3) if need_2 else None)

    @staticmethod
    def jvp(ctx, x1_t, x2_t):
        x1, x2, result = ctx.saved_tensors
        return (_cdist_weights(x1, x2, result, ctx.p) * (x1_t.unsqueeze(-2) - x2_t.unsqueeze(-3))).sum(-1)


def _cdist_weights(x1, x2, result, p):
    """d result[i, j] / d x1[i, k] for each k, as PyTorch's _cdist_backward (0 where the distance is 0)."""
    from ndgrad.ops.comparison import where

    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = result.unsqueeze(-1)
    if p == 0:
        return zeros_like_grad(diff)  # not diff * 0, which is NaN where diff is infinite
    if p == 1:
        return nan_keeping_sign(diff)
    if p == math.inf:
        return where(diff.abs() == dist, diff.sign(), 0.0)
    safe = where(dist == 0, 1.0, dist)
    if p == 2:
        return where(dist == 0, 0.0, diff / safe)
    return where(dist == 0, 0.0, diff.sign() * diff.abs() ** (p - 1) / safe ** (p - 1))


# NOTE: no ``name``: the op table calls ops by their torch name, and torch's is private (torch._euclidean_dist);
# tests/ops/test_linalg.py checks it through cdist against torch.
class EuclideanDist(Op):
    """The p = 2 distances of cdist in PyTorch's matrix-product form, |x1|^2 + |x2|^2 - 2 x1 x2^T, clamped at 0
    before the square root: what cdist runs for many rows or compute_mode='use_mm_for_euclid_dist'."""

    family = MATMUL
    saves = ("x1", "x2", "result")

    @staticmethod
    def forward(xp, x1, x2):
        x1_norm, x2_norm = (x1 * x1).sum(-1, keepdims=True), (x2 * x2).sum(-1, keepdims=True)
        x1_ = xp.concatenate([-2 * x1, x1_norm, xp.ones_like(x1_norm)], -1)
        x2_ = xp.concatenate([x2, xp.ones_like(x2_norm), x2_norm], -1)
        return xp.sqrt(xp.maximum(x1_ @ xp.swapaxes(x2_, -1, -2), 0))

    formula = "grad_x1 = x1 * sum_j(grad / result) - (grad / result) @ x2; grad_x2 likewise, transposed"
    @staticmethod
    def vjp(ctx, grad):
        from ndgrad.ops.comparison import where

        x1, x2, result = ctx.saved_tensors
        ratio = where(result == 0, 0.0, grad / result)  # a subgradient of 0 where the distance is 0, as PyTorch
        return x1 * ratio.sum(-1, keepdim=True) - ratio @ x2, x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT @ x1

    @staticmethod
    def jvp(ctx, x1_t, x2_t):
        from ndgrad.ops.comparison import where

        x1, x2, result = ctx.saved_tensors
        inner = ((x1 * x1_t).sum(-1).unsqueeze(-1) + (x2 * x2_t).sum(-1).unsqueeze(-2) - x1 @ x2_t.mT
                 - x1_t @ x2.mT)
        return where(result == 0, 0.0, inner / result)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise p-norm distances between the rows of x1 and those of x2 (see torch.cdist, whose Python this mirrors:
    it passes compute_mode to the op as a number)."""
    if AUTOCAST.active:
        x1, x2 = autocast_inputs("cdist", x1, x2)
    if compute_mode == "use_mm_for_euclid_dist_if_necessary":
        return _cdist(x1, x2, p, None)
    if compute_mode == "use_mm_for_euclid_dist":
        return _cdist(x1, x2, p, 1)
    if compute_mode == "donot_use_mm_for_euclid_dist":
        return _cdist(x1, x2, p, 2)
    raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


@parses("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None)")
def _cdist(x1, x2, p, compute_mode):
    """PyTorch's cdist op: for p = 2 the matrix-product form runs where PyTorch runs it (more than 25 rows, or
    compute_mode 1), with that form's checks; else the direct one, with the kernel's."""
    _check(x1.ndim >= 2, f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    _check(x2.ndim >= 2, f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    _check(x1.shape[-1] == x2.shape[-1], f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
           f"X2: {x2.shape[-1]}")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    mode = compute_mode or 0
    if p == 2 and (mode == 1 or mode == 0 and max(r1, r2) > 25) and x1.numel() and x2.numel():
        _check(x1.dtype is x2.dtype, f"expected m1 and m2 to have the same dtype, but got: {x1.dtype.cpp_name} != "
               f"{x2.dtype.cpp_name}")
        batch = broadcast_shape(x1.shape[:-2], x2.shape[:-2])
        if math.prod(batch) != 1:  # one batch dimension, as PyTorch flattens it
            x1 = x1.expand(*batch, r1, x1.shape[-1]).reshape(-1, r1, x1.shape[-1])
            x2 = x2.expand(*batch, r2, x2.shape[-1]).reshape(-1, r2, x2.shape[-1])
        return EuclideanDist.apply(x1, x2).view(*batch, r1, r2)
    _check(x1.dtype.is_floating_point, f"cdist only supports floating-point dtypes, X1 got: {x1.dtype.title}")
    _check(x2.dtype.is_floating_point, f"cdist only supports floating-point dtypes, X2 got: {x2.dtype.title}")
    _check(p >= 0, "cdist only supports non-negative p values")
    _check(0 <= mode <= 2, f"possible modes: 0, 1, 2, but was: {mode}")
    broadcast_shape(x1.shape[:-2], x2.shape[:-2])
    if x1.numel() and x2.numel():  # the kernel runs on elements only
        check_kernel("cdist", x1)
        _check(x1.dtype is x2.dtype, f"expected scalar type {x1.dtype.title} but found {x2.dtype.title}")
    return Cdist.apply(x1, x2 if x2.dtype is x1.dtype else x2.to(x1.dtype), p=float(p))  # no elements: x1's dtype


def _check_addmm_dtypes(input, mat1, mat2):
    """addmm's dtype checks, which addbmm runs too (batch1 for mat1, batch2 for mat2)."""
    _check(input.dtype is mat2.dtype, f"self and mat2 must have the same dtype, but got {input.dtype.title} and "
           f"{mat2.dtype.title}")
    _check(mat1.dtype is mat2.dtype, f"mat1 and mat2 must have the same dtype, but got {mat1.dtype.title} and "
           f"{mat2.dtype.title}")


def _size(tensor, dim):
    """tensor.size(dim), with PyTorch's IndexError for a dim it lacks (the checks read sizes before dims)."""
    return tensor.shape[wrap_dim(dim, tensor.ndim)]


@parses("trace(Tensor input)")
def trace(input):
    """Sum of the main diagonal of a matrix (see torch.trace)."""
    if AUTOCAST.active:
        (input,) = autocast_inputs("trace", input)
    _check(input.ndim == 2, "trace: expected a matrix, but got tensor with dim " + str(input.ndim))
    no_bool_kernel("trace", input)
    return Trace.apply(input)


def _check_addmm(input, mat1, mat2, inplace=False):
    _check(mat1.ndim == 2, "mat1 must be a matrix, got " + f"{mat1.ndim}-D tensor")
    _check(mat2.ndim == 2, "mat2 must be a matrix, got " + f"{mat2.ndim}-D tensor")
    _check_addmm_dtypes(input, mat1, mat2)
    _check(mat1.shape[1] == mat2.shape[0], f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    expanded_shape(input, (mat1.shape[0], mat2.shape[1]))
    if inplace:
        _check_written_shape(input, (mat1.shape[0], mat2.shape[1]))
    no_bool_kernel("addmm_impl_cpu_", input)


def _check_written_shape(input, shape):
    """An in-place product writes a result of its own shape: PyTorch's refusal of another shape of self."""
    _check(tuple(input.shape) == tuple(shape), f"Bad in-place call: input tensor size {list(input.shape)} and output "
           f"tensor size {list(shape)} should match")


@parses("addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)",
        "addmm(Tensor input, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1, "
        "Tensor out=None)",
        "addmm(Scalar beta, Tensor input, Scalar alpha, Tensor mat1, Tensor mat2, *, Tensor out=None)|deprecated",
        "addmm(Scalar beta, Tensor input, Tensor mat1, Tensor mat2, *, Tensor out=None)|deprecated")
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) (see torch.addmm)."""
    if AUTOCAST.active:
        input, mat1, mat2 = autocast_inputs("addmm", input, mat1, mat2)
    _check_addmm(input, mat1, mat2)
    return Addmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def _check_addmv(input, mat, vec):
    _check(mat.ndim == 2 and vec.ndim == 1 and input.ndim <= 1,
           f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    _check(mat.shape[1] == vec.shape[0] and (input.ndim == 0 or input.shape[0] in (1, mat.shape[0])),
           f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat ({mat.shape[0]}x{mat.shape[1]}), "
           f"vec ({vec.shape[0]})")
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {input.dtype.title}, "
                           f"{mat.dtype.title}, and {vec.dtype.title}")
    no_bool_kernel("addmv_impl_cpu", input)


@parses("addmv(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)",
        "addmv(Scalar beta, Tensor input, Scalar alpha, Tensor mat, Tensor vec, *, Tensor out=None)|deprecated",
        "addmv(Scalar beta, Tensor input, Tensor mat, Tensor vec, *, Tensor out=None)|deprecated")
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec) (see torch.addmv)."""
    if AUTOCAST.active:
        input, mat, vec = autocast_inputs("addmv", input, mat, vec)
    _check_addmv(input, mat, vec)
    return Addmv.apply(input, mat, vec, beta=beta, alpha=alpha)


def _check_batches(batch1, batch2):
    _check(batch1.ndim == 3, "batch1 must be a 3D tensor")
    _check(batch2.ndim == 3, "batch2 must be a 3D tensor")
    _check(batch1.shape[0] == batch2.shape[0] and batch1.shape[2] == batch2.shape[1],
           f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, {batch1.shape[2]}] "
           f"but got: [{batch2.shape[0]}, {batch2.shape[1]}].")


def _check_baddbmm(input, batch1, batch2, inplace=False):
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    expanded_shape(input, shape)
    if inplace:
        _check_written_shape(input, shape)
    _check(input.dtype is batch1.dtype, f"Input dtypes must be the same, got: input {input.dtype.cpp_name}, batch1: "
           f"{batch1.dtype.cpp_name}, batch2: {batch2.dtype.cpp_name}")
    _check_batches(batch1, batch2)
    _check(batch1.dtype is batch2.dtype, f"expected scalar type {batch1.dtype.title} but found {batch2.dtype.title}")
    no_bool_kernel("baddbmm", input)


@parses("baddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)",
        "baddbmm(Tensor input, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, "
        "Scalar alpha=1, Tensor out=None)",
        "baddbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated",
        "baddbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated")
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2) (see torch.baddbmm)."""
    if AUTOCAST.active:
        input, batch1, batch2 = autocast_inputs("baddbmm", input, batch1, batch2)
    _check_baddbmm(input, batch1, batch2)
    return Baddbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def _check_addbmm(input, batch1, batch2):
    expanded_shape(input, (_size(batch1, 1), _size(batch2, 2)))
    _check(batch1.ndim == 3, "batch1 must be a 3D tensor")
    _check(batch2.ndim == 3, "batch2 must be a 3D tensor")
    _check(batch1.shape[0] == batch2.shape[0], f"batch1 and batch2 must have same number of batches, got "
           f"{batch1.shape[0]} and {batch2.shape[0]}")
    _check(batch1.shape[2] == batch2.shape[1], f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    _check_addmm_dtypes(input, batch1, batch2)  # PyTorch adds each batch's product with addmm
    no_bool_kernel("addmm_impl_cpu_", input)


@parses("addbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)",
        "addbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated",
        "addbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated")
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum of batch1[i] @ batch2[i] (see torch.addbmm)."""
    if AUTOCAST.active:
        input, batch1, batch2 = autocast_inputs("addbmm", input, batch1, batch2)
    _check_addbmm(input, batch1, batch2)
    return Addbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def _cross(input, other, dim):
    """linalg.cross's checks, in PyTorch's order: dims, lengths along ``dim`` (named as given), broadcasting,
    dtypes, the kernel's."""
    _check(input.ndim == other.ndim, "linalg.cross: inputs must have the same number of dimensions.")
    lengths = _size(input, dim), _size(other, dim)
    _check(lengths == (3, 3), f"linalg.cross: inputs dimension {dim} must have length 3. Got {lengths[0]} and "
           f"{lengths[1]}")
    broadcast_shape(input.shape, other.shape)
    _check(input.dtype is other.dtype, f"expected scalar type {input.dtype.title} but found {other.dtype.title}")
    no_bool_kernel("cross", input)
    return LinalgCross.apply(input, other, dim=wrap_dim(dim, input.ndim))


@parses("cross(Tensor input, Tensor other, int? dim=None, *, Tensor out=None)")
def cross(input, other, dim=None):
    """Cross product of 3-vectors along ``dim`` (default: the first dim of size 3) (see torch.cross)."""
    if dim is None:
        warn("Using ndgrad.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
             "explicitly or simply use ndgrad.linalg.cross.\nThe default value of dim will change to agree with "
             "that of linalg.cross in a future release.")
        dim = next((d for d, n in enumerate(input.shape) if n == 3), None)
        _check(dim is not None, "no dimension of size 3 in input")
    return _cross(input, other, dim)


@parses("linalg_cross(Tensor input, Tensor other, *, int dim=-1, Tensor out=None)")
def linalg_cross(input, other, *, dim=-1):
    """Cross product of 3-vectors along ``dim`` (see torch.linalg.cross)."""
    return _cross(input, other, dim)


# ---- composites -----------------------------------------------------------------------------------------------
@parses("outer(Tensor input, Tensor vec2, *, Tensor out=None)")
def outer(input, vec2):
    """Outer product of two vectors (see torch.outer)."""
    _check(input.ndim == 1 and vec2.ndim == 1, "outer: Expected 1-D argument self, but got "
           f"{input.ndim}-D" if input.ndim != 1 else f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return reshape(input, (-1, 1)) * vec2


@parses("ger(Tensor input, Tensor vec2, *, Tensor out=None)")
def ger(input, vec2):
    """Alias of outer (see torch.ger)."""
    return outer(input, vec2)


def tensordot(a, b, dims=2, out=None):
    """Contract the last ``dims`` dims of a with the first of b, or the dims of a (list) with those of b (see
    torch.tensordot, whose Python this mirrors: it turns ``dims`` into two lists for the op)."""
    from ndgrad._tensor import Tensor

    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    dims_a, dims_b = [], []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}")
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            count = int(dims.item())
            if count < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-count, 0)), list(range(count))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    if out is None:
        return _tensordot(a, b, dims_a, dims_b)
    return _tensordot(a, b, dims_a, dims_b, out=out)


@parses("tensordot(Tensor input, Tensor other, int[] dims_self, int[] dims_other, *, Tensor out=None)")
def _tensordot(input, other, dims_self, dims_other):
    """PyTorch's tensordot op: a contracted dim of size 1 on one side is summed away on the other (it broadcasts);
    the rest is one matrix product (a dot product when no dim is left)."""
    _check(len(dims_self) == len(dims_other), "both dimension lists should have same length")
    _check(input.dtype is other.dtype, "both inputs should have same dtype")
    left, right, size = input, other, 1
    for dim_a, dim_b in zip(dims_self, dims_other):
        size_a, size_b = _size(input, dim_a), _size(other, dim_b)
        if size_b == 1:
            left = left.sum(dim_a, keepdim=True, dtype=left.dtype)
        elif size_a == 1:
            right = right.sum(dim_b, keepdim=True, dtype=right.dtype)
        else:
            _check(size_a == size_b, f"contracted dimensions need to match, but first has size {size_a} in dim "
                   f"{dim_a} and second has size {size_b} in dim {dim_b}")
            size *= size_a
    normalize_dims(dims_self, input.ndim), normalize_dims(dims_other, other.ndim)  # a dim given twice is refused
    contracted_a = [wrap_dim(d, input.ndim) for d in dims_self]  # in the given order, which pairs them
    contracted_b = [wrap_dim(d, other.ndim) for d in dims_other]
    free_a = [d for d in range(input.ndim) if d not in contracted_a]
    free_b = [d for d in range(other.ndim) if d not in contracted_b]
    out_shape = tuple(input.shape[d] for d in free_a) + tuple(other.shape[d] for d in free_b)
    left = reshape(permute(left, free_a + contracted_a), (-1, size) if free_a else (size,))
    right = reshape(permute(right, contracted_b + free_b), (size, -1) if free_b else (size,))
    if not free_a and not free_b:
        return reshape(dot(left, right), out_shape)
    if not free_a:
        left = left.unsqueeze(0)
    if not free_b:
        right = right.unsqueeze(1)
    return reshape(mm(left, right), out_shape)


@parses("inner(Tensor input, Tensor other, *, Tensor out=None)")
def inner(input, other):
    """Sum of products over the last dims of input and other (see torch.inner)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    _check(input.shape[-1] == other.shape[-1], f"inner() the last dimension must match on both input tensors but "
           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@parses("kron(Tensor input, Tensor other, *, Tensor out=None)")
def kron(input, other):
    """Kronecker product (see torch.kron)."""
    ndim = max(input.ndim, other.ndim)
    a = reshape(input, (1,) * (ndim - input.ndim) + tuple(input.shape))
    b = reshape(other, (1,) * (ndim - other.ndim) + tuple(other.shape))
    # a[..., i, None, ...] * b[None, ..., j]: interleave the dims so each pair folds into one.
    a_shape = tuple(x for n in a.shape for x in (n, 1))
    b_shape = tuple(x for n in b.shape for x in (1, n))
    product = UnsafeView.apply(a, shape=a_shape) * UnsafeView.apply(b, shape=b_shape)
    return UnsafeView.apply(product, shape=tuple(m * n for m, n in zip(a.shape, b.shape)))


@parses("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1, Tensor out=None)")
def vecdot(x, y, *, dim=-1):
    """Sum of conj(x) * y over ``dim`` (see torch.linalg.vecdot)."""
    if AUTOCAST.active:
        x, y = autocast_inputs("vecdot", x, y)
    check_floating("linalg.vecdot", x)
    _check(x.dtype is y.dtype, f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
           f"{x.dtype.title} and y of type {y.dtype.title} instead")
    return (x.conj() * y).sum(dim)


@parses("vdot(Tensor input, Tensor other, *, Tensor out=None)")
def vdot(input, other):
    """The inner product of two 1-D tensors, conjugating the first (see torch.vdot)."""
    from ndgrad.ops.linalg import dot  # the same checks, in the same words

    _check(input.ndim == 1 and other.ndim == 1,
           f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype or input.shape != other.shape:
        dot(input, other)  # raises PyTorch's message for the mismatch
    no_bool_kernel("dot", input)
    return Vdot.apply(input, other)


@parses("linalg_multi_dot(Tensor[] tensors, *, Tensor out=None)")
def multi_dot(tensors):
    """The product of a chain of matrices (the first and last may be vectors) (see torch.linalg.multi_dot)."""
    n = len(tensors)
    _check(n >= 2, f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    _check(first.ndim in (1, 2), f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    _check(last.ndim in (1, 2), f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        _check(t.ndim == 2, f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        _check(t.dtype is first.dtype, f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
               f"{first.dtype.cpp_name} and tensor {i} {t.dtype.cpp_name}")
        before = tensors[i - 1]
        _check(before.shape[-1] == t.shape[0], f"multi_dot(): tensors {i - 1} and {i} with shapes "
               f"{list(before.shape)} and {list(t.shape)} cannot be multiplied")
    matrices = [first.unsqueeze(0) if first.ndim == 1 else first, *tensors[1:-1],
                last.unsqueeze(1) if last.ndim == 1 else last]
    result = matrices[-1]
    for matrix in reversed(matrices[:-1]):
        result = mm(matrix, result)
    shape = tuple(result.shape[i] for i, t in ((0, first), (1, last)) if t.ndim == 2)
    return reshape(result, shape)


@parses("matrix_power(Tensor input, int n, *, Tensor out=None)")
def matrix_power(input, n):
    """The matrix ``input`` to the integer power n >= 0 (see torch.matrix_power)."""
    check_square("linalg.matrix_power", input, floating=False)
    if n < 0:
        from ndgrad.linalg import inv  # the linalg package imports this module

        input, n = inv(input), -n
        if n == 1:
            return input
    if n == 0:
        from ndgrad._creation import eye

        # As PyTorch: a clone overwritten with the identity (CopyBackwards: no gradient reaches input).
        return input.clone().copy_(eye(input.shape[-1], dtype=input.dtype, device=input.device))
    if n == 1:
        return input.clone()
    from ndgrad.ops.linalg import matmul

    result, power = None, input
    while n:  # square-and-multiply, as PyTorch
        if n % 2:
            result = power if result is None else matmul(result, power)
        n //= 2
        if n:
            power = matmul(power, power)
    return result


def chain_matmul(*matrices, out=None):
    """The product of a chain of matrices (see torch.chain_matmul, deprecated as there for linalg.multi_dot)."""
    return _chain_matmul(matrices) if out is None else _chain_matmul(matrices, out=out)


@parses("chain_matmul(Tensor[] matrices, *, Tensor out=None)")
def _chain_matmul(matrices):
    warn("ndgrad.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
         "ndgrad.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
         "parameters.")
    for matrix in matrices:
        _check(matrix.ndim == 2, f"Tensor dimension is {matrix.ndim}, expected 2 instead.")
    _check(len(matrices) > 0, "chain_matmul(): Expected one or more matrices")
    return matrices[0].clone() if len(matrices) == 1 else multi_dot(matrices)


linalg_matrix_power = alias(matrix_power, "linalg_matrix_power(Tensor input, int n, *, Tensor out=None)")


class ProductsMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    outer = tensor_method(outer)
    vdot = tensor_method(vdot)
    @parses_method("ger(Tensor vec2)")
    def ger(self, vec2):
        return outer(self, vec2)
    inner = tensor_method(inner)
    kron = tensor_method(kron)
    def trace(self):
        return trace.__wrapped__(self)
    @parses_method("addmm(Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)",
                   "addmm(Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)|deprecated",
                   "addmm(Scalar beta, Tensor mat1, Tensor mat2)|deprecated")
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    addmv = tensor_method(addmv)
    addbmm = tensor_method(addbmm)
    @parses_method("baddbmm(Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)",
                   "baddbmm(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
                   "baddbmm(Scalar beta, Tensor batch1, Tensor batch2)|deprecated")
    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)
    @parses_method("addmm_(Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)",
                   "addmm_(Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)|deprecated",
                   "addmm_(Scalar beta, Tensor mat1, Tensor mat2)|deprecated")
    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        _check_addmm(self, mat1, mat2, inplace=True)
        return Addmm.apply_(self, mat1, mat2, beta=beta, alpha=alpha)
    @parses_method("addmv_(Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)",
                   "addmv_(Scalar beta, Scalar alpha, Tensor mat, Tensor vec)|deprecated",
                   "addmv_(Scalar beta, Tensor mat, Tensor vec)|deprecated")
    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        _check_addmv(self, mat, vec)
        return Addmv.apply_(self, mat, vec, beta=beta, alpha=alpha)
    @parses_method("addbmm_(Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)",
                   "addbmm_(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
                   "addbmm_(Scalar beta, Tensor batch1, Tensor batch2)|deprecated")
    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        _check_addbmm(self, batch1, batch2)
        return Addbmm.apply_(self, batch1, batch2, beta=beta, alpha=alpha)
    @parses_method("baddbmm_(Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)",
                   "baddbmm_(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
                   "baddbmm_(Scalar beta, Tensor batch1, Tensor batch2)|deprecated")
    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        _check_baddbmm(self, batch1, batch2, inplace=True)
        return Baddbmm.apply_(self, batch1, batch2, beta=beta, alpha=alpha)
    cross = tensor_method(cross)
    matrix_power = tensor_method(matrix_power)
