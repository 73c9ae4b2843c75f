"""ndgrad.multiprocessing against torch.multiprocessing: tensors in shared memory, written by real child processes
(fork and spawn), sent through queues by a handle, and spawn's errors."""

import multiprocessing
import pickle
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch
import torch.multiprocessing
from tests.utils import multiprocessing_workers as workers

import ndgrad
import ndgrad.multiprocessing as mp


def test_the_module_offers_what_torch_multiprocessing_offers():
    assert sorted(mp.__all__) == sorted(torch.multiprocessing.__all__)
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"):
        assert hasattr(mp, name), name
    assert mp.Process is multiprocessing.Process and mp.get_start_method() == torch.multiprocessing.get_start_method()
    assert mp.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy() == "file_descriptor"


def test_an_unknown_sharing_strategy_is_refused():
    with pytest.raises(AssertionError, match="invalid sharing strategy 'shared'"):
        mp.set_sharing_strategy("shared")
    with pytest.raises(AssertionError, match="invalid sharing strategy 'shared'"):
        torch.multiprocessing.set_sharing_strategy("shared")


@pytest.mark.parametrize("library", [torch, ndgrad])
def test_share_memory_moves_a_tensor_and_its_base(library):
    base = library.arange(6.0)
    view = base[2:]
    assert (base.is_shared(), view.is_shared()) == (False, False)
    assert view.share_memory_() is view
    assert (base.is_shared(), view.is_shared()) == (True, True)
    view.add_(10)  # still one memory, and one version counter
    assert base.tolist() == [0, 1, 12, 13, 14, 15] and base._version == view._version == 1


@pytest.mark.parametrize("array", [np.asfortranarray(np.arange(6.0).reshape(2, 3)), np.zeros((0, 2)),
                                   np.arange(8, dtype=np.int32)[1::3]], ids=["column-major", "empty", "strided"])
def test_shared_memory_keeps_the_values_and_layout_of_any_array(array):
    tensor = ndgrad.from_numpy(array)
    values, strides, offset = tensor.tolist(), tensor.stride(), tensor.storage_offset()
    tensor.share_memory_()
    assert tensor.is_shared()
    assert (tensor.tolist(), tensor.stride(), tensor.storage_offset()) == (values, strides, offset)
    assert not np.shares_memory(tensor.numpy(), array)


def test_share_memory_of_a_module_returns_it_with_parameters_and_buffers_shared():
    for library in (torch, ndgrad):
        model = library.nn.BatchNorm1d(3)
        assert model.share_memory() is model
        assert [t.is_shared() for t in (*model.parameters(), *model.buffers())] == [True] * 5


def _hogwild(context, shared, steps=3):
    """The final weight after two processes of context each ran ``steps`` steps on one model (zeros at first)."""
    model = ndgrad.nn.Linear(2, 1, bias=False)
    ndgrad.nn.init.zeros_(model.weight)
    if shared:
        model.share_memory()
    processes = [context.Process(target=workers.hogwild, args=(rank, model, steps)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    assert [process.exitcode for process in processes] == [0, 0]
    return model.weight.tolist()


def test_hogwild_with_fork_sums_both_processes_steps_in_the_parent():
    assert _hogwild(mp.get_context("fork"), shared=True) == [[6.0, 6.0]]


def test_without_share_memory_forked_children_write_their_own_copy():
    assert _hogwild(mp.get_context("fork"), shared=False) == [[0.0, 0.0]]


def test_hogwild_with_spawn_sends_the_shared_memory_not_a_copy():
    assert _hogwild(mp.get_context("spawn"), shared=True, steps=2) == [[4.0, 4.0]]


def test_a_tensor_sent_through_a_queue_is_moved_to_shared_memory():
    context = mp.get_context("fork")
    queue, done = context.Queue(), context.Event()
    child = context.Process(target=workers.increment_received, args=(queue, done))
    child.start()
    tensor = ndgrad.zeros(3)
    queue.put(tensor)
    assert done.wait(10)
    child.join()
    assert tensor.is_shared() and tensor.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("library", [torch, ndgrad])
def test_the_pickler_shares_a_tensor_and_rebuilds_it_over_the_same_memory(library):
    parameter = library.nn.Parameter(library.ones(2))
    received = pickle.loads(ForkingPickler.dumps(parameter))
    assert parameter.is_shared() and type(received) is type(parameter) and received.requires_grad
    received.data.mul_(3)
    assert parameter.tolist() == [3.0, 3.0]


def test_the_pickler_refuses_a_non_leaf_that_requires_grad_with_torchs_message():
    messages = []
    for library in (torch, ndgrad):
        with pytest.raises(RuntimeError) as error:
            ForkingPickler.dumps(library.ones(2, requires_grad=True) * 2)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_plain_pickle_still_copies():
    tensor = ndgrad.ones(2).share_memory_()
    copy = pickle.loads(pickle.dumps(tensor))
    copy.add_(1)
    assert tensor.tolist() == [1.0, 1.0] and not copy.is_shared()


def test_spawn_runs_fn_with_each_index_and_the_arguments():
    tensor = ndgrad.zeros(2).share_memory_()
    assert mp.spawn(workers.add_rank, args=(tensor,), nprocs=2) is None
    assert tensor.tolist() == [1.0, 2.0]


def test_a_raising_process_is_reported_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as error:
        mp.start_processes(workers.raise_on_last, args=(2,), nprocs=2, start_method="fork")
    assert error.value.error_index == 1
    assert str(error.value).startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
    assert str(error.value).endswith("ValueError: boom in 1\n")


def test_a_process_that_exits_with_a_code_is_reported_as_torch_words_it():
    context = mp.start_processes(workers.exit_with, args=(3,), nprocs=1, join=False, start_method="fork")
    assert len(context.pids()) == 1
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with exit code 3$") as error:
        while not context.join():
            pass
    assert (error.value.exit_code, error.value.error_index, error.value.signal_name) == (3, 0, None)


def test_spawn_warns_as_torch_for_another_start_method():
    messages = []
    for library in (torch, ndgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            library.multiprocessing.spawn(workers.add_rank, nprocs=0, start_method="fork")
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and messages[0][0][0] is FutureWarning


def test_process_exceptions_pickle_as_torchs():
    ours = mp.ProcessExitedException("gone", 1, 42, -9, "SIGKILL")
    again = pickle.loads(pickle.dumps(ours))
    assert (again.msg, again.error_index, again.error_pid, again.exit_code, again.signal_name) == (
        "gone", 1, 42, -9, "SIGKILL")
    assert [c.__name__ for c in mp.ProcessRaisedException.__mro__] == [
        c.__name__ for c in torch.multiprocessing.ProcessRaisedException.__mro__]
