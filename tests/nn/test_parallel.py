"""ndgrad.nn.parallel and ndgrad.distributed against torch on this CPU-only machine: DataParallel wraps and calls
its module, DistributedDataParallel and the process-group functions raise torch's error for a missing group."""

import pytest
import torch

import ndgrad
import ndgrad.distributed
import ndgrad.nn.parallel

pytestmark = pytest.mark.skipif(ndgrad.cuda.is_available(), reason="compares with torch's CPU build: needs no GPU")


def _error(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_the_names_are_exported_where_torch_exports_them():
    assert ndgrad.nn.DataParallel is ndgrad.nn.parallel.DataParallel
    assert hasattr(ndgrad.nn, "DistributedDataParallel") is hasattr(torch.nn, "DistributedDataParallel")
    assert ndgrad.nn.parallel.DistributedDataParallel.__name__ == "DistributedDataParallel"


def test_data_parallel_without_an_accelerator_calls_its_module():
    outputs, keys, printed = [], [], []
    for library in (torch, ndgrad):
        library.manual_seed(0)
        inner = library.nn.Linear(2, 3)
        wrapped = library.nn.DataParallel(inner)
        assert wrapped.module is inner and wrapped.device_ids == []
        outputs.append(wrapped(library.ones(4, 2)).shape)
        keys.append(list(wrapped.state_dict()))
        printed.append(repr(wrapped))
    assert tuple(outputs[0]) == tuple(outputs[1]) and keys[0] == keys[1] == ["module.weight", "module.bias"]
    assert printed[0] == printed[1]


def test_data_parallel_state_dict_loads_into_a_wrapped_model():
    source = ndgrad.nn.DataParallel(ndgrad.nn.Linear(2, 1))
    target = ndgrad.nn.DataParallel(ndgrad.nn.Linear(2, 1))
    target.load_state_dict(source.state_dict())
    assert target.module.weight.tolist() == source.module.weight.tolist()


def test_distributed_data_parallel_without_a_process_group_raises_torchs_error():
    assert _error(lambda: ndgrad.nn.parallel.DistributedDataParallel(ndgrad.nn.Linear(2, 2))) == _error(
        lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2)))


def test_distributed_is_not_available_nor_initialized():
    assert ndgrad.distributed.is_available() is False  # no backend: honest, where torch's build has gloo
    assert ndgrad.distributed.is_initialized() is torch.distributed.is_initialized() is False


@pytest.mark.parametrize("name, args", [
    ("get_rank", ()), ("get_world_size", ()), ("get_backend", ()), ("barrier", ()), ("destroy_process_group", ()),
])
def test_what_needs_the_default_group_raises_as_torch(name, args):
    assert _error(lambda: getattr(ndgrad.distributed, name)(*args)) == _error(
        lambda: getattr(torch.distributed, name)(*args))


@pytest.mark.parametrize("name", ["all_reduce", "broadcast"])
def test_collectives_raise_as_torch_without_a_group(name):
    arguments = {"all_reduce": lambda library: (library.ones(1),), "broadcast": lambda library: (library.ones(1), 0)}
    assert _error(lambda: getattr(ndgrad.distributed, name)(*arguments[name](ndgrad))) == _error(
        lambda: getattr(torch.distributed, name)(*arguments[name](torch)))


def test_init_process_group_says_there_is_no_backend():
    with pytest.raises(RuntimeError, match="ndgrad.distributed has no backend"):
        ndgrad.distributed.init_process_group("gloo")
