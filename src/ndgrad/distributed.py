"""ndgrad.distributed: the questions scripts ask before they train on many processes (see torch.distributed).

ndgrad has no distributed backend (no gloo, nccl or mpi), so is_available() is False and no process group can
exist: is_initialized() is False, and what needs the default group raises torch's error for a missing one. There
are no collectives to fake.
"""

__all__ = [
    "is_available", "is_initialized", "init_process_group", "destroy_process_group", "get_rank", "get_world_size",
    "get_backend", "barrier", "all_reduce", "broadcast", "all_gather",
]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available():
    return False


def is_initialized():
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None, _ranks=None):
    """Refuses: ndgrad has no backend to make a process group with (see torch.distributed.init_process_group)."""
    raise RuntimeError("ndgrad.distributed has no backend (gloo, nccl, mpi): a process group cannot be initialized")


def destroy_process_group(group=None):
    raise AssertionError("Process group cannot be None")


def _default_group():
    """The default process group, which never exists here: torch's error for that."""
    raise ValueError(_NOT_INITIALIZED)


def get_rank(group=None):
    return _default_group()


def get_world_size(group=None):
    return _default_group()


def get_backend(group=None):
    return _default_group()


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    return _default_group()


def all_reduce(tensor, op=None, group=None, async_op=False):
    return _default_group()


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    return _default_group()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    return _default_group()
