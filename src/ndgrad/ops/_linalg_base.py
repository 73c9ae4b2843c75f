"""What the linear-algebra op modules share: PyTorch's argument checks and failure reports, and two matrix helpers."""

from ndgrad._C import _LinAlgError


def check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


def check_matrix(name, A):
    """A batch of matrices of a floating dtype, as every linalg function requires."""
    check(A.ndim >= 2, f"{name}: The input tensor A must have at least 2 dimensions.")
    check(A.dtype.is_floating_point or A.dtype.is_complex,
          f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.title}")


def check_square(name, A):
    check_matrix(name, A)
    check(A.shape[-1] == A.shape[-2],
          f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")


def check_same_dtype(name, A, B, names=("A", "B")):
    check(A.dtype is B.dtype,
          f"{name}: Expected {names[0]} and {names[1]} to have the same dtype, but found {names[0]} of type "
          f"{A.dtype.title} and {names[1]} of type {B.dtype.title} instead")


def raise_for_info(name, info, batched, describe, error=_LinAlgError):
    """PyTorch's report of a failed factorization: ``info`` holds LAPACK's code per matrix (an array, 0 where it
    succeeded); the first failure raises ``describe(code)``, prefixed by its batch element if A is a batch."""
    failed = info.reshape(-1).nonzero()[0]
    if failed.size == 0:
        return
    first = int(failed[0])
    prefix = f"(Batch element {first}): " if batched else ""
    raise error(f"{name}: {prefix}{describe(int(info.reshape(-1)[first]))}")


def singular_inverse(code):
    return (f"The diagonal element {code} is zero, the inversion could not be completed because the input matrix "
            "is singular.")


def eye_like(x):
    """The identity matrix of x's last size, dtype and device."""
    from ndgrad import eye

    return eye(x.shape[-1], dtype=x.dtype, device=x.device)


def trace(x):
    """The trace of each matrix in a batch."""
    return x.diagonal(0, -2, -1).sum(-1)
