"""gradcheck and gradgradcheck: compare the engine's Jacobians with central finite differences, element by element
(slow mode) or through one random projection v^T J u per input and output (fast mode), as PyTorch does.

Complex numbers are checked as PyTorch checks them: a function with complex outputs is checked as two functions,
the imaginary parts of its outputs and then their real parts; the numerical gradient for a complex input is the
conjugate Wirtinger one, ds/dx + i ds/dy, what the engine computes (see Note [complex gradients]).
"""


import numpy as np

from ndgrad._fpstate import silenced
from ndgrad._warnings import warn

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians disagree (see torch.autograd.GradcheckError)."""


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True if backward agrees with finite differences for every input that requires grad (see
    torch.autograd.gradcheck); use float64 inputs."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError(
            "gradcheck: check_forward_ad, check_batched_grad and check_batched_forward_grad are not supported yet"
        )
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """gradcheck of the map (inputs, v) -> J^T v, i.e. of second derivatives (see torch.autograd.gradgradcheck)."""
    from ndgrad.autograd import grad

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable(func(*inputs))
        grad_outputs = tuple(_random_like(o, gen_non_contig_grad_outputs) for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)
    # NOTE: remembered now: func may hand back tensors whose requires_grad it has changed
    wrt_inputs = {i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad}
    wrt_grad_outputs = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def first_derivatives(*args):
        xs = tuple(x.requires_grad_() if i in wrt_inputs else x for i, x in enumerate(args[:-count]))
        outs = _differentiable(func(*xs))
        vs = tuple(v.requires_grad_() if i in wrt_grad_outputs else v for i, v in enumerate(args[-count:]))
        grads = grad(outs, [x for i, x in enumerate(xs) if i in wrt_inputs], vs, create_graph=True,
                     allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


# ---- the check ----------------------------------------------------------------------------------------------------
@silenced  # finite differences of inf and nan (see Note [floating-point error state])
def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, fast_mode):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    if not any(o.is_complex() for o in func_out):
        _check_part(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, fast_mode, None)
        return True
    complex_outputs = {k for k, o in enumerate(_differentiable(func_out)) if o.is_complex()}
    for part in ("imaginary", "real"):
        _check_part(_part_of_outputs(func, part), inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                    fast_mode, (part, complex_outputs))
    return True


def _part_of_outputs(func, part):
    """func with the real or imaginary part taken of each complex output."""
    def wrapped(*inputs):
        return tuple((o.real if part == "real" else o.imag) if o.is_complex() else o for o in _as_tuple(func(*inputs)))
    return wrapped


def _check_part(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, fast_mode, part):
    """The checks of a function with real outputs; ``part``: (which part, the complex outputs' indices) or None."""
    func_out = _as_tuple(func(*inputs))
    outputs = _differentiable(func_out)
    wrt = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    # finite differences give a Jacobian for every float output; only those requiring grad are compared
    keep = [k for k, o in enumerate(o for o in func_out if o._data.dtype.kind in "fcV") if o.requires_grad]
    check = _fast_check if fast_mode else _slow_check
    check(func, inputs, wrt, outputs, keep, eps, atol, rtol, nondet_tol, part)
    if outputs:
        _check_zero_grad_outputs(outputs, [inputs[i] for i in wrt])
        if check_undefined_grad and len(outputs) > 1:
            _check_undefined_grad(func, inputs, [inputs[i] for i in wrt], len(outputs))


def _slow_check(func, inputs, wrt, outputs, keep, eps, atol, rtol, nondet_tol, part):
    numerical = [_numerical_jacobian(func, inputs, i, eps) for i in wrt]  # [input][output], (in, out) each
    if not outputs:
        if any(np.any(j != 0) for per_input in numerical for j in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    numerical = [[per_output[m] for m in keep] for per_output in numerical]
    for k, out in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, wrt, out, nondet_tol)
        for j, (a, per_output) in enumerate(zip(analytical, numerical)):
            n = per_output[k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch(_as_ndgrad(a), _as_ndgrad(n), k, j, part))


def _fast_check(func, inputs, wrt, outputs, keep, eps, atol, rtol, nondet_tol, part):
    rng = np.random.default_rng(0)  # its own generator: gradcheck leaves the user's random state alone
    # a complex input gets a pair of directions, (for the real parts, for the imaginary parts)
    us = [_unit_vector(rng, inputs[i]) if not inputs[i].is_complex() else (_unit_vector(rng, inputs[i]),
          _unit_vector(rng, inputs[i])) for i in wrt]
    vs = [_unit_vector(rng, o) for o in outputs]
    jus = [_numerical_jvp(func, inputs, i, u, eps) for i, u in zip(wrt, us)]  # [input][output], flat each
    if not outputs:
        if any(ju.size and np.abs(ju).max() > nondet_tol for per_input in jus for ju in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    jus = [[per_output[m] for m in keep] for per_output in jus]
    analytical = []  # [output][input]: v^T J u from backward
    for out, v in zip(outputs, vs):
        vjs = _checked_vjps(inputs, wrt, out, [v.reshape(out.shape)], nondet_tol)
        analytical.append([_project(vj[:, 0], u) for vj, u in zip(vjs, us)])
    for j, u in enumerate(us):
        for k, v in enumerate(vs):
            a, n = analytical[k][j], (v @ jus[j][k]).item()
            if not np.isclose(a, n, rtol=rtol, atol=atol * _total(u) * float(v.sum())):
                report = _slow_mode_report(func, inputs, wrt, outputs, j, k, keep[k], eps, atol, rtol)
                raise GradcheckError(_mismatch(a, n, k, j, part) + report)


def _project(vj, u):
    """v^T J u from a vjp: for a complex input, the real parts against u's first direction plus i times the
    imaginary parts against its second (what the finite differences along u's pair give)."""
    if isinstance(u, tuple):
        return (vj.real @ u[0] + 1j * (vj.imag @ u[1])).item()
    return float(vj @ u)


def _total(u):
    return float(u[0].sum() + u[1].sum()) if isinstance(u, tuple) else float(u.sum())


def _slow_mode_report(func, inputs, wrt, outputs, j, k, float_k, eps, atol, rtol):
    """The full Jacobians of one (input, output) pair, to explain a fast-mode failure."""
    numerical = _numerical_jacobian(func, inputs, wrt[j], eps)[float_k]
    analytical = _analytical_jacobian(inputs, wrt, outputs[k], float("inf"))[j]
    text = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {_as_ndgrad(numerical)}\nAnalytical:\n{_as_ndgrad(analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {float(np.abs(numerical - analytical).max())}.\n"
    )
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        text += FAST_FAIL_SLOW_OK_MSG
    return text


# ---- Jacobians ----------------------------------------------------------------------------------------------------
def _numerical_jacobian(func, inputs, index, eps):
    """Per float output, the (input numel, output numel) matrix of rows (f(x + eps e_r) - f(x - eps e_r)) / 2eps;
    for a complex input, the rows are ds/dx + i ds/dy, each part by such a difference."""
    data = inputs[index]._data  # perturbed in place; the tensor keeps its version, as torch's .data does
    directions = (1, 1j) if data.dtype.kind == "c" else (1,)
    rows = []
    # NOTE: index the array itself: reshape(-1) of a transposed or strided input is a copy, not a view.
    for position in np.ndindex(data.shape):
        original = data[position].item()
        row = None
        for direction in directions:
            data[position] = original - eps * direction
            minus = _float_outputs(func, inputs)
            data[position] = original + eps * direction
            plus = _float_outputs(func, inputs)
            derivatives = [((b - a) / (2 * eps)).ravel() for a, b in zip(minus, plus)]
            row = derivatives if row is None else [r + 1j * d for r, d in zip(row, derivatives)]
        data[position] = original
        rows.append(row)
    if not rows:
        return [np.zeros((0, o.size), o.dtype) for o in _float_outputs(func, inputs)]
    return [np.stack(columns) for columns in zip(*rows)]


def _numerical_jvp(func, inputs, index, u, eps):
    """Per float output, (f(x + eps u) - f(x - eps u)) / 2eps, flattened: J u by finite differences. For a
    complex input u is a pair of directions, one for the real parts, one for the imaginary parts."""
    if isinstance(u, tuple):
        along_real, along_imaginary = (_numerical_jvp(func, inputs, index, d, eps) for d in (u[0], u[1] * 1j))
        return [a + 1j * b for a, b in zip(along_real, along_imaginary)]
    data = inputs[index]._data
    original = data.copy()
    step = (u * eps).reshape(data.shape)
    data[...] = original - step
    minus = _float_outputs(func, inputs)
    data[...] = original + step
    plus = _float_outputs(func, inputs)
    data[...] = original
    return [((b - a) / (2 * eps)).ravel() for a, b in zip(minus, plus)]


def _float_outputs(func, inputs):
    return [o._data.copy() for o in _as_tuple(func(*inputs)) if o._data.dtype.kind in "fcV"]


def _analytical_jacobian(inputs, wrt, output, nondet_tol):
    """Per input in ``wrt``, the (input numel, output numel) matrix whose column r is e_r^T J, from backward."""
    seeds = np.eye(output.numel(), dtype=output._data.dtype).reshape((output.numel(), *output.shape))
    return _checked_vjps(inputs, wrt, output, seeds, nondet_tol)


def _checked_vjps(inputs, wrt, output, seeds, nondet_tol):
    """One backward per seed, run twice: a backward that is not reentrant (gives other values the second time)
    fails the check, as in PyTorch."""
    first = _vjps(inputs, wrt, output, seeds)
    second = _vjps(inputs, wrt, output, seeds)
    for a, b in zip(first, second):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                "gives different values, although analytical gradient matches numerical gradient.The tolerance "
                f"for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG
            )
    return first


def _vjps(inputs, wrt, output, seeds):
    from ndgrad._creation import from_numpy
    from ndgrad.autograd import grad

    targets = [inputs[i] for i in wrt]
    columns = [np.zeros((t.numel(), len(seeds)), t._data.dtype) for t in targets]
    for r, seed in enumerate(seeds):
        grads = grad([output], targets, [from_numpy(np.array(seed, order="C"))], retain_graph=True,
                     allow_unused=True)
        for column, g in zip(columns, grads):
            if g is not None:
                column[:, r] = g._data.ravel()
    return columns


# ---- the other checks ---------------------------------------------------------------------------------------------
def _check_inputs(inputs):
    any_requires_grad = False
    for index, x in enumerate(inputs):
        if _is_tensor(x) and x.requires_grad:
            if x._data.dtype not in (np.float64, np.complex128):
                warn(
                    f"Input #{index} requires gradient and is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are not of double precision floating point or "
                    "complex. ",
                )
            if any(stride == 0 and size > 1 for stride, size in zip(x._data.strides, x._data.shape)):
                raise RuntimeError(
                    f"The {index}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                    "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck."
                )
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True."
        )


def _check_zero_grad_outputs(outputs, targets):
    """Backward must scale with grad_output: zero gradients in, zero gradients of the right type and size out."""
    from ndgrad._creation import zeros_like
    from ndgrad.autograd import grad

    grads = grad(outputs, targets, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, x in zip(grads, targets):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype is not x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(func, inputs, targets, count):
    """Backward must cope when one output gets no gradient at all (torch's undefined grad) while others do."""
    from ndgrad._creation import zeros_like
    from ndgrad.autograd import grad

    for skipped in range(count):
        outputs = [o for k, o in enumerate(_differentiable(func(*inputs))) if k != skipped]
        try:
            grads = grad(outputs, targets, [zeros_like(o) for o in outputs], allow_unused=True)
        except RuntimeError as error:
            _warn_undefined_grad_check()
            raise GradcheckError(
                'Expected backward function to handle undefined output grads. Please look at "Notes about '
                'undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from error
        if any(g is not None and np.any(g._data != 0) for g in grads):
            _warn_undefined_grad_check()
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are undefined or zero. "
                'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            )


def _warn_undefined_grad_check():
    warn(
        "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it "
        "may break existing callers of this function. If this is true for you, you can call this function with "
        '"check_undefined_grad=False" to disable the feature',
    )


# ---- helpers ------------------------------------------------------------------------------------------------------
def _is_tensor(x):
    from ndgrad._tensor import Tensor

    return isinstance(x, Tensor)


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    return tuple(x) if isinstance(x, list) else (x,)


def _differentiable(outputs):
    return tuple(o for o in _as_tuple(outputs) if o.requires_grad)


def _unit_vector(rng, tensor):
    vector = rng.random(tensor.numel()).astype(tensor._data.real.dtype)
    return vector / np.linalg.norm(vector) if vector.size else vector


def _random_like(output, noncontiguous):
    """Uniform in [-1, 1), from ndgrad's generator as torch.testing.make_tensor draws from torch's."""
    from ndgrad._random import rand

    dtype = output.dtype if output.is_floating_point() or output.is_complex() else None
    shape = tuple(output.shape)
    if noncontiguous and shape and output.numel() > 1:
        values = (rand(*shape[:-1], 2 * shape[-1], dtype=dtype or _float64()) * 2 - 1)[..., ::2]
    else:
        values = rand(shape, dtype=dtype or _float64()) * 2 - 1
    return values.requires_grad_()


def _float64():
    from ndgrad._dtype import float64

    return float64


def _as_ndgrad(array):
    from ndgrad._creation import from_numpy

    return from_numpy(np.ascontiguousarray(array))


def _mismatch(analytical, numerical, output_index, input_index, part=None):
    prefix = ""
    if part is not None and output_index in part[1]:
        prefix = f"While considering the {part[0]} part of complex outputs only, "
    return (
        f"{prefix}Jacobian mismatch for output {output_index:d} with respect to input {input_index:d},\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()
