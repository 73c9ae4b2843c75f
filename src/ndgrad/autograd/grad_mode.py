"""Grad modes: whether ops record the graph. The flag is per thread, as in PyTorch."""

import functools
import inspect
import threading

__all__ = [
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled",
]


class _ModeState(threading.local):
    # Class attributes are each new thread's starting values.
    grad_enabled = True
    inference = False


STATE = _ModeState()


def is_grad_enabled():
    """True when new ops record backward nodes (see torch.is_grad_enabled)."""
    return STATE.grad_enabled


def is_inference_mode_enabled():
    return STATE.inference


class _Mode:
    """A context manager that is also a decorator; subclasses say what the flags become inside."""

    def _enter_values(self):
        raise NotImplementedError

    def __enter__(self):
        self._saved = (STATE.grad_enabled, STATE.inference)
        STATE.grad_enabled, STATE.inference = self._enter_values()

    def __exit__(self, *exc_info):
        STATE.grad_enabled, STATE.inference = self._saved
        return False

    def __call__(self, function):
        if inspect.isgeneratorfunction(function):
            return self._wrap_generator(function)

        @functools.wraps(function)
        def run_in_mode(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)

        return run_in_mode

    def _wrap_generator(self, function):
        """A decorated generator runs each step in the mode, not just the call that creates it (as in PyTorch)."""

        @functools.wraps(function)
        def generate_in_mode(*args, **kwargs):
            generator, request = function(*args, **kwargs), None
            while True:
                with self.clone():
                    try:
                        response = generator.send(request)
                    except StopIteration as stop:
                        return stop.value
                request = yield response

        return generate_in_mode

    def clone(self):
        return type(self)()


class _NoParamMode(_Mode):
    """A mode that takes no arguments, so it also decorates without parentheses: ``@no_grad``."""

    def __new__(cls, function=None):
        mode = super().__new__(cls)
        return mode if function is None else mode(function)


class no_grad(_NoParamMode):
    """Ops inside record nothing and their results do not require grad (see torch.no_grad)."""

    def _enter_values(self):
        return False, STATE.inference


class enable_grad(_NoParamMode):
    """Turn recording back on inside a no_grad region (see torch.enable_grad)."""

    def _enter_values(self):
        return True, STATE.inference


class set_grad_enabled(_Mode):
    """Sets grad mode at once when called; as a context manager, restores the old mode on exit."""

    def __init__(self, mode):
        self.mode = bool(mode)
        self._before = STATE.grad_enabled
        STATE.grad_enabled = self.mode

    def __enter__(self):
        self._saved = (self._before, STATE.inference)

    def _enter_values(self):
        return self.mode, STATE.inference

    def clone(self):
        return type(self)(self.mode)

    def __call__(self, function):
        STATE.grad_enabled = self._before  # used as a decorator: the call above must not stick
        return super().__call__(function)


class inference_mode(_Mode):
    """Like no_grad, for code that will never need gradients (see torch.inference_mode)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as @inference_mode, without parentheses

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _enter_values(self):
        if self.mode:
            return False, True
        return True, False  # NOTE: as in PyTorch, inference_mode(False) turns grad mode on

    def clone(self):
        return type(self)(self.mode)
