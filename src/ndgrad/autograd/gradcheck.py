"""gradcheck and gradgradcheck: compare the engine's Jacobians with central finite differences."""

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians disagree."""


def _differentiable(inputs):
    return [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]


def _outputs(func, inputs):
    from ndgrad._tensor import Tensor

    out = func(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def _numerical_jacobian(func, inputs, index, eps):
    """Column j: (f(x + eps e_j) - f(x - eps e_j)) / 2 eps, flattened over all outputs."""
    import numpy as np

    from ndgrad.autograd.grad_mode import no_grad

    data = inputs[index]._data  # perturbed in place, one element at a time in row-major order
    columns = []
    with no_grad():
        # NOTE: index the array itself: reshape(-1) of a transposed or strided input is a copy, not a view.
        for position in np.ndindex(data.shape):
            original = data[position].item()
            data[position] = original + eps
            plus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
            data[position] = original - eps
            minus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
            data[position] = original
            columns.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]))
    if not columns:  # an empty input: no columns, one row per output element
        return np.zeros((sum(o.numel() for o in _outputs(func, inputs)), 0))
    return np.stack(columns, axis=1)


def _analytical_jacobian(func, inputs, index):
    """Row r: the gradient of output element r, from one backward pass each."""
    import numpy as np

    from ndgrad._creation import zeros_like
    from ndgrad.autograd import grad

    outputs = [o for o in _outputs(func, inputs)]
    rows = []
    for k, out in enumerate(outputs):
        for r in range(out.numel()):
            seeds = [zeros_like(o) for o in outputs]
            seeds[k]._data.reshape(-1)[r] = 1
            used = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
            (g,) = grad([o for o, _ in used], [inputs[index]], [s for _, s in used], retain_graph=True,
                        allow_unused=True)
            rows.append(np.zeros(inputs[index].numel()) if g is None else g._data.astype(np.float64).ravel())
    return np.stack(rows) if rows else np.zeros((0, inputs[index].numel()))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, fast_mode=False, **_unused):
    """True if backward agrees with finite differences for every input that requires grad (see
    torch.autograd.gradcheck); use float64 inputs."""
    import numpy as np

    from ndgrad._tensor import Tensor

    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    for index in _differentiable(inputs):
        numerical = _numerical_jacobian(func, inputs, index, eps)
        analytical = _analytical_jacobian(func, inputs, index)
        if numerical.shape != analytical.shape or not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
            if not raise_exception:
                return False
            raise GradcheckError(
                f"Jacobian mismatch for output 0 with respect to input {index},\n"
                f"numerical:{numerical}\nanalytical:{analytical}\n"
            )
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
                  **_unused):
    """gradcheck of the map (inputs, v) -> J^T v, i.e. of second derivatives (see torch.autograd.gradgradcheck)."""
    from ndgrad._creation import randn_like
    from ndgrad._tensor import Tensor
    from ndgrad.autograd import grad
    from ndgrad.autograd.grad_mode import enable_grad

    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = [randn_like(o).requires_grad_() for o in outputs if o.requires_grad]
    differentiable = [inputs[i] for i in _differentiable(inputs)]

    def first_derivatives(*args):
        xs, vs = args[: len(inputs)], args[len(inputs):]
        # NOTE: gradcheck's finite differences call this under no_grad, and J^T v needs a graph all the same.
        with enable_grad():
            outs = [o for o in _outputs(func, xs) if o.requires_grad]
            wrt = [xs[i] for i in _differentiable(xs)]
            grads = grad(outs, wrt, vs, create_graph=True, allow_unused=True)
            return tuple(g for g in grads if g is not None and g.requires_grad) or (differentiable[0].sum() * 0,)

    return gradcheck(first_derivatives, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
