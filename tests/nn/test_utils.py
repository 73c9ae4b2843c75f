"""nn.utils against torch: clip_grad_norm_ (every norm type, the non-finite check, generators, single tensors),
clip_grad_value_, parameters_to_vector and vector_to_parameters."""

import pytest

SETUP = """
import torch
nn = torch.nn
u = nn.utils
a = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
b = torch.tensor([0.25, -4.0, 1.5], requires_grad=True)
c = torch.tensor([7.0], requires_grad=True)
a.grad = torch.tensor([[0.5, -1.5], [2.0, 0.0]])
b.grad = torch.tensor([3.0, -0.25, 1.0])
params = [a, b, c]
"""


@pytest.mark.parametrize("code", [
    "print(u.clip_grad_norm_(params, 1.0), a.grad, b.grad, c.grad)",
    "print(u.clip_grad_norm_(params, 100.0), a.grad, b.grad._version)",
    "print(u.clip_grad_norm_(params, 0.5, norm_type=1), a.grad)",
    "print(u.clip_grad_norm_(params, 0.5, norm_type=3.5), b.grad)",
    "print(u.clip_grad_norm_(params, 2, norm_type=float('inf')), a.grad, b.grad)",
    "print(u.clip_grad_norm_(params, 2, norm_type='inf'), a.grad)",
    "print(u.clip_grad_norm_(a, 1.0), a.grad)",
    "print(u.clip_grad_norm_((p for p in params), 1.0), a.grad)",
    "print(u.clip_grad_norm_((p for p in []), 1.0))",
    "print(u.clip_grad_norm_([c], 1.0), c.grad)",
    "b.grad[0] = float('nan'); print(u.clip_grad_norm_(params, 1.0), a.grad)",
    "b.grad[0] = float('inf'); u.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)",
    "b.grad[0] = float('inf'); u.clip_grad_norm_(params, 1.0, norm_type=float('inf'), error_if_nonfinite=True)",
    "print(u.clip_grad_norm_(params, 1.0, foreach=True), a.grad)",
    "print(u.clip_grad_norm(params, 1.0), a.grad)",
    "a.grad = a.grad.double(); a.data = a.data.double(); print(u.clip_grad_norm_([a, b], 1.0), a.grad.dtype)",
    "u.clip_grad_value_(params, 0.75); print(a.grad, b.grad, c.grad)",
    "u.clip_grad_value_(b, 1); print(b.grad)",
    "print(u.clip_grad_value_((p for p in params), 0.1), a.grad)",
    "v = u.parameters_to_vector(params); print(v, v.grad_fn.name())",
    "u.vector_to_parameters(torch.arange(7.0), params); print(a, b, c, a.grad)",
    "u.vector_to_parameters([1.0, 2.0], params)",
    "m = nn.Linear(2, 2); m.weight.data = torch.eye(2); m.bias.data = torch.ones(2);"
    " print(u.parameters_to_vector(m.parameters()))",
])
def test_utils(same, code):
    same(SETUP + code)
