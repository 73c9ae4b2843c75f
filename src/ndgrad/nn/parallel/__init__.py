"""ndgrad.nn.parallel: DataParallel on the one device ndgrad runs a module on, and DistributedDataParallel, which
needs a process group ndgrad cannot make (see torch.nn.parallel)."""

from ndgrad.nn.parallel.data_parallel import DataParallel
from ndgrad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
