"""Draw the pictures that docs/graphs.md and docs/tracing.md show, into docs/images/: ``python docs/make_images.py``.

Each example is the tutorials' code, drawn before and after its backward pass. tests/viz checks that the
committed pictures still match what this script draws.
"""

import pathlib

import ndgrad as torch
from ndgrad import nn, viz

IMAGES = pathlib.Path(__file__).resolve().parent / "images"


def multiplication():
    """The tutorials' first picture: z = x * y, two leaves and one MulBackward0."""
    x = torch.tensor(1.0, requires_grad=True)
    y = torch.tensor(2.0, requires_grad=True)
    z = x * y
    yield "multiplication_before", viz.draw(z, params=locals())
    z.backward()
    yield "multiplication_after", viz.draw(z, params=locals())


def chain_rule():
    """out = mean(3 (x + 2)^2): x.grad is 4.5 everywhere."""
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    yield "chain_rule_before", viz.draw(out, params=locals())
    out.backward()
    yield "chain_rule_after", viz.draw(out, params=locals())


def vector_jacobian():
    """A non-scalar root: y.backward(v) computes the vector-Jacobian product v^T J."""
    x = torch.tensor([0.5, -1.2, 0.9], requires_grad=True)  # fixed values (the tutorial draws them at random)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    yield "vector_jacobian_before", viz.draw(y, params=locals())
    y.backward(v)
    yield "vector_jacobian_after", viz.draw(y, params=locals())


def detach():
    """u = y.detach() is cut from y's graph: z = u * x differentiates as if u were a constant."""
    x = torch.arange(4.0, requires_grad=True)
    y = x * x
    u = y.detach()
    z = u * x
    total = z.sum()
    yield "detach_before", viz.draw([total, y, u], params=locals())
    total.backward()
    yield "detach_after", viz.draw([total, y, u], params=locals(), highlight=x)


def modules():
    """A small network, one box per layer call (record_modules + collapse_modules)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    inputs = torch.ones(2, 3)
    with viz.record_modules(model):
        loss = model(inputs).pow(2).mean()
    params = dict(model.named_parameters())
    yield "modules_collapsed", viz.draw(loss, params=params, collapse_modules=True, show_values=False)


EXAMPLES = (multiplication, chain_rule, vector_jacobian, detach, modules)
TRACED = (chain_rule, vector_jacobian, detach)  # docs/tracing.md plays their backward passes


class TracePicture:
    """A backward trace drawn with the example's names for its tensors: saved as an animated SVG."""

    def __init__(self, trace, names):
        self.trace, self.names = trace, names

    def save(self, path):
        pathlib.Path(path).write_text(self.trace.to_svg(self.names) + "\n", encoding="utf-8")


def traced(example):
    """Run an example inside ndgrad.autograd.trace; the names are those its own pictures gave the tensors."""
    with torch.autograd.trace() as trace:
        diagrams = [diagram for _, diagram in example()]
    names = {box.title: box.subject for diagram in diagrams for box in diagram.model.boxes if box.kind == "tensor"}
    return TracePicture(trace, names)


def pictures():
    """(name, picture) for every picture of docs/graphs.md and docs/tracing.md."""
    for example in EXAMPLES:
        yield from example()
    for example in TRACED:
        yield f"trace_{example.__name__}", traced(example)


def main(directory=IMAGES):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, diagram in pictures():
        diagram.save(directory / f"{name}.svg")
        print(f"{directory / name}.svg")


if __name__ == "__main__":
    main()
