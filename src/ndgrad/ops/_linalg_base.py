"""What the linear-algebra op modules share: PyTorch's argument checks and failure reports, and two matrix helpers."""

from ndgrad._C import _LinAlgError
from ndgrad._dtype import promote_types


def check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


def check_matrix(name, A, floating=True, low_precision=True):
    """A batch of matrices, of a floating or complex dtype (``floating``: else the kernel's check refuses other
    dtypes), half precision too unless not ``low_precision``: PyTorch's checkIsMatrix, checkFloatingOrComplex."""
    check(A.ndim >= 2, f"{name}: The input tensor A must have at least 2 dimensions.")
    if floating:
        check_floating(name, A, low_precision)


def check_square(name, A, floating=True, low_precision=True):
    """check_matrix for square matrices (PyTorch's squareCheckInputs): the shape is checked before the dtype."""
    check_matrix(name, A, floating=False)
    check(A.shape[-1] == A.shape[-2],
          f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if floating:
        check_floating(name, A, low_precision)


def check_floating(name, A, low_precision=True):
    check(A.dtype.is_floating_point or A.dtype.is_complex,
          f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.title}")
    check(low_precision or A.dtype.itemsize > 2 or A.dtype.is_complex,
          f"{name}: Low precision dtypes not supported. Got {A.dtype.title}")


LAPACK_DTYPES = ("float32", "float64", "complex64", "complex128")


def check_kernel(kernel, A):
    """PyTorch's LAPACK kernels exist for float, double and their complex types only: its NotImplementedError for
    the others (half precision, and integers where no dtype check came first), where NumPy would fail."""
    if A.dtype.name not in LAPACK_DTYPES:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype.title}'")


def check_norm_order(name, ord):
    check(not isinstance(ord, complex), f"{name}: Expected a non-complex scalar as the order of norm.")


def check_norm_dtype(name, dtype, input_dtype):
    """PyTorch's checks of a norm's ``dtype`` against its input's."""
    if dtype is None:
        return
    check(dtype.is_floating_point or dtype.is_complex,
          f"{name}: dtype should be floating point or complex, but got {dtype.title}")
    kind = "complex" if input_dtype.is_complex else "real"
    check(dtype.is_complex == input_dtype.is_complex, f"{name}: dtype should be {kind} for {kind} inputs, but got "
          f"{dtype.title}")
    check(promote_types(input_dtype, dtype) is dtype, f"{name}: the dtype of the input ({input_dtype.title}) should be "
          f"convertible without narrowing to the specified dtype ({dtype.title})")


def scalar_text(value):
    """A number as PyTorch's messages print a Scalar: C++'s default formatting of a double (1, 2.5, inf, 1e+20)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


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
    from ndgrad._creation import eye  # creation imports the Tensor, which imports the ops

    return eye(x.shape[-1], dtype=x.dtype, device=x.device)


def trace(x):
    """The trace of each matrix in a batch."""
    return x.diagonal(0, -2, -1).sum(-1)
