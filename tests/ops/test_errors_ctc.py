"""F.ctc_loss (ndgrad.ops.ctc) against torch where the op table cannot reach: bad arguments (the exception type and
message), the reductions and unbatched input (their grad_fn is another op's), tensor lengths, infinite losses with
and without zero_infinity, and the double backward that neither library defines."""

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad

from .composites import assert_like_torch
from .errors import assert_raises_like_torch

LP = "lib.randn(7, 2, 5).log_softmax(2)"
T = "lib.tensor([[1, 2, 2], [3, 1, 0]])"
ERRORS = [
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [3])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [8, 6], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, -1], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [4, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [-1, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [3, 2], blank=5)",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [3, 2], blank=-1)",
    f"lib.nn.functional.ctc_loss({LP}, {T}, [7, 6], [3, 2], reduction='avg')",
    f"lib.nn.functional.ctc_loss({LP}, lib.tensor([1, 2, 2, 3]), [7, 6], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}[:1], [7, 6], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}[None], [7, 6], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}[None], {T}, [7, 6], [3, 2])",
    f"lib.nn.functional.ctc_loss({LP}, {T}, lib.tensor([7.0, 6.0]), lib.tensor([3, 2]))",
    f"lib.nn.functional.ctc_loss({LP}.long(), {T}, [7, 6], [3, 2])",
]


@pytest.mark.parametrize("call", ERRORS)
def test_error_matches_torch(call):
    assert_raises_like_torch(call)


def ctc(*lengths, **kwargs):
    def call(lib, x, targets):
        input_lengths, target_lengths = (lib.tensor(n) if kwargs.get("tensors") else n for n in lengths)
        options = {k: v for k, v in kwargs.items() if k != "tensors"}
        return lib.nn.functional.ctc_loss(x.log_softmax(-1), targets, input_lengths, target_lengths, **options)
    return call


RNG = np.random.default_rng(0)
PADDED = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 1]])
FORMS = [
    ("mean", RNG.uniform(-2, 2, (6, 3, 5)), PADDED, ctc([6, 5, 6], [3, 2, 3])),
    ("sum", RNG.uniform(-2, 2, (6, 3, 5)), PADDED, ctc([6, 5, 6], [3, 2, 0], reduction="sum")),
    ("tensor_lengths", RNG.uniform(-2, 2, (6, 3, 5)), PADDED, ctc([6, 5, 6], [3, 2, 1], tensors=True)),
    ("concatenated", RNG.uniform(-2, 2, (6, 3, 5)), np.array([1, 2, 2, 3, 1, 4]), ctc([6, 4, 6], [3, 2, 1])),
    ("unbatched", RNG.uniform(-2, 2, (6, 5)), np.array([1, 3, 3]), ctc([6], [3], reduction="none")),
    ("unbatched_tensors", RNG.uniform(-2, 2, (6, 5)), np.array([1, 3]), ctc(6, 2, tensors=True)),
    ("zero_infinity", RNG.uniform(-2, 2, (6, 3, 5)), PADDED, ctc([6, 5, 3], [3, 2, 3], zero_infinity=True)),
    ("zero_infinity_none", RNG.uniform(-2, 2, (6, 3, 5)), PADDED,
     ctc([6, 5, 3], [3, 2, 3], zero_infinity=True, reduction="none")),
]


@pytest.mark.parametrize(("x", "targets", "call"), [f[1:] for f in FORMS], ids=[f[0] for f in FORMS])
def test_forms_match_torch(x, targets, call):
    """Values, grad_fn and the VJP (torch has neither double backward nor forward mode for ctc_loss)."""
    assert_like_torch(call, x, targets, second=False, forward=False)


def test_impossible_alignment_gives_inf_and_nan_gradients_as_torch():
    x, targets = RNG.uniform(-2, 2, (4, 2, 5)), np.array([[1, 1, 1], [2, 3, 0]])
    results = []
    for lib in (ndgrad, torch):
        leaf = lib.from_numpy(x.copy()).requires_grad_()
        loss = ctc([4, 4], [3, 2], reduction="none")(lib, leaf, lib.from_numpy(targets))
        (grad,) = lib.autograd.grad(loss.sum(), leaf)
        results.append((loss.detach().numpy(), grad.numpy()))
    (ours, our_grad), (theirs, their_grad) = results
    assert np.isinf(theirs[0]) and np.isnan(their_grad[:, 0]).all()
    assert_close(ours, theirs)
    assert_close(our_grad, their_grad)  # NaN where torch has NaN


def test_double_backward_raises_as_torch():
    x = np.log(np.random.default_rng(1).dirichlet(np.ones(3), (4, 2)))
    messages = []
    for lib in (ndgrad, torch):
        leaf = lib.from_numpy(x.copy()).requires_grad_()
        loss = lib.nn.functional.ctc_loss(leaf, lib.tensor([[1, 2], [2, 0]]), [4, 3], [2, 1])
        (grad,) = lib.autograd.grad(loss, leaf, create_graph=True)
        assert type(grad.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as error:
            grad.sum().backward()
        messages.append(str(error.value))
    assert messages[0] == messages[1]
