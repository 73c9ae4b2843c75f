"""Grad modes: whether ops record the graph. The flag is per thread, as in PyTorch."""

import functools
import inspect
import threading

from ndgrad._argument_parser import Signature, takes_no_arguments

__all__ = [
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled",
    "NO_VERSION", "check_inference_write", "INFERENCE_REQUIRES_GRAD", "INFERENCE_VERSION",
]


class _ModeState(threading.local):
    # Class attributes are each new thread's starting values.
    grad_mode = True  # what is_grad_enabled() says
    inference = False
    grad_enabled = True  # whether ops record: grad mode on, outside inference mode (the flag ndgrad reads)


STATE = _ModeState()
_SET_GRAD_ENABLED = Signature(("set_grad_enabled(bool enabled)",))


def _set(grad_mode, inference):
    """Inside inference_mode nothing records, even where enable_grad turned grad mode back on, as in PyTorch."""
    STATE.grad_mode, STATE.inference, STATE.grad_enabled = grad_mode, inference, grad_mode and not inference


# ---- inference tensors ------------------------------------------------------------------------------------------
# Note [inference tensors]: a tensor made under inference_mode (by an op or a factory; a view shares its base's
# kind) is an inference tensor, as in PyTorch: it has no version counter, so outside inference mode it can be
# neither written in place nor saved for backward. ndgrad puts NO_VERSION where the [version] list would be: views
# and detach() share it as they share a counter, and saving one reads its version, which raises PyTorch's error,
# so Op.apply checks nothing more than before. Only writes (Tensor._bump_version) and requires_grad look for it.
INFERENCE_VERSION = "Inference tensors do not track version counter."
INFERENCE_REQUIRES_GRAD = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `ndgrad.no_grad()` instead of `ndgrad.inference_mode()`."
)
_INFERENCE_WRITE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


class _NoVersionCounter:
    """The version counter of every inference tensor (see Note [inference tensors])."""

    __slots__ = ()

    def __getitem__(self, index):
        raise RuntimeError(_INFERENCE_SAVED)  # reading the version is what saving for backward does

    def __len__(self):
        return 0  # no version, and no line of a last write (see ndgrad.autograd.provenance)


NO_VERSION = _NoVersionCounter()


def check_inference_write():
    """An in-place write to an inference tensor: allowed, and not counted, only inside inference mode."""
    if not STATE.inference:
        raise RuntimeError(_INFERENCE_WRITE)


@takes_no_arguments
def is_grad_enabled():
    """True when grad mode is on (see torch.is_grad_enabled); ops record when also outside inference mode."""
    return STATE.grad_mode


@takes_no_arguments
def is_inference_mode_enabled():
    return STATE.inference


class _Mode:
    """A context manager that is also a decorator; subclasses say what the flags become inside."""

    def _enter_values(self):
        raise NotImplementedError

    def __enter__(self):
        self._saved = (STATE.grad_mode, STATE.inference)
        _set(*self._enter_values())

    def __exit__(self, *exc_info):
        _set(*self._saved)
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
        if not isinstance(mode, bool):
            _SET_GRAD_ENABLED.check((mode,), {})  # PyTorch's TypeError for a mode that is no bool
        self.mode = mode
        self._before = STATE.grad_mode
        _set(self.mode, STATE.inference)

    def __enter__(self):
        self._saved = (self._before, STATE.inference)

    def _enter_values(self):
        return self.mode, STATE.inference

    def clone(self):
        return type(self)(self.mode)

    def __call__(self, function):
        _set(self._before, STATE.inference)  # used as a decorator: the call above must not stick
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
