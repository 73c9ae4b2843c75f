"""vjp, jvp, jacobian, hessian, hvp and vhp of whole functions, as torch.autograd.functional.

Built on autograd.grad (jvp and hvp by the double-backward trick, as PyTorch's), and on forward_ad for
jacobian(strategy="forward-mode").
"""

from ndgrad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRICT_NOT_REQUIRING_GRAD = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed in "
    "a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
    "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
    "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that your function "
    "is twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear function "
    "for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. This "
    "is not allowed in strict mode. You should ensure that your function is thrice differentiable and that the hessian "
    "depends on the inputs.",
}

_STRICT_UNUSED = {  # a gradient that is None, by the stage of the computation that found it
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
    "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
    "This is not allowed in strict mode as it prevents from using the double backward trick to replace forward mode "
    "AD.",
}

_V_SCALAR_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element."
)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(*inputs)`` and the product of ``v`` with its Jacobian (see torch.autograd.functional.vjp)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _copies(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _copies(_as_tuple(v, "v", "vjp")[1], create_graph, need_graph=False)
            _check_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single Tensor with a single "
                "element."
            )
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    outputs, result = _finish(outputs, create_graph), _finish(result, create_graph)
    return _unpack(outputs, is_outputs_tuple), _unpack(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(*inputs)`` and the product of its Jacobian with ``v`` (see torch.autograd.functional.jvp)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _copies(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _copies(_as_tuple(v, "v", "jvp")[1], create_graph, need_graph=False)
            _check_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single Tensor with a "
                "single element."
            )
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # NOTE: the double-backward trick: J^T u is linear in u, so differentiating it with respect to u along v
        # gives J v. u's value never enters the result; zeros keep inf and nan out.
        cotangents = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, cotangents, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _grad(grad_inputs, cotangents, v, create_graph=create_graph)
        result = _zeros_for_none(grads, outputs, strict, create_graph, "back_trick")
    outputs, result = _finish(outputs, create_graph), _finish(result, create_graph)
    return _unpack(outputs, is_outputs_tuple), _unpack(result, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode", show=False):
    """The Jacobian of ``func`` at ``inputs``; nested tuples for several outputs and inputs (see
    torch.autograd.functional.jacobian).

    ``show=True`` (ndgrad's addition, for at most 100 outputs and 100 inputs) also prints J, one row per output
    element and one column per input element, and shows that ``y.backward(v)`` leaves vᵀJ in ``x.grad``.
    """
    if show:
        return _show_jacobian(func, inputs, lambda: jacobian(func, inputs, create_graph, strict, vectorize, strategy))
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs '
            'than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'ndgrad.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _copies(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "ndgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
                "Please either set `strict=False` or `vectorize=False`."
            )
        # NOTE: vectorize=True gives the same rows as PyTorch's batched vjp, computed one autograd.grad at a time:
        # our vjp rules are written for unbatched gradients.
        result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
    return _unpack(_finish(result, create_graph), (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function that returns one element (see torch.autograd.functional.hessian)."""
    from ndgrad._tensor import Tensor

    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_output(*args):
        out = func(*args)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(arg.requires_grad_(True) for arg in args)
        jac = jacobian(scalar_output, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(result, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(*inputs)`` and the product of ``v`` with its Hessian (see torch.autograd.functional.vhp)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _hessian_setup(func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back")
    return _unpack(_finish(outputs, create_graph), False), _unpack(_finish(result, create_graph), is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``func(*inputs)`` and the product of its Hessian with ``v`` (see torch.autograd.functional.hvp)."""
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _hessian_setup(func, inputs, v, create_graph, strict, "hvp")
        cotangents = tuple(_zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _grad(jac, inputs, cotangents, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)  # NOTE: PyTorch checks jac here, not double_back
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _grad(double_back, cotangents, v, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back_trick")
    return _unpack(_finish(outputs, create_graph), False), _unpack(_finish(result, create_graph), is_inputs_tuple)


def _hessian_setup(func, inputs, v, create_graph, strict, name):
    """What vhp and hvp share: checked copies of inputs and v, the single output, and its differentiable gradient."""
    from ndgrad._tensor import Tensor

    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _copies(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _copies(_as_tuple(v, "v", name)[1], create_graph, need_graph=False)
        _check_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(_V_SCALAR_INPUT)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, inputs, v, outputs, jac


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    """One row of the Jacobian per element of ``out``: a tuple with one Tensor of shape out.shape + x.shape per x."""
    from ndgrad._creation import zeros_like
    from ndgrad.ops import stack

    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for index in range(out.nelement()):
        grads = _grad((flat[index],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (row, grad, x) in enumerate(zip(rows, grads, inputs)):
            if grad is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input {j}. This is not allowed "
                        "in strict mode."
                    )
                grad = zeros_like(x)
            elif strict and create_graph and not grad.requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                    "strict mode when create_graph=True."
                )
            row.append(grad)
    return tuple(stack(row, dim=0).view(out.shape + x.shape) for row, x in zip(rows, inputs))


def _jacobian_forward(func, inputs, strict, vectorize):
    """strategy="forward-mode": one Jacobian column per input element, each the tangents of one forward pass with
    dual inputs (PyTorch batches these passes with vmap; we run them one by one, which gives the same columns)."""
    from ndgrad._creation import eye
    from ndgrad.autograd import forward_ad
    from ndgrad.ops import stack

    if strict:
        raise RuntimeError(
            'ndgrad.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(  # NOTE: PyTorch's message lacks the space in "isonly"
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`."
        )
    columns = None  # columns[i][j]: the columns of d output i / d input j, one per element of input j
    for j, x in enumerate(inputs):
        basis = eye(x.numel(), dtype=x.dtype)
        for k in range(x.numel()):
            with forward_ad.dual_level():
                duals = tuple(
                    forward_ad.make_dual(other, basis[k].view(x.shape) if index == j else _zeros_like(other))
                    for index, other in enumerate(inputs)
                )
                is_outputs_tuple, outputs = _as_tuple(func(*duals), "outputs", None)
                unpacked = [forward_ad.unpack_dual(out) for out in outputs]
            if columns is None:
                columns = [[[] for _ in inputs] for _ in outputs]
            for i, (primal, tangent) in enumerate(unpacked):
                columns[i][j].append(_zeros_like(primal) if tangent is None else tangent)
    # NOTE: lists, not tuples: PyTorch's forward-mode jacobian returns lists where both are tuples
    result = [
        [stack(column, dim=-1).reshape(out.shape + x.shape) for column, x in zip(row, inputs)]
        for row, out in zip(columns, outputs)
    ]
    return _unpack(result, (is_outputs_tuple, is_inputs_tuple))


def _zeros_like(tensor, requires_grad=False):
    from ndgrad._creation import zeros_like

    return zeros_like(tensor, requires_grad=requires_grad)


def _as_tuple(value, arg_name, fn_name):
    """(whether ``value`` was a tuple, ``value`` as a tuple), checking that it holds only Tensors."""
    from ndgrad._tensor import Tensor

    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            where = f"the value at index {index}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but {where} has type "
                f"{type(item)}."
            )
    return is_tuple, values


def _copies(tensors, create_graph, need_graph):
    """New Tensor objects for the user's tensors, so that func's captured tensors are told apart from its inputs;
    they stay attached to the user's graph only for create_graph."""
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph) for t in tensors
    )


def _finish(tensors, create_graph):
    """Detach (nested tuples of) results, unless the caller asked for a differentiable result."""
    from ndgrad._tensor import Tensor

    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, create_graph) for t in tensors)


def _unpack(result, was_tuple):
    """Undo _as_tuple: ``was_tuple`` is one flag, or (outputs were a tuple, inputs were a tuple) for nested results."""
    if isinstance(was_tuple, tuple):
        outputs_tuple, inputs_tuple = was_tuple
        if not inputs_tuple:
            result = tuple(row[0] for row in result)  # a tuple even where result was a list
        return result if outputs_tuple else result[0]
    return result if was_tuple else result[0]


def _check_v(v, other, is_other_tuple):
    if len(v) != len(other):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (item, reference) in enumerate(zip(v, other)):
        if item.size() != reference.size():
            prefix = f"Entry {index} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {reference.size()} but got {item.size()}.")


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(_STRICT_UNUSED["back"].format(i=i))
        if not tensor.requires_grad:
            raise RuntimeError(_STRICT_NOT_REQUIRING_GRAD[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad (None entries allowed); all None when there are none."""
    from ndgrad.autograd import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad(
        [out for out, _ in kept],
        inputs,
        [g for _, g in kept],
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """Zeros where nothing flowed (an error in strict mode), as the mathematically expected value."""
    result = []
    for i, (grad, ref) in enumerate(zip(grads, refs)):
        if grad is None:
            if strict:
                raise RuntimeError(_STRICT_UNUSED[stage].format(i=i))
            grad = _zeros_like(ref)
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed in strict "
                "mode when create_graph=True."
            )
        result.append(grad)
    return tuple(result)


# ---- jacobian(show=True): the lesson that backward computes vᵀJ without building J ------------------------------
_SHOW_LIMIT = 100


def _show_jacobian(func, inputs, compute):
    """Print J, a random v, and ``x.grad`` after ``y.backward(v)`` beside vᵀJ; return J as jacobian() does."""
    import numpy as np

    from ndgrad.autograd import backward
    from ndgrad.autograd.grad_mode import no_grad

    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    with no_grad():
        is_outputs_tuple, ys = _as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")
    rows, columns = sum(y.numel() for y in ys), sum(x.numel() for x in xs)
    if rows > _SHOW_LIMIT or columns > _SHOW_LIMIT:
        raise ValueError(
            f"jacobian(show=True) prints the whole matrix, so it is meant for small examples: at most {_SHOW_LIMIT} "
            f"output and {_SHOW_LIMIT} input elements, but this function has {rows} outputs and {columns} inputs. "
            "Leave out show=True for larger functions."
        )
    if any(t.dtype.is_complex for t in (*xs, *ys)):
        raise ValueError("jacobian(show=True) explains real Jacobians only, but got a complex tensor")
    result = compute()
    blocks = result if is_outputs_tuple else (result,)
    blocks = [block if is_inputs_tuple else (block,) for block in blocks]
    matrix = np.block([
        [_array(block).reshape(y.numel(), x.numel()) for block, x in zip(row, xs)] for row, y in zip(blocks, ys)
    ])
    y_labels, x_labels = _labels(ys, "y", is_outputs_tuple), _labels(xs, "x", is_inputs_tuple)
    v = np.round(np.random.default_rng(0).standard_normal(rows), 2)  # own generator: the user's stays untouched
    leaves = tuple(x.detach().clone().requires_grad_(True) for x in xs)
    with enable_grad():
        outputs = func(*leaves)
        outputs = outputs if is_outputs_tuple else (outputs,)
        seeds, start = [], 0
        for y in outputs:
            seeds.append(_tensor_like(v[start:start + y.numel()], y))
            start += y.numel()
        backward(outputs, seeds)
    grads = np.concatenate([_array(x.grad).ravel() if x.grad is not None else np.zeros(x.numel()) for x in leaves])
    product = v @ matrix
    name = getattr(func, "__name__", "func")
    call = "y.backward(v)" if not is_outputs_tuple else f"backward(({', '.join(f'y{i}' for i in range(len(ys)))}), v)"
    grad = "x.grad" if not is_inputs_tuple else ", ".join(f"x{i}.grad" for i in range(len(xs)))
    grad_row = "x.grad" if not is_inputs_tuple else "grads"
    lines = [f"Jacobian J of {name}: {rows} outputs (rows) x {columns} inputs (columns)"]
    lines += _table(x_labels, [(label, row) for label, row in zip(y_labels, matrix)])
    lines.append("v: one weight per output (random)")
    lines += _table(y_labels, [("v", v)])
    lines.append(f"{call} leaves vᵀJ in {grad}, without ever building J (one vector-Jacobian product per node):")
    lines += _table(x_labels, [(grad_row, grads), ("vᵀJ", product)])
    lines.append(f"max |{grad_row} - vᵀJ| = {float(np.abs(grads - product).max()):.3g}")
    print("\n".join(lines))
    return result


def _array(tensor):
    return tensor.detach().cpu().numpy().astype("float64")


def _tensor_like(values, like):
    from ndgrad._creation import tensor

    return tensor(values.reshape(tuple(like.shape)), dtype=like.dtype, device=like.device)


def _labels(tensors, letter, numbered):
    """``y[0]``, ``y[1, 2]`` (``y`` for a 0-d tensor); ``y0[...]``, ``y1[...]`` for a tuple of them."""
    import numpy as np

    labels = []
    for number, t in enumerate(tensors):
        name = f"{letter}{number}" if numbered else letter
        shape = tuple(t.shape)
        labels += [name] if not shape else [f"{name}[{', '.join(map(str, i))}]" for i in np.ndindex(*shape)]
    return labels


def _table(column_labels, rows):
    """Lines of a table: a header of column labels, then each (label, values) right-aligned under them."""
    cells = [[f"{value:.4g}" for value in values] for _, values in rows]
    width = max(len(text) for text in [*column_labels, *(c for row in cells for c in row)])
    indent = max(len(label) for label, _ in rows) + 3
    lines = [" " * indent + " ".join(label.rjust(width) for label in column_labels)]
    for (label, _), row in zip(rows, cells):
        lines.append(f"  {label}".ljust(indent) + " ".join(c.rjust(width) for c in row))
    return lines
