"""The deterministic-algorithms switch (see torch.use_deterministic_algorithms). ndgrad's NumPy kernels give the
same result on every run already, so the switch is kept and reported, and no kernel refuses to run under it."""

from ndgrad._argument_parser import type_name

__all__ = [
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode", "get_deterministic_debug_mode",
]

_DEBUG_MODES = ("default", "warn", "error")  # debug mode 0, 1, 2


class _State:
    enabled = False
    warn_only = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic kernels, warning instead of refusing where there is none if ``warn_only``."""
    if type(mode) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type_name(mode)}")
    if type(warn_only) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type_name(warn_only)}")
    _State.enabled, _State.warn_only = mode, warn_only


def are_deterministic_algorithms_enabled():
    return _State.enabled


def is_deterministic_algorithms_warn_only_enabled():
    return _State.warn_only


def set_deterministic_debug_mode(debug_mode):
    """The same switch by number or name: 0 'default' (off), 1 'warn', 2 'error' (see
    torch.set_deterministic_debug_mode)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _State.enabled:
        return 0
    return 1 if _State.warn_only else 2
