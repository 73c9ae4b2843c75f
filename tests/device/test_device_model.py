"""The device model against torch: device objects, ndgrad.cuda and the errors of a machine without a GPU (where
CPU-only torch is the oracle), then what a GPU tensor does, on the stand-in GPU, as PyTorch's CUDA tensors do."""

import copy
import importlib.util
import io
import pickle
import warnings

import numpy as np
import pytest
import torch
from tests.closeness import assert_close

import ndgrad
from ndgrad.testing import _fake_cuda, fake_cuda


def outcome(function):
    """(value, None) or (None, (exception type name, message)): what calling ``function`` does."""
    try:
        return function(), None
    except Exception as error:  # noqa: BLE001 - the error is the result being compared
        return None, (type(error).__name__, str(error).replace("torch.", "ndgrad."))


# ---- devices and ndgrad.cuda without a GPU: CPU-only torch is the oracle ----------------------------------------
DEVICE_ARGUMENTS = [
    ("cpu",), ("cuda",), ("cuda:0",), ("cuda:1",), ("cpu:0",), ("cuda", 1), ("cuda", None), ("cuda:x",),
    ("cuda:-1",), ("cuda:0:1",), ("gpu",), ("CUDA",), ("cuda:1", 2), ("cuda", -2), ("cuda:01",),
    ("cuda1",), ("float32",), ("Cuda",), (1,), (0,),
    # PyTorch's own parser: its device types, an empty string, wrong types, numbers too large
    ("meta",), ("mps:1",), ("xla", 0), ("",), ("", 0), ("gpu:0",), ("cu da",), ("cpu ",), (None,), (1.5,),
    (True,), ("cpu", "x"), ("cpu", 1.5), ("cpu", True), ("cpu", 2**63), (-1,), (2**63,), ("cuda:99999999999",),
]


# With CuPy installed, ndgrad has CUDA while the oracle (a CPU build of torch) does not: nothing to compare.
without_cuda = pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")


@pytest.mark.parametrize("arguments", DEVICE_ARGUMENTS, ids=str)
def test_device_objects_match_torch(arguments):
    ours, ours_error = outcome(lambda: ndgrad.device(*arguments))
    theirs, their_error = outcome(lambda: torch.device(*arguments))
    assert ours_error == their_error
    if theirs is not None:
        assert (repr(ours), str(ours), ours.type, ours.index) == (repr(theirs), str(theirs), theirs.type, theirs.index)
        assert (ours == ndgrad.device("cuda:0"), ours == str(ours)) == (theirs == torch.device("cuda:0"),
                                                                         theirs == str(theirs))
        assert pickle.loads(pickle.dumps(ours)) == ours and hash(ours) == hash(ndgrad.device(ours))


CPU_ONLY_CALLS = [
    "lib.cuda.is_available()", "lib.cuda.device_count()", "lib.cuda.is_initialized()", "lib.cuda.manual_seed(1)",
    "lib.cuda.manual_seed_all(1)", "lib.cuda.current_device()", "lib.cuda.synchronize()",
    "lib.cuda.get_device_name()", "lib.zeros(2, device='cuda')", "lib.ones(2).cuda()", "lib.ones(2).to('cuda')",
    "lib.ones(2).to(device='cuda:1')", "lib.tensor([1.0], device='cuda')", "lib.randn(2, device='cuda')",
    "lib.nn.Linear(2, 2).cuda()", "lib.ones(2).is_cuda", "lib.ones(2).to('cpu', lib.float64, True, True).dtype",
    "lib.get_default_device()",
]


@without_cuda
@pytest.mark.parametrize("call", CPU_ONLY_CALLS)
def test_without_a_gpu_as_cpu_only_torch(call):
    ours, ours_error = outcome(lambda: eval(call, {"lib": ndgrad}))
    theirs, their_error = outcome(lambda: eval(call, {"lib": torch}))
    assert ours_error == their_error
    assert str(ours).replace("ndgrad", "torch") == str(theirs)


@without_cuda
def test_pin_memory_is_accepted_and_warns_without_a_gpu_as_torch_does():
    def warned(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = [b.tolist() for b in lib.utils.data.DataLoader(lib.arange(4), batch_size=2, pin_memory=True)]
        return batches, [str(w.message) for w in caught]

    assert warned(ndgrad) == warned(torch)
    with fake_cuda(), warnings.catch_warnings():
        warnings.simplefilter("error")  # a GPU is there: nothing to warn about
        assert warned(ndgrad)[0] == [[0, 1], [2, 3]]


def test_to_overloads_match_torch():
    for lib in (ndgrad, torch):
        t, other = lib.ones(2), lib.zeros(1, dtype=lib.float64)
        results = [
            t.to("cpu") is t, t.to("cpu", copy=True) is t, t.to(lib.device("cpu"), non_blocking=True) is t,
            t.to(other, True, True).dtype, t.to(lib.float32, copy=True) is t, t.to("cpu", None) is t,
            t.to(None) is t, t.to(dtype=lib.int64).dtype, t.cpu() is t,
        ]
        if lib is ndgrad:
            ours = results
    assert [str(r).replace("ndgrad", "torch") for r in ours] == [str(r) for r in results]


# ---- a GPU tensor, on the stand-in GPU -------------------------------------------------------------------------
@pytest.fixture
def gpu():
    with fake_cuda():
        yield


def on_gpu(tensor):
    return type(tensor._data) is _fake_cuda.ndarray


def test_the_cuda_module_on_a_gpu(gpu):
    assert ndgrad.cuda.is_available() and ndgrad.cuda.is_initialized() and ndgrad.cuda.device_count() == 2
    assert ndgrad.cuda.current_device() == 0 and ndgrad.cuda.get_device_name(1) == "ndgrad stand-in GPU"
    ndgrad.cuda.synchronize()
    ndgrad.cuda.set_device(1)
    try:
        assert ndgrad.ones(1, device="cuda").device == ndgrad.device("cuda:1") == ndgrad.ones(1).cuda().device
    finally:
        ndgrad.cuda.set_device(0)
    with pytest.raises(RuntimeError, match="^CUDA error: invalid device ordinal$"):
        ndgrad.zeros(1, device="cuda:2")


FACTORIES = [
    "zeros(2, 3)", "ones(2, 3)", "full((2,), 1.5)", "eye(3)", "arange(5)", "linspace(0, 1, 5)", "tensor([[1, 2]])",
    "rand(3)", "randn(3)", "randint(0, 9, (4,))", "randperm(5)", "normal(0.0, 1.0, (3,))",
    "as_tensor(np.arange(3.0))", "FloatTensor([1, 2])",
]


@pytest.mark.parametrize("call", FACTORIES)
def test_factories_make_the_same_values_on_the_gpu(gpu, call):
    def make(device):
        ndgrad.manual_seed(3)  # the GPU's random numbers are the cpu generator's, copied over
        if call.startswith("FloatTensor"):
            return eval(f"ndgrad.{call[:-1]}, device={device!r})", {"ndgrad": ndgrad, "np": np})
        if call.startswith("as_tensor"):
            return ndgrad.as_tensor(np.arange(3.0), device=device)
        return eval(f"ndgrad.{call[:-1]}, device={device!r})", {"ndgrad": ndgrad, "np": np})

    cpu, cuda = make("cpu"), make("cuda")
    assert on_gpu(cuda) and cuda.device == ndgrad.device("cuda:0") and cuda.dtype is cpu.dtype
    assert cuda.tolist() == cpu.tolist()


def test_like_and_new_keep_the_device_and_dtype(gpu):
    x = ndgrad.ones(2, dtype=ndgrad.float64, device="cuda:1")
    made = [ndgrad.zeros_like(x), ndgrad.ones_like(x), ndgrad.full_like(x, 2), ndgrad.empty_like(x),
            ndgrad.rand_like(x), ndgrad.randn_like(x), x.new_zeros(3), x.new_ones(1, 2), x.new_full((2,), 5),
            x.new_empty(4), x.new_tensor([1, 2])]
    assert all(t.device == x.device and t.dtype is ndgrad.float64 and on_gpu(t) for t in made)
    assert ndgrad.zeros_like(x, device="cpu").device == ndgrad.device("cpu")


def test_repr_copies_to_the_host_and_names_the_device(gpu):
    values = np.array([[1.5, -2.0], [3.25, 4.0]], dtype=np.float32)
    expected = repr(torch.tensor(values, requires_grad=True) * 2)
    ours = ndgrad.tensor(values, device="cuda", requires_grad=True) * 2
    suffix = ", device='cuda:0', grad_fn=<MulBackward0>)"
    assert repr(ours).replace("ndgrad", "torch") == expected.replace(", grad_fn=<MulBackward0>)", suffix)
    ndgrad.set_default_device("cuda")  # as in torch: a tensor on the default device type does not name it
    try:
        assert repr(ours.detach()) == repr(torch.tensor(values) * 2)
    finally:
        ndgrad.set_default_device(None)


def test_reading_values_back(gpu):
    x = ndgrad.tensor([[1.5, 2.0]], device="cuda")
    assert (x.tolist(), x[0, 1].item(), float(x[0, 0]), bool(x[0, 0] > 1), x.sum() == 3.5) == (
        [[1.5, 2.0]], 2.0, 1.5, True, True)
    with pytest.raises(TypeError, match=r"^can't convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\) "
                                        r"to copy the tensor to host memory first\.$"):
        x.requires_grad_().numpy()  # the device is checked before requires_grad, as in torch
    with pytest.raises(TypeError):
        np.asarray(x.detach())
    np.testing.assert_array_equal(x.detach().cpu().numpy(), [[1.5, 2.0]])


def test_mixing_devices_is_refused_but_0d_cpu_tensors_join(gpu):
    a, b = ndgrad.ones(2, device="cuda"), ndgrad.ones(2)
    message = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
    for left, right in ((a, b), (b, a)):
        with pytest.raises(RuntimeError, match=f"^{message.format('cuda:0', 'cpu')}$"):
            left + right
    with pytest.raises(RuntimeError, match=f"^{message.format('cuda:1', 'cuda:0')}$"):
        ndgrad.ones(2, device="cuda:1") * a
    for array_parameter in (lambda: a.index_select(0, ndgrad.tensor([1])), lambda: ndgrad.where(b > 0, a, 0.0)):
        with pytest.raises(RuntimeError, match=f"^{message.format('cuda:0', 'cpu')}$"):
            array_parameter()
    assert a[ndgrad.tensor([1, 0])].device == a.device  # indexing with cpu indices is allowed, as in PyTorch
    for result in (a + ndgrad.tensor(2.0), ndgrad.tensor(2.0) * a, ndgrad.where(a > 0, ndgrad.tensor(5.0), a)):
        assert on_gpu(result) and result.tolist() == [result.tolist()[0]] * 2


def test_to_moves_and_converts(gpu):
    x = ndgrad.tensor([1.0, 2.0])
    y = x.to("cuda")
    assert on_gpu(y) and y.to("cuda") is y and y.to("cuda:0") is y and y.cuda() is y and y.to(y) is y
    assert y.to("cuda", copy=True) is not y and y.to(0) is y
    z = y.to("cuda:1", ndgrad.float64)
    assert z.device == ndgrad.device("cuda:1") and z.dtype is ndgrad.float64 and z.tolist() == [1.0, 2.0]
    assert y.to(ndgrad.ones(1, device="cuda:1")).device == ndgrad.device("cuda:1")
    back = z.cpu()
    assert type(back._data) is np.ndarray and back.tolist() == [1.0, 2.0]


def test_backward_runs_on_the_device_and_grads_land_on_the_leaves_device(gpu):
    w_cpu = ndgrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w_gpu = ndgrad.tensor([0.5, 0.25, 2.0], device="cuda", requires_grad=True)
    loss = (w_cpu.cuda() * w_gpu).exp().sum()
    loss.backward()
    assert type(w_cpu.grad._data) is np.ndarray and on_gpu(w_gpu.grad)
    ref_cpu = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    ref_gpu = torch.tensor([0.5, 0.25, 2.0], requires_grad=True)
    (ref_cpu * ref_gpu).exp().sum().backward()
    assert_close(w_cpu.grad, ref_cpu.grad)
    assert_close(w_gpu.grad, ref_gpu.grad)
    (g,) = ndgrad.autograd.grad((w_gpu * w_gpu).sum(), w_gpu, create_graph=True)
    (gg,) = ndgrad.autograd.grad(g.sum(), w_gpu)
    assert on_gpu(g) and on_gpu(gg) and gg.tolist() == [2.0, 2.0, 2.0]


def test_ops_on_the_second_gpu_make_their_constants_there(gpu):
    """Ops that create arrays (diag_embed's zeros, inv's identity, det's backward) while GPU 0 is current: the
    stand-in refuses arrays from two GPUs in one call, as CuPy does."""
    values = np.array([[2.0, 1.0], [0.5, 3.0]])
    x = ndgrad.tensor(values, device="cuda:1", requires_grad=True)
    out = ndgrad.linalg.inv(x).diag_embed().sum() + ndgrad.linalg.det(x)
    out.backward()
    assert out.device == x.grad.device == ndgrad.device("cuda:1") and on_gpu(x.grad)
    ref = torch.tensor(values, requires_grad=True)
    (torch.linalg.inv(ref).diag_embed().sum() + torch.linalg.det(ref)).backward()
    assert_close(x.grad, ref.grad)


def test_a_seed_gradient_on_another_device(gpu):
    y = ndgrad.ones(2, device="cuda", requires_grad=True) * 3
    with pytest.raises(RuntimeError, match=r"^invalid gradient at index 0 - expected device cuda:0 but got cpu$"):
        y.backward(ndgrad.ones(2))
    z = (y * 1).sum()
    z.backward(ndgrad.tensor(2.0))  # a 0-d seed is moved, as PyTorch's engine does


def test_pickle_deepcopy_save_and_load_keep_the_device(gpu):
    x = ndgrad.arange(6.0, device="cuda:1").reshape(2, 3).requires_grad_()
    assert pickle.loads(pickle.dumps(x)).device == x.device == copy.deepcopy(x).device
    view = x.detach()[:, 1]
    buffer = io.BytesIO()
    ndgrad.save({"x": x, "view": view}, buffer)
    for map_location, where in ((None, "cuda:1"), ("cpu", "cpu"), ({"cuda:1": "cuda:0"}, "cuda:0")):
        buffer.seek(0)
        loaded = ndgrad.load(buffer, map_location=map_location)
        assert loaded["x"].device == ndgrad.device(where) == loaded["view"].device
        loaded["x"].data[0, 1] = 100  # the view still looks into the same memory
        assert loaded["view"].tolist() == [100.0, 4.0]


def test_module_to_keeps_parameter_identity_and_optimizers_train_on_the_device(gpu):
    def train(device, optimizer_class):
        ndgrad.manual_seed(0)
        model = ndgrad.nn.Sequential(ndgrad.nn.Linear(3, 4), ndgrad.nn.Tanh(), ndgrad.nn.Linear(4, 1))
        params = list(model.parameters())
        model.to(device)
        assert [id(p) for p in model.parameters()] == [id(p) for p in params]
        optimizer = optimizer_class(model.parameters(), lr=0.1)
        x = ndgrad.linspace(-1, 1, 15, device=device).reshape(5, 3)
        for _ in range(3):
            optimizer.zero_grad()
            model(x).square().mean().backward()
            optimizer.step()
        tensors = [t for state in optimizer.state.values() for t in state.values() if isinstance(t, ndgrad.Tensor)]
        return [p.detach().cpu().tolist() for p in model.parameters()], tensors

    optim = ndgrad.optim
    for optimizer_class in (optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad, optim.Adadelta,
                            optim.Adamax, optim.NAdam, optim.RAdam):
        expected, _ = train("cpu", optimizer_class)
        got, state = train("cuda", optimizer_class)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6, err_msg=optimizer_class.__name__)
        # moment buffers live with the parameters; torch keeps the 'step' counters on the cpu
        assert all(on_gpu(t) for t in state if t.ndim), optimizer_class.__name__


def test_module_cuda_and_cpu(gpu):
    model = ndgrad.nn.Linear(2, 2)
    model.weight.grad = ndgrad.ones(2, 2)
    model.cuda()
    assert on_gpu(model.weight) and on_gpu(model.weight.grad) and model.weight.is_cuda
    model.cpu()
    assert type(model.bias._data) is np.ndarray and type(model.weight.grad._data) is np.ndarray
