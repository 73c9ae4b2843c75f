"""Autocast's cast policy: which ops run in the autocast dtype and which in float32, per device type, as torch's
lists say. Each listed op's public function reads one flag, ``STATE.active``, and calls ``autocast_inputs`` only
while a region is on; the ops not listed read nothing."""

from ndgrad._autocast import NO_BFLOAT16, STATE, cast, dtype_of
from ndgrad._dtype import float32, float64

__all__ = ["AUTOCAST", "autocast_inputs"]
AUTOCAST = STATE  # the flag the listed ops read: AUTOCAST.active

# torch's "ops that can autocast to" the lower precision, of those ndgrad has (torch.convolution is not one: its
# _convolution is, but torch reaches it without casting)
_LOWER_PRECISION_CPU = frozenset({
    "linear", "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "prelu", "vecdot", "scaled_dot_product_attention",
})
# torch's "ops that can autocast to float32" (CUDA's list leaves binary_cross_entropy out: torch refuses it there)
_FLOAT32_CPU = frozenset({
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "cdist", "trace", "prod",
})
LOWER_PRECISION = {"cpu": _LOWER_PRECISION_CPU, "cuda": _LOWER_PRECISION_CPU | {"mv", "addmv"}}
FLOAT32 = {"cpu": _FLOAT32_CPU, "cuda": _FLOAT32_CPU - {"binary_cross_entropy"}}


def autocast_inputs(op, *tensors):
    """``tensors`` as ``op`` takes them under autocast: the floating ones (not float64) on the autocasting device,
    cast to the autocast dtype for a lower-precision op or to float32 for a float32 op; others as they are. None
    (an absent bias) stays None."""
    device_type = next(tensor.device.type for tensor in tensors if tensor is not None)
    if device_type not in STATE.enabled:
        return tensors
    if op in LOWER_PRECISION[device_type]:
        dtype = dtype_of(device_type)
        if dtype is None:
            raise RuntimeError(NO_BFLOAT16)
    elif op in FLOAT32[device_type]:
        dtype = float32
    else:
        return tensors
    return tuple(cast(tensor, dtype) if _eligible(tensor, device_type, dtype) else tensor for tensor in tensors)


def _eligible(tensor, device_type, dtype):
    """torch's rule: a floating tensor on the device, not float64, of another dtype than the target."""
    return (tensor is not None and tensor.dtype.is_floating_point and tensor.dtype is not float64
            and tensor.dtype is not dtype and tensor.device.type == device_type)
