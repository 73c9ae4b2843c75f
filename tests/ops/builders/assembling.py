"""Sample builders for block_diag: blocks of every rank it takes (0-d, 1-d rows, matrices) and non-contiguous ones
(empty blocks, which gradcheck cannot perturb, are in tests/ops/test_assembling.py)."""

from ndgrad.ops import assembling as a

from ..samples import C, Call, Case, S, T, draw


def block_diag(op, rng):
    call = Call("block_diag($)", lambda lib, *tensors: lib.block_diag(*tensors))
    blocks = [
        [((2, 3), C), ((2, 2), C)],
        [((), C), ((3,), C), ((2, 2), T)],
        [((3, 4), S)],
        [((2,), C), ((1, 3), C)],
        [((2, 1), T), ((), C), ((3, 2), C), ((4,), C)],
    ]
    return [Case(op, tuple(draw(rng, shape, op.domain, layout) for shape, layout in case), call) for case in blocks]


BUILDERS = {a.BlockDiag: block_diag}
