"""How ndgrad's outcome of a call stands against torch's: one class per call, and for internal errors the reason.

ok        both return the same result, or both raise the same exception class with the same message
internal  ndgrad's error comes from inside NumPy or Python (raised there, a NumPy or Python-internal class where
          torch raises another, or NumPy's / Python's text where torch has its own)
silent    torch raises, ndgrad returns
class     both raise, different exception classes
message   both raise the same class, with different messages
raises    torch returns, ndgrad raises
values    both return, the results differ
"""

import re
from dataclasses import dataclass

from .outcome import Raised, same

CLASSES = ("ok", "internal", "silent", "class", "message", "raises", "values")

# Exception classes that mean a bug when torch raises something else (torch itself raises IndexError, for one, for
# an index out of range: then the class is right and only the message can be wrong).
PYTHON_INTERNAL = {
    "AttributeError",
    "KeyError",
    "IndexError",
    "AssertionError",
    "UnboundLocalError",
    "NameError",
    "ZeroDivisionError",
    "OverflowError",
    "MemoryError",
    "RecursionError",
    "StopIteration",
    "UFuncTypeError",
    "LookupError",
    "SystemError",
    "ProbeTimeout",
}

# Texts of NumPy's and Python's own errors, met when a library passes them through instead of torch's.
FOREIGN_TEXTS = re.compile(
    "|".join(
        (
            r"negative dimensions are not allowed",
            r"is out of bounds for (axis|array)",
            r"inhomogeneous",
            r"operands could not be broadcast",
            r"cannot reshape array",
            r"repeated axis",
            r"Unable to allocate",
            r"ufunc '",
            r"could not convert",
            r"setting an array element with a sequence",
            r"only integers, slices",
            r"invalid literal for",
            r"has no len\(\)",
            r"object is not (iterable|subscriptable|callable)",
            r"object has no attribute",
            r"unsupported operand type",
            r"'NoneType'",
            r"cannot be interpreted as an integer",
            r"can't multiply sequence",
            r"Cannot cast",
            r"not supported for the input types",
            r"must be real number, not",
            r"argument must be a string or a",
            r"zero-size array",
            r"Maximum allowed dimension",
            r"array is too big",
            r"math domain error",
            r"division by zero",
            r"list index out of range",
            r"tuple index out of range",
            r"too many indices for array",
            r"arrays used as indices",
            r"boolean index did not match",
            r"truth value of an array",
            r"object too deep",
            r"axes don't match",
            r"unhashable type",
            r"not enough values to unpack",
            r"too many values to unpack",
            r"is not a valid dtype",
            r"data type .* not understood",
            r"Cannot interpret",
            r"must be an integer",
            r"out of bounds for (u)?int",
            r"Python int too large",
            r"int too large to convert",
            r"cannot convert float",
        )
    )
)
# Python's own text for a call that does not fit the signature (torch's Python-level functions raise these too).
BINDING_TEXT = re.compile(
    r"\w+\(\) (takes|got an unexpected keyword|missing \d+ required|got multiple values|got some positional)"
)


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of CLASSES
    reason: str = ""  # for internal errors: where the error came from


def classify(theirs, ours):
    """The verdict on ndgrad's outcome ``ours`` against torch's outcome ``theirs``."""
    if not isinstance(theirs, Raised):
        if isinstance(ours, Raised):
            return Verdict("raises", _internal_reason(theirs, ours))
        return Verdict("ok" if same(ours.value, theirs.value) else "values")
    if not isinstance(ours, Raised):
        return Verdict("silent")
    if (ours.name, ours.message) == (theirs.name, theirs.message):
        return Verdict("ok")
    reason = _internal_reason(theirs, ours)
    if reason:
        return Verdict("internal", reason)
    return Verdict("class" if ours.name != theirs.name else "message")


def _internal_reason(theirs, ours):
    """Why ndgrad's error is NumPy's or Python's rather than the library's own ("" when it is its own)."""
    torch_raised = isinstance(theirs, Raised)
    if ours.origin == "python call":
        # the interpreter refused the call; a fault only where torch's parser answers in other words
        return "" if torch_raised and BINDING_TEXT.search(theirs.message) else "python's argument binding or operator"
    if ours.origin not in ("raise", "probe"):
        return ours.origin
    if ours.name in PYTHON_INTERNAL and not (torch_raised and theirs.name == ours.name):
        return f"python {ours.name}"
    if FOREIGN_TEXTS.search(ours.message) and not (torch_raised and FOREIGN_TEXTS.search(theirs.message)):
        return "numpy's or python's message"
    return ""
