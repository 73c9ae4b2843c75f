"""Sample builders for the ops of ndgrad.ops.lu: det, slogdet, lu_factor, lu, lu_solve. The singular samples check
PyTorch's conventions where the determinant vanishes (zero gradients of det, infinite ones of log|det|)."""

import numpy as np

from ndgrad.ops import lu as u

from ..samples import C, Call, Case, Input, T, draw
from .decompositions import shifted, square_cases

# exactly singular: LU meets an exact zero pivot (rank 2 of 3, and rank 1 of 2) on every CPU. torch factors the
# transpose (its rows are LAPACK's columns): in both orders every multiplier is a power of two and every pivot an
# integer, so the elimination is exact in any order, with or without fused multiply-adds. ([[1, 2, 3], [2, 4, 6],
# [1, 0, 1]] has multipliers of 1/3 in the transpose: with MKL's AVX-512 kernels its det was -6.7e-16, not 0.)
SINGULAR = [[[4.0, 2.0, 1.0], [4.0, 2.0, 1.0], [2.0, 0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]]


def singular_cases(op, call):
    return [Case(op, (Input(np.asarray(a)),), call, smooth=False) for a in SINGULAR]


def det_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.det($ + 5I)", lambda lib, a: lib.linalg.det(shifted(lib, a))),
        Call("det(-($ + 5I))", lambda lib, a: lib.det(-shifted(lib, a))),
        Call("($ + 5I).det()", lambda lib, a: shifted(lib, a).det()),
    ]) + singular_cases(op, Call("linalg.det($)", lambda lib, a: lib.linalg.det(a)))


def slogdet_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.slogdet($ + 5I)[::-1]", lambda lib, a: tuple(lib.linalg.slogdet(shifted(lib, a)))[::-1]),
        Call("slogdet(-($ + 5I))[::-1]", lambda lib, a: tuple(lib.slogdet(-shifted(lib, a)))[::-1]),
        Call("($ + 5I).slogdet()[1]", lambda lib, a: shifted(lib, a).slogdet()[1]),
    ]) + singular_cases(op, Call("linalg.slogdet($)[1]", lambda lib, a: lib.linalg.slogdet(a)[1]))


SHAPES = (((3, 3), T), ((2, 2, 2), C), ((4, 2), C), ((2, 3), C), ((1, 1), C))  # square, batched, tall, wide


def lu_factor_cases(op, rng):
    return square_cases(op, rng, [Call("linalg.lu_factor($)", lambda lib, a: lib.linalg.lu_factor(a))],
                        shapes=SHAPES) + [
        Case(op, (draw(rng, (3, 3)),), Call("linalg.lu_factor_ex($)", lambda lib, a: lib.linalg.lu_factor_ex(a))),
    ]


def lu_cases(op, rng):
    def lu(order):
        return Call(f"linalg.lu($) as {order}", lambda lib, a: tuple(
            dict(zip("PLU", lib.linalg.lu(a)))[name] for name in order))

    return square_cases(op, rng, [lu("LUP")], shapes=SHAPES) + [
        Case(op, (draw(rng, (3, 2)),), lu("ULP")), Case(op, (draw(rng, (2, 3)),), lu("ULP")),
    ]


def lu_solve_cases(op, rng):
    def lu_solve(left=True, adjoint=False):
        def call(lib, a, b):
            LU, pivots = lib.linalg.lu_factor(shifted(lib, a, 3.0))
            return lib.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint)
        return Call(f"linalg.lu_solve(*lu_factor($ + 3I), $, left={left}, adjoint={adjoint})", call)

    cases = [
        ((3, 3), (3, 2), lu_solve()), ((3, 3), (3, 1), lu_solve(adjoint=True)), ((3, 3), (2, 3), lu_solve(False)),
        ((2, 2, 2), (1, 2), lu_solve(False, True)), ((2, 2), (2, 2, 1), lu_solve()),
    ]
    return [Case(op, (draw(rng, a), draw(rng, b)), call) for a, b, call in cases]


BUILDERS = {
    u.LinalgDet: det_cases,
    u.LinalgSlogdet: slogdet_cases,
    u.LinalgLuFactorEx: lu_factor_cases,
    u.LinalgLu: lu_cases,
    u.LinalgLuSolve: lu_solve_cases,
}
