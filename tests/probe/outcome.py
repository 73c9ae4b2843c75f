"""One probe expression evaluated with one library: what it returned, described so that torch's and ndgrad's answers
compare, or what it raised and where the raise came from (a raise statement of the library, NumPy, Python)."""

import contextlib
import io
import linecache
import os
import re
import resource
import signal
import sysconfig
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np

import ndgrad
from ndgrad.autograd.hints import without_hint

from .fixtures import Namespace

SECONDS = 30.0  # a call that takes longer in either library is answered with ProbeTimeout
HEADROOM = 8 << 30  # bytes of address space a call may add: a huge size fails to allocate instead of swapping
LARGEST_COMPARED = 10**6  # elements; larger results (expanded views) compare by dtype and shape only

_NUMPY_DIR = os.path.dirname(np.__file__)
_NDGRAD_DIR = os.path.dirname(ndgrad.__file__)
_STDLIB_DIR = sysconfig.get_paths()["stdlib"]
_PROBE_DIR = os.path.dirname(__file__)
_RAISE_LINE = re.compile(r"\s*raise\b")


class ProbeTimeout(Exception):
    """The call did not answer within SECONDS."""


@dataclass(frozen=True)
class Raised:
    """The exception a call ended with: class name, torch-spelled message, where it was raised."""

    name: str
    message: str
    origin: str  # "raise" (a raise statement of the library), or one of the internal origins below
    where: str = ""  # file:line of the innermost frame, for the report

    def __str__(self):
        return f"{self.name}: {self.message}"


@dataclass(frozen=True)
class Returned:
    """The value a call returned, as ``describe`` writes it (arrays stay arrays; compare with outcome.same)."""

    value: object

    def __str__(self):
        return "returns " + brief(self.value)


@cache
def compiled(source):
    """Code for ``source``: an expression when it is one, else statements whose result is the name ``out``."""
    try:
        return compile(source, "<probe>", "eval"), True
    except SyntaxError:
        return compile(source, "<probe>", "exec"), False


def evaluate(lib, source, exact=True):
    """Run ``source`` with ``lib`` and describe what happened (values of random results are not kept: exact=False)."""
    code, is_expression = compiled(source)
    namespace = Namespace(lib)
    lib.default_generator.manual_seed(0)  # random calls compare shapes only, but their errors must not vary
    try:
        with _guarded():
            if is_expression:
                value = eval(code, namespace)
            else:
                exec(code, namespace)
                value = namespace.get("out")
            return Returned(describe(value, lib, exact))
    except Exception as error:  # noqa: BLE001 - what the library raised is the outcome
        return _raised(error)
    finally:  # calls may have changed global modes: put them back for the next call
        lib.set_default_dtype(lib.float32)
        lib.set_grad_enabled(True)
        lib.autograd.set_detect_anomaly(False)
        lib.set_default_device(None)


@contextlib.contextmanager
def _guarded():
    """No warnings, no printing, bounded time and address space while a call runs."""
    previous_limit = resource.getrlimit(resource.RLIMIT_AS)
    previous_handler = signal.signal(signal.SIGALRM, _time_is_up)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (_address_space_limit(previous_limit[1]), previous_limit[1]))
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        resource.setrlimit(resource.RLIMIT_AS, previous_limit)


def _time_is_up(signum, frame):
    raise ProbeTimeout(f"no answer within {SECONDS:g} s")


def _address_space_limit(hard):
    try:
        statm = os.open("/proc/self/statm", os.O_RDONLY)
    except FileNotFoundError:  # not Linux: no guard
        return hard
    try:
        used = int(os.read(statm, 64).split()[0]) * resource.getpagesize()
    finally:
        os.close(statm)
    limit = used + HEADROOM
    return limit if hard == resource.RLIM_INFINITY else min(limit, hard)


def _raised(error):
    message = without_hint(str(error)).replace("torch.", "ndgrad.")
    message = _SET_OF_NAMES.sub(_sorted_set, _CPP_FRAMES.sub("", message))
    if isinstance(error, ProbeTimeout):
        return Raised(type(error).__name__, message, "timeout")
    innermost = error.__traceback__
    while innermost.tb_next is not None:
        innermost = innermost.tb_next
    frame, line = innermost.tb_frame, innermost.tb_lineno
    return Raised(
        type(error).__name__, message, _origin(error, frame, line), f"{_short(frame.f_code.co_filename)}:{line}"
    )


# torch appends the C++ frames behind some errors; their addresses change from run to run.
_CPP_FRAMES = re.compile(r"\nException raised from [^\n]*\n(?:(?:frame #\d+:|<omitting python frames>)[^\n]*\n)*")
# A set of names in a message ({'zeros', 'reflect'}) prints in hash order, which changes from run to run.
_SET_OF_NAMES = re.compile(r"\{'[^'{}]*'(?:, '[^'{}]*')*\}")


def _sorted_set(match):
    return "{" + ", ".join(sorted(match.group(0)[1:-1].split(", "))) + "}"


def _origin(error, frame, line):
    """Where an exception came from; every answer but "raise" and "probe" is an internal error."""
    if type(error).__module__.split(".")[0] == "numpy":
        return "numpy class"
    path = frame.f_code.co_filename
    # Cython frames (numpy.random's) name a bare .pyx file: their module says whose they are
    if path.startswith(_NUMPY_DIR) or str(frame.f_globals.get("__name__")).split(".")[0] == "numpy":
        return "numpy frame"
    if path.startswith(_NDGRAD_DIR):
        raising = _RAISE_LINE.match(linecache.getline(path, line))
        return "raise" if raising else "python or numpy call in ndgrad"
    if path.startswith(_PROBE_DIR):
        return "probe"
    if path.startswith(_STDLIB_DIR) and "site-packages" not in path:
        return "stdlib frame"
    return "python call"  # raised by the interpreter at the call: argument binding, operator dispatch


def _short(path):
    for root in (_NDGRAD_DIR, _NUMPY_DIR, _STDLIB_DIR):
        if path.startswith(root):
            return os.path.basename(root) + path[len(root) :]
    return os.path.basename(path)


# ---- describing and comparing results -----------------------------------------------------------------------------
def describe(value, lib, exact):
    """A plain, library-free form of a result: tuples of names and numbers, arrays for tensor values."""
    if isinstance(value, lib.Tensor):
        tensor = value.detach()
        kept = exact and tensor.numel() <= LARGEST_COMPARED
        values = tensor.resolve_conj().resolve_neg().numpy().copy() if kept else None
        return (
            "tensor",
            type(value).__name__,
            _spelled(tensor.dtype),
            tuple(tensor.shape),
            value.requires_grad,
            values,
        )
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return (type(value).__name__, _spelled(value) if isinstance(value, str) else value)
    if isinstance(value, (tuple, list)):  # Size and the named tuples of return_types keep their class name
        return ("sequence", type(value).__name__, tuple(describe(item, lib, exact) for item in value))
    if isinstance(value, dict):
        return ("dict", tuple((str(key), describe(item, lib, exact)) for key, item in value.items()))
    if isinstance(value, (lib.dtype, lib.device)):
        return (type(value).__name__, _spelled(value))
    if isinstance(value, lib.nn.Module):
        shapes = tuple((name, tuple(tensor.shape)) for name, tensor in value.state_dict().items())
        return ("module", type(value).__name__, shapes)
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.copy() if exact else None)
    return ("object", type(value).__name__)


def _spelled(value):
    return str(value).replace("torch.", "ndgrad.")


def same(ours, theirs):
    """Whether two described results agree: structure and names exactly, numbers within float tolerance."""
    if isinstance(ours, np.ndarray) or isinstance(theirs, np.ndarray):
        return _same_array(ours, theirs)
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return len(ours) == len(theirs) and all(same(a, b) for a, b in zip(ours, theirs))
    if isinstance(ours, float) and isinstance(theirs, float):
        return (ours != ours and theirs != theirs) or abs(ours - theirs) <= 1e-5 + 1e-4 * abs(theirs)
    if isinstance(ours, complex) and isinstance(theirs, complex):
        return abs(ours - theirs) <= 1e-5 + 1e-4 * abs(theirs)
    return type(ours) is type(theirs) and ours == theirs


def _same_array(ours, theirs):
    if not (isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray)):
        return False
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    if ours.dtype.kind in "fc":
        loose = ours.dtype == np.float16
        return bool(
            np.allclose(ours, theirs, rtol=1e-3 if loose else 1e-4, atol=1e-3 if loose else 1e-5, equal_nan=True)
        )
    return bool(np.array_equal(ours, theirs))


def brief(described, width=160):
    """A one-line reading of a described result, for reports."""

    def text(item):
        if isinstance(item, np.ndarray):
            return np.array2string(item, threshold=8, precision=4, separator=",").replace("\n", "")
        if isinstance(item, tuple):
            return "(" + ", ".join(text(part) for part in item) + ")"
        return repr(item)

    line = text(described)
    return line if len(line) <= width else line[: width - 3] + "..."
