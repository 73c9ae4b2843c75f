"""ndgrad.backends.mkldnn: oneDNN's switches (see torch.backends.mkldnn). ndgrad's kernels are NumPy's, so oneDNN is
not available; the switches are kept and read back, and change nothing."""

from ndgrad.backends._flags import flag, flags_module

__all__ = ["is_available"]


def is_available():
    return False


flags_module(
    __name__,
    enabled=flag("set_enabled_mkldnn", True),
    deterministic=flag("set_deterministic_mkldnn", False),
)
