"""Sample builders for the ops of ndgrad.ops.linalg that need their own arguments or kink cases."""

from functools import partial

from ndgrad.ops import linalg

from ..samples import C, S, T, matmul_cases

BUILDERS = {
    linalg.Dot: partial(matmul_cases, pairs=[
        (((3,), C), ((3,), C)), (((1,), C), ((1,), C)), (((4,), S), ((4,), C)),
    ]),
    linalg.Mv: partial(matmul_cases, pairs=[
        (((3, 4), C), ((4,), C)), (((1, 1), C), ((1,), C)), (((3, 4), T), ((4,), S)),
    ]),
    linalg.Mm: partial(matmul_cases, pairs=[
        (((3, 4), C), ((4, 2), C)), (((1, 1), C), ((1, 1), C)), (((3, 4), T), ((4, 2), S)),
        (((2, 3), S), ((3, 2), T)),
    ]),
    linalg.Bmm: partial(matmul_cases, pairs=[
        (((2, 3, 4), C), ((2, 4, 2), C)), (((1, 1, 1), C), ((1, 1, 1), C)), (((2, 3, 4), S), ((2, 4, 2), T)),
    ]),
}
