"""ndgrad.autograd.gradcheck and gradgradcheck against torch's: verdicts, messages, warnings, both modes."""

import inspect

import pytest
import torch

import ndgrad

SETUP = """
x = torch.tensor([[0.3, -1.2], [0.8, 2.0]], dtype=torch.float64, requires_grad=True)
y = torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True)
def wrong(t, scale=1.5):
    out = t * 2
    out.register_hook(lambda g: g * scale)  # backward now reports 3 where the derivative is 2
    return out
"""


@pytest.mark.parametrize("name", ["gradcheck", "gradgradcheck"])
def test_signatures_match_torch(name):
    ours = inspect.signature(getattr(ndgrad.autograd, name)).parameters
    theirs = inspect.signature(getattr(torch.autograd, name)).parameters
    assert list(ours) == list(theirs)
    assert [(p.kind, p.default) for p in ours.values()] == [(p.kind, p.default) for p in theirs.values()]
    assert issubclass(ndgrad.autograd.GradcheckError, RuntimeError)


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("call", [
    "torch.autograd.gradcheck(lambda a, b: (a * b).sin(), (x, y){})",
    "torch.autograd.gradcheck(lambda a, b: (a @ b, a.exp()), [x, y]{})",
    "torch.autograd.gradcheck(lambda a, n, b: a.max(dim=n), (x, 1, 'ignored'){})",
    "torch.autograd.gradgradcheck(lambda a, b: (a * b).sin() * a, (x, y){})",
    "torch.autograd.gradgradcheck(lambda a: a.pow(3).sum(), x{})",
    "torch.autograd.gradgradcheck(lambda a, b: a @ b, (x, y), torch.tensor([0.5, 2.0], dtype=torch.float64){})",
    "torch.autograd.gradcheck(lambda a: a.detach() * 2, x{})",
    "torch.autograd.gradcheck(lambda a: torch.zeros(2), x{})",
    "torch.autograd.gradcheck(lambda a: a * 2, x.detach(){})",
    "torch.autograd.gradcheck(lambda a: a * 2, x.detach(), raise_exception=False{})",
    "torch.autograd.gradcheck(lambda a: a * 2, torch.zeros(3, dtype=torch.float64).expand(2, 3).requires_grad_(){})",
    "torch.autograd.gradcheck(wrong, x, raise_exception=False{})",
    "torch.autograd.gradcheck(lambda a: a.exp(), x, check_forward_ad=False, check_backward_ad=False{})",
])
def test_verdicts_errors_and_warnings_match_torch(same, call, fast_mode):
    same(SETUP + "print(" + call.format(f", fast_mode={fast_mode}") + ")")


def test_float32_inputs_warn(same):
    """Slow mode only: fast mode's random projections (drawn by each library's own generator) show in the message."""
    same(SETUP + "torch.autograd.gradcheck(lambda a: a * 2, x.float())")


def test_slow_mode_failure_reports_both_jacobians(same):
    same(SETUP + "torch.autograd.gradcheck(wrong, (x,))")


def test_failure_names_the_output_and_input(same):
    same(SETUP + "torch.autograd.gradcheck(lambda a, b: (a.sin(), wrong(b)), (x, y))")


def test_fast_mode_failure_recomputes_in_slow_mode(run):
    """The projections use each library's own random vectors; the slow-mode report after them is the same."""
    code = SETUP + "torch.autograd.gradcheck(wrong, (x,), fast_mode=True)"
    ours, theirs = run(ndgrad, code), run(torch, code)
    assert ours.error[0] == theirs.error[0] == "GradcheckError"
    head, _, tail = theirs.error[1].partition("\n\nThe above quantities")
    assert head.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert ours.error[1].endswith(tail)
    numbers = ours.error[1].partition("\n\nThe above")[0].split("\n")[1:]
    numerical, analytical = (float(line.split(":")[1]) for line in numbers)
    assert analytical == pytest.approx(1.5 * numerical)  # v^T J u: the hook scales the whole Jacobian


def test_fast_mode_leaves_the_random_state_alone():
    ndgrad.manual_seed(3)
    expected = ndgrad.rand(4)
    ndgrad.manual_seed(3)
    x = ndgrad.rand(3, dtype=ndgrad.float64).requires_grad_()
    ndgrad.manual_seed(3)
    assert ndgrad.autograd.gradcheck(lambda a: a.exp(), x, fast_mode=True)
    assert ndgrad.equal(ndgrad.rand(4), expected)


def test_nondeterministic_backward_is_reported(same):
    same(SETUP + """
state = [0]
def noisy(t):
    out = t * 2
    def hook(g):
        state[0] += 1
        return g * (1 + 1e-3 * state[0])
    out.register_hook(hook)
    return out
print(torch.autograd.gradcheck(noisy, x, nondet_tol=1.0))
torch.autograd.gradcheck(noisy, x)
""")


def test_backward_ignoring_grad_output_is_reported(same):
    same(SETUP + """
def constant_grad(t):
    out = t * 2
    out.register_hook(lambda g: torch.ones_like(g) * 2)
    return out
torch.autograd.gradcheck(constant_grad, x, atol=10)
""")


def test_gradgradcheck_catches_a_wrong_second_derivative(same):
    same(SETUP + """
def detached_grad(t):
    out = t.sin() * 1
    # first derivatives right, but they no longer depend on grad_output (torch's undefined-grad check sends None)
    out.register_hook(lambda g: None if g is None else g.detach())
    return out
print(torch.autograd.gradcheck(detached_grad, x))
v = torch.tensor([[1.0, -2.0], [0.5, 0.25]], dtype=torch.float64, requires_grad=True)
torch.autograd.gradgradcheck(detached_grad, x, v)
""")


def test_gradgradcheck_random_grad_outputs_may_be_non_contiguous():
    x = ndgrad.rand(2, 3, dtype=ndgrad.float64).requires_grad_()
    for flag in (False, True):
        assert ndgrad.autograd.gradgradcheck(lambda a: (a * a).exp(), x, gen_non_contig_grad_outputs=flag)
