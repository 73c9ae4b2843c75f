"""Sample builders for the ops of ndgrad.ops.matrix_functions (the primitive ones; the composites are checked in
tests/ops/test_errors_decompositions.py)."""

from ndgrad.ops import matrix_functions as f

from ..samples import C, Call, T
from .decompositions import square_cases


def matrix_exp_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.matrix_exp($)", lambda lib, a: lib.linalg.matrix_exp(a)),
        Call("matrix_exp(2 $)", lambda lib, a: lib.matrix_exp(2 * a)),
        Call("$.matrix_exp()", lambda lib, a: a.matrix_exp()),
    ], shapes=(((3, 3), C), ((2, 2, 2), C), ((3, 3), T), ((1, 1), C)))


BUILDERS = {f.LinalgMatrixExp: matrix_exp_cases}
