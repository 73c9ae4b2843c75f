"""autocast against torch: the dtype each op computes in, nesting and disabling, threads, the weight cache,
gradients back to the float32 leaves, custom Functions, and torch's warnings and errors."""

import threading
import warnings

import numpy as np
import pytest
import torch

import ndgrad

SETUP = """
import numpy as np
rng = np.random.default_rng(0)
def T(*shape):
    return torch.tensor(rng.standard_normal(shape).astype(np.float32))
a, b, v, w, b3, c3 = T(3, 3), T(3, 3), T(3), T(3), T(2, 3, 3), T(2, 3, 3)
h = a.half()
F = torch.nn.functional
"""

# expression -> what torch's CPU autocast makes of it: its lower-precision ops, its float32 ops (given float16
# inputs), and ops on neither list, which run as they are
DTYPE_CASES = [
    "torch.mm(a, b)", "torch.matmul(b3, a)", "a @ b", "a.mm(b)", "torch.bmm(b3, c3)", "torch.addmm(a, a, b)",
    "a.addmm(a, b)", "torch.addbmm(a, b3, c3)", "torch.baddbmm(b3, b3, c3)", "torch.matmul(v, w)", "torch.matmul(a, v)",
    "F.linear(a, b)", "F.linear(b3, a, v)", "torch.nn.Linear(3, 2)(a)", "F.conv1d(T(1, 2, 5), T(3, 2, 2))",
    "F.conv2d(T(1, 2, 5, 5), T(3, 2, 2, 2), T(3))", "F.conv3d(T(1, 1, 3, 3, 3), T(1, 1, 2, 2, 2))",
    "F.conv_transpose1d(T(1, 2, 5), T(2, 3, 2))", "F.conv_transpose2d(T(1, 2, 4, 4), T(2, 3, 2, 2))",
    "F.conv_transpose3d(T(1, 1, 3, 3, 3), T(1, 1, 2, 2, 2))", "torch.nn.Conv2d(2, 3, 2)(T(1, 2, 4, 4))",
    "F.prelu(a, torch.ones(1))", "torch.linalg.vecdot(a, b)", "F.scaled_dot_product_attention(b3, c3, c3)",
    "torch.tensordot(a, b, dims=1)", "torch.linalg.multi_dot([a, b, a])",
    "torch.nn.MultiheadAttention(3, 1, batch_first=True)(b3, b3, b3)[0]",
    # float32 ops
    "F.mse_loss(h, b)", "F.cross_entropy(h, torch.tensor([0, 1, 2]))", "F.nll_loss(h, torch.tensor([0, 1, 2]))",
    "F.binary_cross_entropy_with_logits(h, b.sigmoid())", "F.binary_cross_entropy(h.sigmoid(), b.sigmoid())",
    "F.kl_div(h, b, reduction='sum')", "F.l1_loss(h, b)", "F.smooth_l1_loss(h, b)", "F.huber_loss(h, b)",
    "torch.cdist(h, h)", "torch.trace(h)", "h.trace()", "torch.prod(h)", "h.prod(0)",
    # on neither list: as they are
    "torch.addmv(v, a, w)", "torch.mv(a, v)", "torch.dot(v, w)", "torch.outer(v, w)", "torch.exp(a)", "a + b",
    "torch.softmax(a, 0)", "h.sum()", "torch.cat([h, a])", "F.layer_norm(h, (3,))", "h.cumsum(0)",
    "torch.convolution(T(1, 1, 4, 4), T(1, 1, 2, 2), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)",
    # float64 tensors are not cast, integer ones neither
    "torch.mm(a.double(), b.double())", "torch.mm(a.int(), b.int())",
]


@pytest.mark.parametrize("expression", DTYPE_CASES)
def test_dtype_under_cpu_autocast_is_torchs(same, expression):
    same(SETUP + f"with torch.autocast('cpu', dtype=torch.float16):\n    print(({expression}).dtype)")


def test_outside_autocast_ops_keep_their_dtype(same):
    same(SETUP + "with torch.autocast('cpu', dtype=torch.float16):\n    pass\nprint(torch.mm(a, b).dtype, "
         "F.linear(a, b).dtype)")


def test_nested_and_disabled_regions_restore_the_state(same):
    same(SETUP + """
def state():
    return torch.is_autocast_enabled('cpu'), torch.get_autocast_dtype('cpu'), torch.mm(a, b).dtype
print(torch.is_autocast_enabled('cpu'), torch.mm(a, b).dtype)
with torch.autocast('cpu', dtype=torch.float16):
    print(state())
    with torch.autocast('cpu', enabled=False):
        print(state())
        print(torch.mm(a, torch.mm(a, b).float()).dtype)
        with torch.autocast('cpu', dtype=torch.float16):
            print(state())
        print(state())
    print(state())
print(torch.is_autocast_enabled('cpu'), torch.mm(a, b).dtype, torch.is_autocast_enabled())
""")


def test_an_error_inside_the_region_still_restores_the_state(same):
    same(SETUP + """
try:
    with torch.autocast('cpu', dtype=torch.float16):
        raise KeyError('inside')
except KeyError:
    pass
print(torch.is_autocast_enabled('cpu'), torch.mm(a, b).dtype)
""")


def test_decorator_and_aliases(same):
    same(SETUP + """
@torch.autocast('cpu', dtype=torch.float16)
def forward(x):
    return torch.mm(x, x)
print(forward(a).dtype, torch.mm(a, a).dtype, torch.autocast is torch.amp.autocast)
with torch.amp.autocast(device_type='cpu', dtype=torch.float16):
    print(torch.mm(a, a).dtype)
with torch.cpu.amp.autocast(dtype=torch.float16):
    print(torch.mm(a, a).dtype, torch.is_autocast_enabled('cpu'))
print(torch.amp.is_autocast_available('cpu'), torch.amp.is_autocast_available('cuda'))
print(torch.amp.is_autocast_available('meta'), torch.amp.is_autocast_available('cuda:0'))
""")


def test_state_functions(same):
    same(SETUP + """
print(torch.get_autocast_dtype('cuda'), torch.is_autocast_cache_enabled())
torch.set_autocast_enabled('cpu', True)
torch.set_autocast_dtype('cpu', torch.float16)
print(torch.is_autocast_enabled('cpu'), torch.mm(a, b).dtype)
torch.set_autocast_enabled('cpu', False)
print(torch.mm(a, b).dtype, torch.get_autocast_dtype('cpu'))
print(torch.autocast_increment_nesting(), torch.autocast_decrement_nesting())
torch.clear_autocast_cache()
with torch.autocast('cpu', dtype=torch.float16, cache_enabled=False):
    print(torch.is_autocast_cache_enabled())
print(torch.is_autocast_cache_enabled())
""")


def test_autocast_state_is_per_thread():
    """A thread started inside a region does not autocast, and its own region does not leak into the caller."""
    a = ndgrad.randn(3, 3)
    seen = {}

    def worker():
        seen["start"] = ndgrad.is_autocast_enabled("cpu"), ndgrad.mm(a, a).dtype
        with ndgrad.autocast("cpu", dtype=ndgrad.float16):
            seen["inside"] = ndgrad.mm(a, a).dtype
            barrier.wait()
            barrier.wait()

    barrier = threading.Barrier(2)
    with ndgrad.autocast("cpu", dtype=ndgrad.float16):
        thread = threading.Thread(target=worker)
        thread.start()
    barrier.wait()  # the worker's region is open, the main thread's closed
    main = ndgrad.is_autocast_enabled("cpu"), ndgrad.mm(a, a).dtype
    barrier.wait()
    thread.join()
    assert seen == {"start": (False, ndgrad.float32), "inside": ndgrad.float16}
    assert main == (False, ndgrad.float32)


def test_cast_nodes_and_the_weight_cache(same):
    same(SETUP + """
weight = T(3, 3).requires_grad_()
for cache in (True, False):
    with torch.autocast('cpu', dtype=torch.float16, cache_enabled=cache):
        first, second = torch.mm(a, weight), torch.mm(a, weight)
        view = torch.mm(a, weight[:2].t())
    cast = first.grad_fn.next_functions[1][0]
    print(type(first.grad_fn).__name__, type(cast).__name__, first.grad_fn.next_functions[0][0])
    print(cast is second.grad_fn.next_functions[1][0], type(view.grad_fn.next_functions[1][0]).__name__)
with torch.autocast('cpu', dtype=torch.float16):
    again = torch.mm(a, weight)
print(again.grad_fn.next_functions[1][0] is cast)
linear = torch.nn.Linear(3, 2)
with torch.autocast('cpu', dtype=torch.float16):
    out = linear(a)
print(type(out.grad_fn).__name__, [type(n).__name__ for n, _ in out.grad_fn.next_functions])
""")


def _train_step(lib, dtype):
    """A Linear + conv1d model on fixed weights, forward under autocast, loss and backward outside it."""
    rng = np.random.default_rng(1)
    weight = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32), requires_grad=True)
    bias = lib.tensor(rng.standard_normal(4).astype(np.float32), requires_grad=True)
    kernel = lib.tensor(rng.standard_normal((2, 1, 3)).astype(np.float32), requires_grad=True)
    x = lib.tensor(rng.standard_normal((5, 6)).astype(np.float32))
    if dtype is not None:
        weight, bias, kernel, x = (t.detach().to(dtype).requires_grad_(t.requires_grad)
                                   for t in (weight, bias, kernel, x))
        context = lib.autocast("cpu", enabled=False)
    else:
        context = lib.autocast("cpu", dtype=lib.float16)
    with context:
        hidden = lib.nn.functional.linear(x, weight, bias).tanh()
        out = lib.nn.functional.conv1d(hidden.unsqueeze(1), kernel)
        loss = lib.nn.functional.mse_loss(out, lib.ones_like(out)) if dtype is None else (out - 1).pow(2).mean()
    loss.backward()
    return loss, [weight.grad, bias.grad, kernel.grad]


def test_gradients_come_back_to_float32_leaves_with_torchs_values():
    ours, theirs = _train_step(ndgrad, None), _train_step(torch, None)
    exact = _train_step(torch, torch.float64)  # the float64 oracle
    assert ours[0].dtype is ndgrad.float32 and theirs[0].dtype is torch.float32
    for grad, torch_grad, exact_grad in zip(ours[1], theirs[1], exact[1]):
        assert str(grad.dtype).split(".")[-1] == str(torch_grad.dtype).split(".")[-1] == "float32"
        # float16 products carry ~1e-3 relative error: both libraries are that close to float64, and to each other
        np.testing.assert_allclose(grad.numpy(), exact_grad.numpy(), rtol=2e-2, atol=2e-2)
        np.testing.assert_allclose(grad.numpy(), torch_grad.numpy(), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(ours[0].item(), exact[0].item(), rtol=1e-2)


CUSTOM_FUNCTION = SETUP + """
class Product(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type='cpu', cast_inputs=CAST)
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        print('forward', x.dtype, y.dtype, torch.is_autocast_enabled('cpu'), torch.mm(x, y).dtype)
        return torch.mm(x, y)

    @staticmethod
    @torch.amp.custom_bwd(device_type='cpu')
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        print('backward', grad.dtype, torch.is_autocast_enabled('cpu'))
        return torch.mm(grad, y.t()), torch.mm(x.t(), grad)

x = T(3, 3).requires_grad_()
with torch.autocast('cpu', dtype=torch.float16):
    out = Product.apply(x, b)
print(out.dtype)
out.float().sum().backward()
print(x.grad.dtype)
out = Product.apply(x, b)
"""


@pytest.mark.parametrize("cast", ["None", "torch.float32", "torch.float16"])
def test_custom_fwd_and_custom_bwd(same, cast):
    same(CUSTOM_FUNCTION.replace("CAST", cast))


ERRORS = [
    "torch.autocast('xyz')", "torch.autocast(3)", "torch.autocast('meta')",
    "torch.autocast('cpu', dtype=torch.float16)(3)", "torch.set_autocast_enabled('cpu', 1)",
    "torch.set_autocast_enabled('cpu')", "torch.is_autocast_enabled(3)", "torch.is_autocast_enabled('xyz')",
    "torch.is_autocast_enabled('meta')", "torch.get_autocast_dtype('meta')", "torch.clear_autocast_cache(1)",
    "torch.amp.custom_fwd(lambda ctx: 0)", "torch.amp.custom_fwd(device_type=3)", "torch.amp.custom_bwd(device_type=3)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_are_torchs(same, code):
    same(f"{code}\n")


WARNINGS = [
    "print(torch.autocast('cpu', dtype=torch.float32)._enabled)",
    "print(torch.autocast('cpu', dtype=torch.float64)._enabled)",
    "print(torch.autocast('cpu', dtype=torch.float32, enabled=False)._enabled)",
    "print(torch.autocast('cuda')._enabled)",
    "print(torch.autocast('cuda', enabled=False)._enabled)",
    "print(torch.cuda.amp.autocast()._enabled)",
    "print(torch.cpu.amp.autocast(dtype=torch.float16)._enabled)",
    "print(callable(torch.cuda.amp.custom_fwd(lambda ctx: 0)))",
    "print(callable(torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)))",
    "print(callable(torch.cuda.amp.custom_bwd(lambda ctx: 0)))",
    """a = torch.ones(2, 2)
with torch.autocast('cuda'):
    print(torch.mm(a, a).dtype, torch.is_autocast_enabled('cuda'))""",
]


@pytest.mark.skipif(ndgrad.cuda.is_available(), reason="torch's warnings for a machine without CUDA")
@pytest.mark.parametrize("code", WARNINGS)
def test_warnings_are_torchs(same, code):
    same(code + "\n")


@pytest.mark.parametrize("call", [
    "is_autocast_cpu_enabled()", "get_autocast_cpu_dtype()", "get_autocast_gpu_dtype()",
    "set_autocast_cpu_enabled(False)", "set_autocast_cpu_dtype(torch.float16)", "set_autocast_gpu_dtype(torch.float16)",
])
def test_legacy_functions_warn_deprecated_as_torch(run, call):
    """run_snippet leaves DeprecationWarnings out (NumPy's about torch's arrays), so these are caught here."""
    def caught(lib):
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            result = run(lib, f"print(torch.{call})\n")
        return result.stdout, [str(r.message).replace("torch.", "ndgrad.").split(" (Triggered")[0] for r in records
                               if issubclass(r.category, DeprecationWarning)]

    torch.set_autocast_dtype("cpu", torch.float16)  # bfloat16, the default, may be missing in ndgrad
    ndgrad.set_autocast_dtype("cpu", ndgrad.float16)
    try:
        assert caught(ndgrad) == caught(torch)
    finally:
        torch.set_autocast_dtype("cpu", torch.bfloat16)
        if hasattr(ndgrad, "bfloat16"):
            ndgrad.set_autocast_dtype("cpu", ndgrad.bfloat16)
        else:
            ndgrad._autocast.STATE.dtypes.pop("cpu", None)  # back to the default, bfloat16, that ndgrad lacks here
        torch.set_autocast_dtype("cuda", torch.float16)
        ndgrad.set_autocast_dtype("cuda", ndgrad.float16)


@pytest.mark.skipif(not hasattr(ndgrad, "bfloat16"), reason="bfloat16 needs ml_dtypes")
def test_bfloat16_is_the_cpu_default(same):
    same(SETUP + """
print(torch.get_autocast_dtype('cpu'))
with torch.autocast('cpu'):
    print(torch.mm(a, b).dtype, F.linear(a, b).dtype, F.mse_loss(a.bfloat16(), b).dtype)
with torch.cpu.amp.autocast():
    print(torch.mm(a, b).dtype)
""")


@pytest.mark.skipif(hasattr(ndgrad, "bfloat16"), reason="with ml_dtypes, bfloat16 is there")
def test_without_bfloat16_the_cpu_default_says_what_is_missing():
    for make in (lambda: ndgrad.autocast("cpu"), lambda: ndgrad.get_autocast_dtype("cpu")):
        with pytest.raises(RuntimeError, match="bfloat16 needs the optional ml_dtypes package"):
            make()
    with pytest.raises(RuntimeError, match="ml_dtypes"), pytest.warns(FutureWarning):
        ndgrad.cpu.amp.autocast()
    with ndgrad.autocast("cpu", enabled=False):  # a disabled region needs no dtype
        assert not ndgrad.is_autocast_enabled("cpu")
    assert ndgrad.amp.is_autocast_available("cpu")


@pytest.mark.parametrize("call", [
    lambda lib: lib.set_autocast_cache_enabled(True, False), lambda lib: lib.set_autocast_cache_enabled(1),
    lambda lib: lib.set_autocast_cache_enabled(enabled=True), lambda lib: lib.set_autocast_cpu_dtype(),
    lambda lib: lib.set_autocast_cpu_dtype(1), lambda lib: lib.set_autocast_gpu_dtype(lib.float16, out=1),
    lambda lib: lib.set_autocast_cpu_enabled("yes"), lambda lib: lib.is_autocast_enabled("cpu", dtype=1),
])
def test_the_one_argument_setters_refuse_as_torchs(call):
    """torch writes these in C taking one argument (METH_O) and checks its type itself."""
    from tests.ops.errors import raised

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert raised(call, ndgrad) == raised(call, torch) is not None
