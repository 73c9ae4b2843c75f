"""ndgrad.random: the default generator's seed and state, and fork_rng (see torch.random)."""

import contextlib

from ndgrad._random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restore the random state on leaving the block, so that numbers drawn inside do not change those drawn after
    (see torch.random.fork_rng). GPU tensors' numbers come from the cpu generator (see ndgrad.cuda), so its state is
    the one to save, whatever ``devices`` and ``device_type`` name."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
