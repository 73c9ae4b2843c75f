"""DistributedDataParallel: needs a process group, which ndgrad cannot make (see ndgrad.distributed), so building
one raises torch's error for a missing default group (see torch.nn.parallel.DistributedDataParallel)."""

from ndgrad import distributed
from ndgrad.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Refused at construction: there is no process group to synchronise gradients over."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):
        super().__init__()
        distributed.get_world_size(process_group)  # raises: no group was (or can be) initialized
