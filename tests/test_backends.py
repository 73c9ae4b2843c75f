"""ndgrad.backends, ndgrad.accelerator, the device flags of Tensor and ndgrad.cuda's memory counters, against torch's
CPU build on this machine (which has no GPU and ndgrad no CuPy: both report none)."""

import warnings

import pytest
import torch

import ndgrad
import ndgrad.backends.cudnn
import ndgrad.backends.mkldnn

pytestmark = pytest.mark.skipif(ndgrad.cuda.is_available(), reason="compares with torch's CPU build: needs no GPU")

SWITCHES = [  # (backend module's name, switch)
    ("cudnn", "enabled"), ("cudnn", "benchmark"), ("cudnn", "deterministic"), ("cudnn", "allow_tf32"),
    ("mkldnn", "enabled"), ("mkldnn", "deterministic"),
]


def _backend(library, name):
    return getattr(library.backends, name)


def _outcome(function, *args):
    """What a call gives: ("value", result) or ("error", class name, message), and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("value", function(*args))
        except Exception as error:  # noqa: BLE001 - the error is the outcome compared
            outcome = ("error", type(error).__name__, str(error).replace("torch", "ndgrad"))
    return outcome, [(w.category, str(w.message)) for w in caught]


@pytest.fixture
def restored():
    """Put every switch back as it was after a test (they are global, in torch as here)."""
    saved = {(library, *key): getattr(_backend(library, key[0]), key[1])
             for library in (torch, ndgrad) for key in SWITCHES}
    matmul = [library.backends.cuda.matmul.allow_tf32 for library in (torch, ndgrad)]
    yield
    for (library, backend, name), value in saved.items():
        setattr(_backend(library, backend), name, value)
    for library, value in zip((torch, ndgrad), matmul):
        library.backends.cuda.matmul.allow_tf32 = value


@pytest.mark.parametrize("backend, name", SWITCHES)
def test_switches_start_as_torchs_and_read_back_what_was_set(backend, name, restored):
    assert getattr(_backend(ndgrad, backend), name) == getattr(_backend(torch, backend), name)
    for library in (torch, ndgrad):
        setattr(_backend(library, backend), name, not getattr(_backend(library, backend), name))
    assert getattr(_backend(ndgrad, backend), name) == getattr(_backend(torch, backend), name)


@pytest.mark.parametrize("value", [1, 0.0, None, "yes"])
@pytest.mark.parametrize("backend, name", [*SWITCHES, ("cuda.matmul", "allow_tf32"),
                                           ("cuda.matmul", "allow_fp16_reduced_precision_reduction"),
                                           ("cuda.matmul", "allow_bf16_reduced_precision_reduction")])
def test_a_switch_refuses_what_is_not_a_bool_as_torch(backend, name, value, restored):
    def assign(library):
        module = library.backends
        for part in backend.split("."):
            module = getattr(module, part)
        setattr(module, name, value)

    assert _outcome(assign, ndgrad) == _outcome(assign, torch)


@pytest.mark.parametrize("value", [(False,), [True, True], (), (1,)])
def test_reduced_precision_switches_take_a_bool_first_in_a_tuple(value, restored):
    def assign(library):
        library.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = value
        return library.backends.cuda.matmul.allow_fp16_reduced_precision_reduction

    assert _outcome(assign, ndgrad) == _outcome(assign, torch)
    ndgrad.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True


def test_unknown_names_are_refused_as_torch():
    for action in (lambda library: library.backends.cuda.matmul.allow_tf16,
                   lambda library: setattr(library.backends.cuda.matmul, "allow_tf16", True),
                   lambda library: library.backends.cudnn.no_such_switch):
        assert _outcome(action, ndgrad) == _outcome(action, torch)


def test_allow_tf32_and_the_float32_matmul_precision_are_one_setting(restored):
    def sequence(library):
        seen = [library.get_float32_matmul_precision()]
        library.backends.cuda.matmul.allow_tf32 = True
        seen.append(library.get_float32_matmul_precision())
        library.set_float32_matmul_precision("medium")
        seen.append(library.backends.cuda.matmul.allow_tf32)
        library.set_float32_matmul_precision("highest")
        return [*seen, library.backends.cuda.matmul.allow_tf32, library.get_float32_matmul_precision()]

    assert sequence(ndgrad) == sequence(torch)


def test_an_unknown_precision_warns_and_changes_nothing():
    ours, theirs = (_outcome(library.set_float32_matmul_precision, "fastest") for library in (ndgrad, torch))
    assert ours[0] == theirs[0] and ours[1][0][1] == theirs[1][0][1].partition(" (Triggered internally")[0]
    assert ndgrad.get_float32_matmul_precision() == "highest"


def test_cudnn_flags_sets_the_switches_for_a_block(restored):
    def inside(library):
        cudnn = library.backends.cudnn
        with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
            during = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32, cudnn.benchmark_limit)
        return during, (cudnn.enabled, cudnn.benchmark, cudnn.deterministic)

    assert inside(ndgrad) == inside(torch)


@pytest.mark.parametrize("question", [
    "cudnn.is_available", "cudnn.version", "cuda.is_built", "mps.is_available", "mps.is_built",
])
def test_what_is_not_there_is_reported_as_by_torchs_cpu_build(question):
    backend, name = question.split(".")
    assert getattr(_backend(ndgrad, backend), name)() == getattr(_backend(torch, backend), name)()


def test_libraries_ndgrad_does_not_use_are_not_available():
    """torch's CPU build has oneDNN and OpenMP; ndgrad computes with NumPy, which has neither as ndgrad's."""
    assert ndgrad.backends.mkldnn.is_available() is False and ndgrad.backends.openmp.is_available() is False
    assert ndgrad.backends.cudnn.is_acceptable(ndgrad.ones(1)) is torch.backends.cudnn.is_acceptable(torch.ones(1))


@pytest.mark.parametrize("call", ["is_available", "current_accelerator", "device_count", "current_device_index",
                                  "synchronize"])
def test_the_accelerator_questions_answer_as_torch_without_one(call):
    assert _outcome(getattr(ndgrad.accelerator, call)) == _outcome(getattr(torch.accelerator, call))


def test_the_accelerator_is_cuda_where_ndgrad_sees_a_gpu(monkeypatch):
    monkeypatch.setattr(ndgrad.cuda, "is_available", lambda: True)
    assert ndgrad.accelerator.current_accelerator() == ndgrad.device("cuda") and ndgrad.accelerator.is_available()


@pytest.mark.parametrize("flag", ["is_cpu", "is_cuda", "is_xpu", "is_mps", "is_meta"])
def test_tensor_device_flags(flag):
    assert getattr(ndgrad.zeros(1), flag) is getattr(torch.zeros(1), flag)


@pytest.mark.parametrize("call", ["empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
                                  "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
                                  "synchronize"])
def test_cuda_memory_counters_answer_as_torch_without_cuda(call):
    assert _outcome(getattr(ndgrad.cuda, call)) == _outcome(getattr(torch.cuda, call))
