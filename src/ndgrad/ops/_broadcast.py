"""Broadcasting helpers: sum_to, which undoes broadcasting, and broadcast_shape, with PyTorch's error for shapes that
clash."""

__all__ = ["sum_to", "broadcast_shape", "broadcast_error"]


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: the gradient of broadcasting an input of ``shape`` up to grad's shape."""
    from ndgrad.ops.reduction import sum as reduce_sum

    lead = grad.ndim - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {list(grad.shape)} cannot be summed to size {list(shape)}")
    grad_shape = grad._data.shape
    dims = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad_shape[lead + i] != 1
    )
    if dims:
        grad = reduce_sum(grad, dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    if grad._data.shape != tuple(shape):
        raise RuntimeError(f"size {list(grad_shape)} cannot be summed to size {list(shape)}")
    return grad


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
