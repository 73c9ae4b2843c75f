"""The tour: the seed tutorials' autograd examples, run step by step, showing tensors, grad_fn and gradients."""

import warnings

import ndgrad as torch


def show(label, tensor):
    """One step: the value, how it was made (grad_fn), whether it is a leaf, and its gradient so far."""
    print(f"{label} = {tensor!r}")
    node = type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading .grad of a non-leaf warns; the demo shows it is None
        grad = tensor.grad
    print(f"    grad_fn={node}  is_leaf={tensor.is_leaf}  requires_grad={tensor.requires_grad}  grad={grad}")


def section(title):
    print(f"\n=== {title} ===")


def chain_rule_example():
    section("out = mean(3 * (x + 2)^2): d(out)/dx = 3/2 (x + 2) = 4.5 at x = 1")
    x = torch.ones(2, 2, requires_grad=True)
    show("x", x)
    y = x + 2
    show("y = x + 2", y)
    z = y * y * 3
    show("z = y * y * 3", z)
    out = z.mean()
    show("out = z.mean()", out)
    print("out.backward()")
    out.backward()
    show("x", x)


def vector_jacobian_example():
    section("a non-scalar output needs a vector v: backward computes v^T J, never J itself")
    x = torch.tensor([0.0, 2.0, 8.0], requires_grad=True)
    y = torch.tensor([5.0, 1.0, 7.0], requires_grad=True)
    z = x * y
    show("z = x * y", z)
    try:
        z.backward()
    except RuntimeError as error:
        print(f"z.backward() -> RuntimeError: {error}")
    print("z.backward(torch.FloatTensor([1.0, 1.0, 1.0]))")
    z.backward(torch.FloatTensor([1.0, 1.0, 1.0]))
    show("x", x)
    show("y", y)


def dot_example():
    section("y = 2 * dot(x, x): dy/dx = 4x; gradients accumulate until zeroed")
    x = torch.arange(4.0).requires_grad_(True)
    y = 2 * torch.dot(x, x)
    show("y", y)
    y.backward()
    show("x", x)
    x.grad.zero_()
    x.sum().backward()
    print("after x.grad.zero_() and x.sum().backward():")
    show("x", x)


def detach_example():
    section("detach(): u = y.detach() is a constant, so d(u * x)/dx = u")
    x = torch.arange(4.0, requires_grad=True)
    y = x * x
    u = y.detach()
    show("u = (x * x).detach()", u)
    (u * x).sum().backward()
    show("x", x)


def no_grad_example():
    section("no_grad(): nothing is recorded inside")
    x = torch.randn(3, requires_grad=True)
    print(f"(x ** 2).requires_grad = {(x ** 2).requires_grad}")
    with torch.no_grad():
        print(f"inside no_grad: (x ** 2).requires_grad = {(x ** 2).requires_grad}")


def freed_graph_example():
    section("saved values are freed by backward: a second pass needs retain_graph=True")
    x = torch.arange(4.0, requires_grad=True)
    z = (x * x) * x
    z.sum().backward(retain_graph=True)
    z.sum().backward()
    show("x (two passes, accumulated)", x)
    try:
        z.sum().backward()
    except RuntimeError as error:
        print(f"third pass -> RuntimeError: {error}")


def run():
    torch.manual_seed(0)
    chain_rule_example()
    vector_jacobian_example()
    dot_example()
    detach_example()
    no_grad_example()
    freed_graph_example()
