"""Broadcasting helpers: sum_to, which undoes broadcasting, and broadcast_shape, with PyTorch's error for shapes that
clash."""

__all__ = ["sum_to", "sum_array_to", "sum_to_size", "broadcast_shape", "broadcast_error"]


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: the gradient of broadcasting an input of ``shape`` up to grad's shape."""
    from ndgrad.ops.reduction import sum as reduce_sum

    grad_shape = grad._data.shape
    lead, dims = _broadcast_dims(grad_shape, shape)
    if dims:
        grad = reduce_sum(grad, dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    if grad._data.shape != tuple(shape):
        raise _unsummable(grad_shape, shape)
    return grad


def sum_array_to(array, shape):
    """``sum_to`` on a raw array, for the engine's passes that build no graph: the same sums, no Tensors."""
    lead, dims = _broadcast_dims(array.shape, shape)
    if dims:
        array = array.sum(axis=dims, keepdims=True)
    if lead:
        array = array.reshape(shape)
    if array.shape != tuple(shape):
        raise _unsummable(array.shape, shape)
    return array


def _broadcast_dims(grad_shape, shape):
    """How many leading dims broadcasting added to ``shape``, and every dim it stretched (as grad_shape's dims)."""
    lead = len(grad_shape) - len(shape)
    if lead < 0:
        raise _unsummable(grad_shape, shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad_shape[lead + i] != 1
    )
    return lead, dims


def _unsummable(grad_shape, shape):
    return RuntimeError(f"size {list(grad_shape)} cannot be summed to size {list(shape)}")


def broadcast_shape(*shapes):
    """The shape ``shapes`` broadcast to, folded left to right as PyTorch's TensorIterator does, or its error naming
    the first dimension (from the right) where the shape so far ("tensor a") clashes with the next ("tensor b")."""
    result = ()
    for shape in shapes:
        ndim = max(len(result), len(shape))
        padded_result, padded = (1,) * (ndim - len(result)) + tuple(result), (1,) * (ndim - len(shape)) + tuple(shape)
        for dim in range(ndim - 1, -1, -1):
            a, b = padded_result[dim], padded[dim]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
                )
        result = tuple(b if a == 1 else a for a, b in zip(padded_result, padded))
    return result


def broadcast_error(*shapes):
    """broadcast_shape's error for ``shapes``, or None if they broadcast."""
    try:
        broadcast_shape(*shapes)
    except RuntimeError as error:
        return error
    return None


def sum_to_size(input, size):
    """Tensor.sum_to_size: sum ``input`` down to ``size``, which must expand to input's shape (see
    torch.Tensor.sum_to_size); input itself when it already has that shape."""
    shape = tuple(input.shape)
    expandable = len(size) <= len(shape) and all(
        want in (1, have) for want, have in zip(reversed(size), reversed(shape))
    )
    if not expandable:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not size:  # as PyTorch's sum_to: the whole sum (SumBackward0), even of a 0-d tensor
        from ndgrad.ops.reduction import sum as reduce_sum

        return reduce_sum(input)
    return sum_to(input, tuple(size))
