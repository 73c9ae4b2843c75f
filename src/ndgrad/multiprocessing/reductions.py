"""How multiprocessing pickles tensors: by a handle on shared memory, never by copying the values (see
torch.multiprocessing.reductions). A cpu tensor sent to another process is first moved to shared memory, as in torch,
so that both processes see one memory; a GPU tensor is copied, as ndgrad has no GPU memory to share."""

from multiprocessing import reduction

from ndgrad import _shared_memory
from ndgrad._tensor import Tensor
from ndgrad.nn.parameter import Parameter

__all__ = ["init_reductions", "reduce_tensor", "rebuild_tensor"]

_NON_LEAF = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support crossing "
    "process boundaries.  If you just want to transfer the data, call detach() on the tensor before serializing "
    "(e.g., putting it on the queue)."
)


def reduce_tensor(tensor):
    """``tensor`` as pickle's (rebuild function, arguments): the descriptor of its shared memory travels in a DupFd,
    which multiprocessing hands to the receiving process (at its start, or later through its resource sharer)."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(_NON_LEAF)
    if not tensor.is_cpu:
        return tensor.__reduce_ex__(2)
    tensor.share_memory_()
    descriptor, nbytes, *layout = _shared_memory.handle(tensor._data)
    return rebuild_tensor, (type(tensor), reduction.DupFd(descriptor), nbytes, *layout, tensor.requires_grad,
                            tensor.__dict__ or None)


def rebuild_tensor(cls, duplicate, nbytes, offset, shape, dtype, strides, requires_grad, attributes):
    """The receiving side of reduce_tensor: the sender's memory, mapped here, as a tensor of class ``cls``."""
    mapping = _shared_memory.attach(duplicate.detach(), nbytes)
    array = _shared_memory.rebuild(mapping, offset, shape, dtype, strides)
    tensor = Tensor._from_parts(array, requires_grad, None, 0, None)
    if cls is Parameter:
        tensor = Parameter(tensor, requires_grad)
    if attributes:
        tensor.__dict__.update(attributes)
    return tensor


def init_reductions():
    """Make multiprocessing's pickler (queues, pipes, the arguments of a spawned Process) use reduce_tensor."""
    for cls in (Tensor, Parameter):
        reduction.register(cls, reduce_tensor)
