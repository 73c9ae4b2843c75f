"""Inference tensors: what inference_mode() makes, and what may be done with it outside. Every program runs with
torch and with ndgrad; what it prints (values, flags, each error's class and message) must be the same."""

ATTEMPT = """
def attempt(label, function):
    try:
        print(label, function())
    except Exception as error:
        print(label, type(error).__name__, error)
"""


def test_what_is_an_inference_tensor(same):
    same(ATTEMPT + """
import numpy as np
leaf = torch.ones(3, 2, requires_grad=True)
plain = torch.ones(3, 2)
with torch.inference_mode():
    made = {
        "ones": torch.ones(2), "tensor": torch.tensor([1., 2.]), "arange": torch.arange(3.), "rand": torch.rand(2),
        "from_numpy": torch.from_numpy(np.ones(2)), "op": plain * 2, "op on leaf": leaf * 2, "clone": plain.clone(),
        "to": plain.to(torch.float64), "linear": torch.nn.functional.linear(plain, leaf),
        "view of plain": plain.view(6), "slice of plain": plain[0:2], "detach of plain": plain.detach(),
        "data of plain": plain.data, "unbind of plain": plain.unbind(0)[0],
    }
    t = torch.ones(2)
    inside = {"view": t.view(2), "slice": t[0:1], "t": t.t(), "detach": t.detach(), "data": t.data}
    with torch.inference_mode(False):
        normal = torch.ones(2)
        print("inference_mode(False):", normal.is_inference(), torch.is_grad_enabled())
    with torch.no_grad():
        print("no_grad inside:", torch.ones(1).is_inference())
print({name: (tensor.is_inference(), tensor.requires_grad) for name, tensor in made.items()})
print({name: tensor.is_inference() for name, tensor in inside.items()})
outside = {"view": t.view(2), "slice": t[0:1], "detach": t.detach(), "data": t.data, "exp": t.exp(),
           "clone": t.clone(), "add": t + 1, "ones": torch.ones(1)}
print({name: tensor.is_inference() for name, tensor in outside.items()})
print(torch.is_inference(t), torch.is_inference(plain), t.is_leaf, t.grad_fn, t.requires_grad)
print(t, t.sum().item(), t.numpy(), t.tolist())
""")


def test_nothing_records_inside_inference_mode_even_with_grad_mode_on(same):
    same(ATTEMPT + """
w = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    with torch.enable_grad():
        y = w * 2
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled(), y.requires_grad, y.grad_fn)
        print(y.is_inference())
    with torch.set_grad_enabled(True):
        print(torch.is_grad_enabled(), (w.exp()).requires_grad)
    attempt("backward inside:", lambda: (w * 2).sum().backward())
print(torch.is_grad_enabled(), (w * 2).requires_grad)
""")


def test_in_place_writes_to_an_inference_tensor_only_inside_inference_mode(same):
    same(ATTEMPT + """
with torch.inference_mode():
    t = torch.ones(2, 3)
    t.add_(1)
    t[0, 0] = 5.
    print("inside:", t.tolist())
attempt("add_:", lambda: t.add_(1))
print("the values changed before the error, as in torch:", t.tolist())
attempt("setitem:", lambda: t.__setitem__(0, 0.))
attempt("copy_:", lambda: t.copy_(torch.zeros(2, 3)))
attempt("zero_:", lambda: t.zero_())
attempt("fill_:", lambda: t.fill_(2.))
attempt("clamp_:", lambda: t.clamp_(0, 1))
attempt("a view:", lambda: t[1].mul_(2))
attempt("unsqueeze_:", lambda: t.unsqueeze_(0))
print(t.shape)
with torch.no_grad():
    attempt("under no_grad:", lambda: t.mul_(2))
with torch.inference_mode():
    with torch.inference_mode(False):
        attempt("inference_mode(False):", lambda: t.add_(1))
normal = torch.ones(2, 3)
attempt("a normal tensor from an inference one:", lambda: normal.add_(t[0]))
attempt("a clone:", lambda: t.clone().add_(1))
w = torch.ones(2, requires_grad=True)
w.grad = torch.inference_mode()(torch.ones)(2)
attempt("an inference .grad:", lambda: w.grad.add_(1))
attempt("uniform_:", lambda: t.uniform_())  # last: it fills t with random values before it raises
""")


def test_inference_tensors_have_no_version_but_others_keep_counting_inside(same):
    same(ATTEMPT + """
normal = torch.ones(3)
leaf = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    t = torch.ones(3)
    attempt("inside:", lambda: t._version)
    normal.add_(1)
    normal[0:2].mul_(2)
    leaf.add_(1)  # grad mode is off inside: a leaf may be written, as under no_grad
    leaf[0:1].mul_(3)
attempt("outside:", lambda: t._version)
attempt("a view:", lambda: t[0:1]._version)
print(normal._version, normal.tolist(), leaf._version, leaf.tolist(), leaf.requires_grad)
""")


def test_inference_tensors_cannot_be_saved_for_backward(same):
    same(ATTEMPT + """
with torch.inference_mode():
    t = torch.full((2, 2), 3.)
w = torch.ones(2, 2, requires_grad=True)
attempt("mul saves it:", lambda: w * t)
attempt("matmul saves it:", lambda: w @ t)
attempt("in place:", lambda: (w * 1).mul_(t))
attempt("pow saves it:", lambda: w ** t)
y = w + t  # add saves neither input
attempt("add saves nothing:", lambda: (y.requires_grad, y.is_inference(), y.grad_fn.name()))
attempt("cat:", lambda: torch.cat([w, t]).requires_grad)
attempt("where:", lambda: torch.where(t > 2, w, 0.).requires_grad)
attempt("a clone is a normal tensor:", lambda: (w * t.clone()).grad_fn.name())
y.sum().backward()
print(w.grad)
with torch.no_grad():
    attempt("under no_grad nothing is saved:", lambda: (w * t).is_inference())
with torch.inference_mode():
    with torch.inference_mode(False):
        attempt("inside inference_mode(False):", lambda: w * t)

class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.save_for_backward(factor)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad, None

attempt("save_for_backward:", lambda: Scale.apply(w, t))
""")


def test_requires_grad_on_an_inference_tensor_only_inside_inference_mode(same):
    same(ATTEMPT + """
with torch.inference_mode():
    t = torch.ones(2)
    whole = torch.ones(2, dtype=torch.long)
    inside = torch.ones(2).requires_grad_()
    made = torch.ones(2, requires_grad=True)
print(inside.requires_grad, inside.is_inference(), made.requires_grad, made.is_inference())
attempt("requires_grad_:", lambda: t.requires_grad_())
attempt("requires_grad =:", lambda: setattr(t, "requires_grad", True))
attempt("requires_grad_(False):", lambda: t.requires_grad_(False).requires_grad)
attempt("an integer one:", lambda: whole.requires_grad_())
attempt("Parameter:", lambda: torch.nn.Parameter(t))
attempt("Parameter without grad:", lambda: torch.nn.Parameter(t, requires_grad=False).is_inference())
attempt("a clone:", lambda: t.clone().requires_grad_().is_inference())
""")


def test_views_made_in_inference_mode_of_tensors_that_require_grad(same):
    same(ATTEMPT + """
leaf = torch.ones(3, requires_grad=True)
nonleaf = torch.ones(3, requires_grad=True) * 1
with torch.inference_mode():
    of_leaf, of_nonleaf = leaf[0:2], nonleaf[0:2]
    inside = nonleaf[1:]
    inside.add_(1)
print(of_leaf.is_inference(), of_nonleaf.is_inference(), nonleaf.tolist())
attempt("a view of a leaf:", lambda: of_leaf.add_(1))
attempt("a view of a non-leaf:", lambda: of_nonleaf.add_(1))
with torch.no_grad():
    attempt("under no_grad:", lambda: of_nonleaf.add_(1).tolist())
with torch.no_grad():
    no_grad_view = leaf[0:2]
attempt("a no_grad view of a leaf:", lambda: no_grad_view.add_(1))
attempt("a normal view of a leaf:", lambda: leaf[0:2].add_(1))
""")
