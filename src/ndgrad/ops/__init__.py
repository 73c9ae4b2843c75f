"""ndgrad's ops: the families of primitives, and the functions users call (ndgrad.add, ndgrad.sum, ...)."""

import warnings

from ndgrad.ops import linalg, pointwise, reduction, shape
from ndgrad.ops._op import OP_TABLE, Op
from ndgrad.ops.linalg import bmm, dot, matmul, mm, mv
from ndgrad.ops.pointwise import (
    abs,
    add,
    cos,
    div,
    eq,
    exp,
    floor_divide,
    ge,
    gt,
    le,
    log,
    logical_and,
    lt,
    mul,
    ne,
    neg,
    pow,
    reciprocal,
    relu,
    remainder,
    rsub,
    sigmoid,
    sign,
    sin,
    sqrt,
    sub,
    tanh,
    where,
)
from ndgrad.ops.reduction import max, mean, min, norm, sum
from ndgrad.ops.shape import (
    clone,
    expand,
    flatten,
    getitem,
    permute,
    reshape,
    squeeze,
    t,
    transpose,
    unsqueeze,
    view,
)

__all__ = [
    "OP_TABLE", "Op", "linalg", "pointwise", "reduction", "shape",
    "abs", "add", "bmm", "clone", "cos", "div", "dot", "eq", "exp", "expand", "flatten", "floor_divide", "ge",
    "getitem", "gt", "le", "log", "logical_and", "lt", "matmul", "max", "mean", "min", "mm", "mul", "mv", "ne",
    "neg", "norm", "permute", "pow", "reciprocal", "relu", "remainder", "reshape", "rsub", "sigmoid", "sign",
    "sin", "sqrt", "squeeze", "sub", "sum", "t", "tanh", "transpose", "unsqueeze", "view", "where",
]

# NOTE: PyTorch computes inf and nan silently where NumPy also warns (log(0), 1/0). The filter matches the
# module a warning is attributed to, so it silences NumPy's floating-point warnings raised by ndgrad's op code
# and nowhere else in the user's program.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ndgrad\.ops\.")
