"""ndgrad.compile: accepted, and a no-op. ndgrad runs eagerly on NumPy and has no graph compiler, so compile returns
the module or function it is given, unchanged (see torch.compile)."""

__all__ = ["compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """``model`` itself, after torch's checks of the arguments: ndgrad compiles nothing. Without ``model``, a
    decorator that returns what it decorates (``@ndgrad.compile(fullgraph=True)``)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        return compile
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
