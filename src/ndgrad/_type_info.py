"""finfo and iinfo: the limits of a floating-point or integer dtype, as torch.finfo and torch.iinfo give them."""

import numpy as np

from ndgrad._argument_parser import parses
from ndgrad._dtype import get_default_dtype

__all__ = ["finfo", "iinfo"]


class finfo:
    """Machine limits of a floating-point dtype (a complex dtype's are its real part's); ``finfo()`` describes the
    default dtype. Equal dtypes give equal finfos."""

    __module__ = "ndgrad"

    def __init__(self, *args, **kwargs):
        dtype = _finfo_type(*args, **kwargs)
        if not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("ndgrad.finfo() requires a floating point input type. Use ndgrad.iinfo to handle "
                            "'ndgrad.finfo'")
        limits = np.finfo(dtype.to_real().numpy if dtype.is_complex else dtype.numpy)
        self.bits, self.dtype = limits.bits, limits.dtype.name
        self.eps, self.max, self.min = float(limits.eps), float(limits.max), float(limits.min)
        self.tiny = self.smallest_normal = float(limits.smallest_normal)
        self.resolution = 10.0 ** -limits.precision  # float16's, exactly 0.001, not float16(0.001)

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        return f"finfo({', '.join(f'{name}={getattr(self, name):g}' for name in fields)}, dtype={self.dtype})"


class iinfo:
    """Machine limits of an integer dtype (not bool, which torch.iinfo refuses too)."""

    __module__ = "ndgrad"

    def __init__(self, *args, **kwargs):
        type = _iinfo_type(*args, **kwargs)
        if type.is_floating_point or type.is_complex:
            raise TypeError("ndgrad.iinfo() requires an integer input type. Use ndgrad.finfo to handle "
                            "'ndgrad.iinfo'")
        if type.numpy.kind == "b":
            raise TypeError(f"{type} is not supported by ndgrad.iinfo")
        limits = np.iinfo(type.numpy)
        self.bits, self.dtype, self.min, self.max = limits.bits, limits.dtype.name, int(limits.min), int(limits.max)

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


# The constructors' arguments, checked as torch's parser checks them (its TypeError for anything but a dtype)
@parses("finfo(ScalarType type)", "finfo()")
def _finfo_type(type=None):
    return get_default_dtype() if type is None else type


@parses("iinfo(ScalarType type)")
def _iinfo_type(type):
    return type
