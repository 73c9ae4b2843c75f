"""DataParallel: a module run on the devices it was given (see torch.nn.DataParallel). Without an accelerator it is
a wrapper that calls its module, as torch's is; with one GPU it runs the module there; replicas over several GPUs
are not implemented."""

from ndgrad import cuda
from ndgrad._device import device as Device
from ndgrad._tensor import Tensor
from ndgrad.nn.modules.module import Module

__all__ = ["DataParallel"]


def _index(device):
    return device.index if isinstance(device, Device) else int(device)


def _moved(value, device):
    """``value`` with every tensor in it (in tuples, lists and dicts too) on ``device``: torch's scatter to one
    device."""
    if isinstance(value, Tensor):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_moved(item, device) for item in value)
    if isinstance(value, dict):
        return {key: _moved(item, device) for key, item in value.items()}
    return value


class DataParallel(Module):
    """Run ``module`` on ``device_ids`` (see torch.nn.DataParallel); state_dict keys get a ``module.`` prefix."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():  # torch's DataParallel without an accelerator: a plain wrapper
            self.module, self.device_ids = module, []
            return
        device_ids = list(range(cuda.device_count())) if device_ids is None else device_ids
        if len(device_ids) > 1:
            raise NotImplementedError(
                "ndgrad's DataParallel runs on one GPU: replicating a module over several is not implemented; pass "
                "device_ids=[i]"
            )
        self.dim, self.module = dim, module
        self.device_ids = [_index(device) for device in device_ids]
        self.output_device = _index(device_ids[0] if output_device is None else output_device)
        self.src_device_obj = Device("cuda", self.device_ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for tensor in (*self.module.parameters(), *self.module.buffers()):
            if tensor.device != self.src_device_obj:
                raise RuntimeError(
                    f"module must have its parameters and buffers on device {self.src_device_obj} (device_ids[0]) but "
                    f"found one of them on device: {tensor.device}"
                )
        return self.module(*_moved(inputs, self.src_device_obj), **_moved(kwargs, self.src_device_obj))
