"""Small programs that build autograd graphs, each run once with ``torch`` bound to PyTorch and once to ndgrad,
so that the picture ndgrad draws of its graph can be checked against the picture of PyTorch's."""

import torch

import ndgrad
from ndgrad.autograd.provenance import set_provenance_enabled
from ndgrad.viz.graph_model import describe
from ndgrad.viz.labels import Options

PROGRAMS = {
    "seed_chain_rule": """
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
""",
    "seed_vector_jacobian": """
x = torch.tensor([0.5, -1.2, 0.9], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
out = y
""",
    "seed_detach": """
x = torch.arange(4.0, requires_grad=True)
y = x * x
u = y.detach()
z = u * x
out = [z.sum(), y, u]
""",
    "seed_dot": """
x = torch.arange(4.0, requires_grad=True)
out = 2 * torch.dot(x, x)
""",
    "branching_and_fan_in": """
x = torch.tensor([0.5, 1.5, -2.0], requires_grad=True)
a = x * 2
b = a.exp()
c = a * b + a.sin()
out = c.sum()
""",
    "unbind": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a, b, c = x.unbind()
out = a * b + c
""",
    "split": """
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
p, q = x.split(2)
out = (p * q).sum()
""",
    "view_in_place": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = x.clone()
w[1:].mul_(2)
out = w.sum()
""",
    "in_place": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.add_(1)
y.exp_()
out = y.sum()
""",
    "custom_function": """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return 2 * a * grad

x = torch.tensor([1.0, 2.0], requires_grad=True)
out = Square.apply(x).sum()
""",
    "matmul_broadcast": """
W = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
b = torch.tensor([0.5, -0.5, 0.0], requires_grad=True)
x = torch.tensor([1.0, -1.0])
out = (W @ x + b).relu().sum()
""",
    "max_with_indices": """
x = torch.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
values, indices = x.max(0)
out = values.sum()
""",
    "shape_ops": """
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
out = x.t().reshape(6).unsqueeze(0).expand(2, 6).permute(1, 0).sum()
""",
    "no_grad_part": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    c = x * 2
out = (c * x).sum()
""",
    "several_roots": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
out = {"total": (y * x).sum(), "y": y, "twice": x * 2}
""",
    "leaf_and_no_grad_roots": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    n = x * 3
out = [x, n]
""",
}

# The programs whose graphs have the same shape in both libraries (see test_viz_structure's COPY_SLICES).
MATCHING_PROGRAMS = [name for name in PROGRAMS if name != "view_in_place"]


def run(lib, code):
    """The namespace ``code`` leaves behind, run with ``torch`` bound to ``lib``, without creation sites (torch's
    nodes have none to compare with; tests of the sites make their graphs directly)."""
    namespace = {"torch": lib}
    set_provenance_enabled(False)
    try:
        exec(compile(code, "<program>", "exec"), namespace)
    finally:
        set_provenance_enabled(True)
    return namespace


def both(name):
    """(torch's namespace, ndgrad's namespace) after running the program ``name``."""
    return run(torch, PROGRAMS[name]), run(ndgrad, PROGRAMS[name])


def model_of(namespace, **options):
    """The description of the graph behind ``out``, its tensors named by the program's variables."""
    return describe(namespace["out"], namespace, options=Options(**options))


def skeleton(model):
    """What must agree between the two libraries: each box's kind, title and role, each edge's ends and kind."""
    boxes = [(box.kind, box.title, box.role) for box in model.boxes]
    edges = [(edge.source, edge.target, edge.kind, edge.input_nr) for edge in model.edges]
    return boxes, edges
