"""ndgrad.backends.cuda: the matmul switches of cuBLAS and whether ndgrad can run on a GPU (see torch.backends.cuda).

ndgrad's GPU matmuls are CuPy's: the switches are kept and read back as torch keeps them (``allow_tf32`` and
``ndgrad.set_float32_matmul_precision`` are one setting), and CuPy is not told.
"""

from ndgrad import _device

__all__ = ["is_built", "matmul", "set_float32_matmul_precision", "get_float32_matmul_precision"]

_PRECISIONS = ("highest", "high", "medium")


def is_built():
    """Whether ndgrad can make cuda tensors: CuPy is installed (torch: whether it was built with CUDA)."""
    return _device.has_cuda_backend()


def _reduced_precision(name, value):
    """A reduced-precision switch as torch reads it: a bool, or a list or tuple whose first item is that bool."""
    if isinstance(value, (tuple, list)):
        if not value:
            raise TypeError(f"{name} expects at least one boolean argument")
        if type(value[0]) is not bool:
            raise TypeError(f"{name} expects a bool for allow_reduced_precision, but got {type(value[0])}")
        return value[0]
    if type(value) is not bool:
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
    return value


class cuBLASModule:  # noqa: N801 - torch's name
    """``ndgrad.backends.cuda.matmul``: attributes for cuBLAS's switches, and no others."""

    _NAMES = ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        state = {"precision": "highest", "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True}
        object.__setattr__(self, "_state", state)

    def __getattr__(self, name):
        if name == "allow_tf32":
            return self._state["precision"] != "highest"
        if name in self._NAMES:
            return self._state[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if type(value) is not bool:
                raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
            self._state["precision"] = "high" if value else "highest"
        elif name in self._NAMES:
            self._state[name] = _reduced_precision(name, value)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


def set_float32_matmul_precision(precision):
    """'highest', 'high' or 'medium' (see torch.set_float32_matmul_precision); ndgrad computes float32 matmuls
    in float32 whatever is set."""
    from ndgrad._warnings import warn

    if precision not in _PRECISIONS:
        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision call "
             "has no effect.", UserWarning)
        return
    matmul._state["precision"] = precision


def get_float32_matmul_precision():
    return matmul._state["precision"]
