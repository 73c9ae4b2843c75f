"""Tensors assembled from the elements of others: block_diag (a primitive, as PyTorch records BlockDiagBackward0),
and the composites diagflat (a diag_embed), cartesian_prod and combinations (stacks of selected elements)."""

import itertools

from ndgrad._argument_parser import parses, tensor_method
from ndgrad._dtype import int64
from ndgrad.ops._op import JOINING, Op
from ndgrad.ops.grids import _meshgrid
from ndgrad.ops.joining import diag_embed, stack

__all__ = ["block_diag", "diagflat", "cartesian_prod", "combinations"]


class BlockDiag(Op):
    """torch.block_diag: the tensors (as matrices: 0-d is 1 x 1, 1-d one row) on the diagonal of one matrix."""

    name, family = "block_diag", JOINING

    @staticmethod
    def forward(xp, *arrays, shapes):
        blocks = [a.reshape(_matrix_shape(a.shape)) for a in arrays]
        rows, columns = (sum(sizes) for sizes in zip(*(b.shape for b in blocks)))
        result = xp.zeros((rows, columns), dtype=xp.result_type(*arrays))
        row = column = 0
        for block in blocks:
            height, width = block.shape
            result[row:row + height, column:column + width] = block
            row, column = row + height, column + width
        return result

    formula = "grad_tensors[i] = the block of grad where tensors[i] sits, in its shape"
    @staticmethod
    def vjp(ctx, grad):
        grads, row, column = [], 0, 0
        for shape, needed in zip(ctx.shapes, ctx.needs_input_grad):
            height, width = _matrix_shape(shape)
            grads.append(grad[row:row + height, column:column + width].reshape(shape) if needed else None)
            row, column = row + height, column + width
        return tuple(grads)

    @staticmethod
    def jvp(ctx, *tangents):
        return BlockDiag.apply(*tangents, shapes=ctx.shapes)


def _matrix_shape(shape):
    """How block_diag places a tensor of this shape: 0-d as 1 x 1, 1-d as one row."""
    return (1,) * (2 - len(shape)) + tuple(shape)


def _checked_vectors(tensors):
    for tensor in tensors:
        if tensor.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(tensor.shape)}")


# ---- the functions users call ----------------------------------------------------------------------------------------
def block_diag(*tensors):
    """The tensors on the diagonal of a block-diagonal matrix, zeros elsewhere (see torch.block_diag)."""
    return _block_diag(tensors)


@parses("block_diag(Tensor[] tensors)")
def _block_diag(tensors):
    for number, tensor in enumerate(tensors):
        if tensor.ndim > 2:
            raise RuntimeError(f"ndgrad.block_diag: Input tensors must have 2 or fewer dimensions. Input {number} has "
                               f"{tensor.ndim} dimensions")
    if not tensors:  # PyTorch's result for no blocks: one empty row
        from ndgrad._creation import zeros  # creation imports the Tensor, which imports the ops

        return zeros(1, 0)
    return BlockDiag.apply(*tensors, shapes=tuple(tuple(t.shape) for t in tensors))


@parses("diagflat(Tensor input, int offset=0)")
def diagflat(input, offset=0):
    """A matrix with input's elements, flattened, on its ``offset`` diagonal (see torch.diagflat)."""
    return diag_embed(input.reshape(-1), offset)


def cartesian_prod(*tensors):
    """All tuples of one element from each 1-d tensor, as rows, in lexicographic order (see torch.cartesian_prod)."""
    return _cartesian_prod(tensors)


@parses("cartesian_prod(Tensor[] tensors)")
def _cartesian_prod(tensors):
    _checked_vectors(tensors)
    if len(tensors) == 1:  # PyTorch returns the tensor itself
        return tensors[0]
    return stack([grid.reshape(-1) for grid in _meshgrid(tensors, indexing="ij")], 1)


@parses("combinations(Tensor input, int r=2, bool with_replacement=False)")
def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-d tensor's elements, as rows, in lexicographic order of their positions
    (see torch.combinations): columns of selected elements, stacked, so differentiable as PyTorch's."""
    from ndgrad._creation import empty, tensor  # creation imports the Tensor, which imports the ops

    _checked_vectors((input,))
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype, device=input.device)
    choose = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    positions = tensor(list(choose(range(input.shape[0]), r)), dtype=int64, device=input.device).reshape(-1, r)
    return stack([input.index_select(0, positions[:, column]) for column in range(r)], 1)


class AssemblingMethods:
    """The Tensor methods of this module's functions (Tensor inherits them): torch has diagflat only."""

    __slots__ = ()

    diagflat = tensor_method(diagflat)
