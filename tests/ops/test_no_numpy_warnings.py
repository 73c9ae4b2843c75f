"""ndgrad computes inf and nan without a word, as PyTorch does: no NumPy RuntimeWarning comes out of any op at edge
values (0, -1, +-inf, nan, values that overflow in sums and products, empty tensors), forward or backward, whatever
the warning filters; and the user's own NumPy code keeps its error settings and its warnings."""

import threading
import warnings

import numpy as np
import pytest

import ndgrad
import ndgrad.autograd.forward_ad as forward
from ndgrad.ops import OP_TABLE

from .samples import first, samples_for

# Each fill replaces the values of every differentiable input; "empty" gives each such input no elements instead.
# Every fill in float32; in float64 too the fills whose overflow depends on the dtype.
FILLS = ("0", "-1", "inf", "-inf", "nan", "max", "-max", "mixed", "empty")
RUNS = [(fill, np.float32) for fill in FILLS] + [(fill, np.float64) for fill in ("max", "mixed")]
CASES_PER_OP = 2  # the first real samples of each op, and its first complex one (if any)


def edge_values(base, fill, dtype):
    """Values of ``base``'s shape (and dtype: real or complex) for one fill; ``max`` is the dtype's largest float,
    which overflows as soon as two of them are added or multiplied."""
    if fill == "empty":
        return np.zeros((0,) + base.shape[1:] if base.ndim else (0,), base.dtype)
    largest = float(np.finfo(dtype).max)
    if fill == "mixed":
        cycle = [0.0, np.inf, -np.inf, np.nan, largest, -largest, -1.0, 1e-300]
        values = np.resize(np.asarray(cycle), base.shape)
    else:
        values = np.full(base.shape, largest if fill == "max" else -largest if fill == "-max" else float(fill))
    return values * (1 + 1j) if base.dtype.kind == "c" else values


def edge_cases(op):
    samples = samples_for(op)
    real = [case for case in samples if not case.is_complex][:CASES_PER_OP]
    return real + [case for case in samples if case.is_complex][:1]


def with_fill(case, fill, dtype):
    inputs = tuple(i if i.fixed else type(i)(edge_values(i.base, fill, dtype), i.layout) for i in case.inputs)
    return type(case)(case.op, inputs, case.call, case.smooth)


def forward_and_backward(case, dtype):
    """Run the case and differentiate it; an error (which torch may raise too at these values) ends the run."""
    tensors = case.tensors(ndgrad, dtype)
    out = first(case.run(ndgrad, tensors))
    print(out)  # printing formats inf and nan
    if out.requires_grad:
        ndgrad.autograd.grad(out, case.differentiable(tensors), ndgrad.ones_like(out), allow_unused=True)


def forward_mode(case, dtype):
    """The case with a tangent of ones on each differentiable input (jvp rules compute at these values too)."""
    tensors = case.tensors(ndgrad, dtype, requires_grad=False)
    with forward.dual_level():
        duals = [t if i.fixed else forward.make_dual(t, ndgrad.ones_like(t)) for t, i in zip(tensors, case.inputs)]
        forward.unpack_dual(first(case.run(ndgrad, tuple(duals))))


PHASES = (forward_and_backward, forward_mode)


def numpy_warnings(run, *args):
    """The RuntimeWarnings NumPy raised while ``run`` ran (all of them: recorded, so that no ``except`` in the code
    under test can hide one that the "error" filter would have turned into an exception)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run(*args)
        except Exception:  # noqa: BLE001 - torch may refuse these values too: only warnings are checked here
            pass
    return [f"{w.message} ({w.filename}:{w.lineno})" for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("op", OP_TABLE, ids=lambda op: op.__name__)
def test_edge_values_raise_no_numpy_warning(op, capsys):
    warned = {}
    for index, case in enumerate(edge_cases(op)):
        for fill, dtype in RUNS:
            for phase in PHASES:
                caught = numpy_warnings(phase, with_fill(case, fill, dtype), dtype)
                if caught:
                    warned[f"{phase.__name__} {index}: {case} {fill} {dtype.__name__}"] = caught
    capsys.readouterr()
    assert not warned, "\n".join(f"{run}: {caught}" for run, caught in warned.items())


# Code that computes on raw arrays outside the ops: creation, printing, the engine's accumulation, optimizer steps,
# gradcheck, clipping. Torch prints these values and warns about none of them; ndgrad must do the same.
SNIPPETS = [
    "print(torch.tensor([1e40, -1e40, 1.0], dtype=torch.float32), torch.tensor([1e5, -1e5], dtype=torch.float16))",
    "print(torch.tensor([100000]) + torch.ones(1, dtype=torch.float16))",
    "x = torch.zeros(2)\nx.add_(torch.tensor([1e300, 1.0], dtype=torch.float64))\nprint(x)",
    "print(torch.tensor([1e-300, 1e300], dtype=torch.float64), torch.tensor([1e-45, 3e38]))",
    "print(torch.tensor([]).mean(), torch.zeros(0, 3).mean(0), torch.zeros(2, 0).mean(1))",
    "print(torch.nn.functional.mse_loss(torch.zeros(0), torch.zeros(0)), torch.nn.functional.l1_loss(torch.zeros(0), "
    "torch.zeros(0)))",
    "print(torch.tensor([float('nan'), float('inf')]).sum(), torch.tensor([3e38, 3e38]).sum(), "
    "torch.tensor([3e38, 3e38]).mean(), torch.tensor([3e38, 3e38]).prod())",
    "print(torch.normal(torch.zeros(2), torch.tensor([1e39, 1.0]).double()).float().isinf())",
    "x = torch.tensor([3e38, 1.0], requires_grad=True)\nfor _ in range(2):\n    (x * 1).sum().backward()\n"
    "(x * float('-inf')).sum().backward()\nprint(x.grad)",
    "p = torch.nn.Parameter(torch.tensor([1., 2.]))\np.grad = torch.tensor([float('inf'), 0.])\n"
    "torch.optim.Adam([p]).step()\nprint(p)",
    "p = torch.nn.Parameter(torch.tensor([3e38, 2.]))\np.grad = torch.tensor([3e38, float('inf')])\n"
    "for name in ['SGD', 'Adagrad', 'RMSprop', 'Adadelta', 'Adamax', 'NAdam', 'RAdam', 'AdamW', 'ASGD', 'Rprop']:\n"
    "    getattr(torch.optim, name)([p], **({'lr': 1.0, 'momentum': 0.9} if name == 'SGD' else {})).step()\nprint(p)",
    "x = torch.nn.Parameter(torch.tensor([1.0, 3e38]))\nopt = torch.optim.LBFGS([x], max_iter=3)\n"
    "def closure():\n    opt.zero_grad()\n    loss = (x * x).sum()\n    loss.backward()\n    return loss\n"
    "print(opt.step(closure))\nprint(x)",
    "print(torch.autograd.gradcheck(lambda x: x.log(), torch.tensor([0., 1.], dtype=torch.float64, "
    "requires_grad=True), raise_exception=False))",
    "p = torch.nn.Parameter(torch.tensor([3e38, 3e38]))\np.grad = torch.tensor([3e38, 3e38])\n"
    "print(torch.nn.utils.clip_grad_norm_([p], 1.0), p.grad)",
]


@pytest.mark.parametrize("code", SNIPPETS)
def test_array_code_outside_the_ops_is_silent_as_torch(same, code):
    same(code)


def some_ndgrad_work():
    x = ndgrad.tensor([0.0, -1.0, np.inf, np.nan, 3e38], dtype=ndgrad.float32, requires_grad=True)
    y = (ndgrad.log(x) + x.exp() + 1 / x).sum() * x.sum()
    y.backward()
    return repr(y), repr(x.grad)


def test_users_numpy_error_state_is_kept():
    before = np.geterr()
    some_ndgrad_work()
    assert np.geterr() == before
    with pytest.raises(RuntimeError):  # an op that fails in its forward
        ndgrad.ones(2) + ndgrad.ones(3)
    with pytest.raises(RuntimeError):  # a backward that fails half-way
        x = ndgrad.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda grad: grad.reshape(3))
        y.sum().backward()
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))


def test_users_own_errstate_holds_around_ndgrad():
    """Under the user's np.errstate(all="raise"), ndgrad still computes silently and NumPy still raises."""
    with np.errstate(all="raise"):
        some_ndgrad_work()
        assert np.geterr()["divide"] == "raise"
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))


def test_error_state_is_kept_in_other_threads():
    """ndgrad running in a thread leaves the main thread's settings alone, and the thread's own too."""
    seen = []

    def work():
        some_ndgrad_work()
        seen.append(np.geterr())

    with np.errstate(divide="raise"):
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        assert np.geterr()["divide"] == "raise"
    assert seen == [np.geterr()]
