"""ndgrad's argument parser against PyTorch's: every public function and Tensor method that PyTorch parses in C++
declares its overloads (ndgrad._argument_parser), and calls with arguments of every kind of wrong type raise the
TypeError torch raises, word for word; calls torch's parser accepts, ndgrad's accepts too."""

import random
import types
import warnings

import numpy as np
import pytest
import torch

import ndgrad
import ndgrad.nn.functional

NAMESPACES = [
    ("", ndgrad, torch), ("nn.functional.", ndgrad.nn.functional, torch.nn.functional),
    ("linalg.", ndgrad.linalg, torch.linalg), ("fft.", ndgrad.fft, torch.fft),
]
# Values of every kind a parameter can be given, made the same way for both libraries.
VALUES = {
    "tensor": lambda lib: lib.ones(2, 3), "int tensor": lambda lib: lib.ones(2, dtype=lib.int64),
    "0-d int tensor": lambda lib: lib.tensor(1), "0-d float tensor": lambda lib: lib.tensor(2.0),
    "grad tensor": lambda lib: lib.tensor(2.0, requires_grad=True),
    "1": lambda lib: 1, "0": lambda lib: 0, "-1": lambda lib: -1, "2.5": lambda lib: 2.5, "True": lambda lib: True,
    "'x'": lambda lib: "x", "'mean'": lambda lib: "mean", "None": lambda lib: None, "[1, 2]": lambda lib: [1, 2],
    "(1,)": lambda lib: (1,), "[1.5]": lambda lib: [1.5], "[1, 'a']": lambda lib: [1, "a"], "[]": lambda lib: [],
    "np.int64": lambda lib: np.int64(1), "np.float32": lambda lib: np.float32(1), "1j": lambda lib: 1j,
    "{}": lambda lib: {}, "dtype": lambda lib: lib.float64, "[tensor]": lambda lib: [lib.ones(2)],
    "[tensor, None]": lambda lib: [lib.ones(2), None], "type": lambda lib: float, "np.bool_": lambda lib: np.bool_(1),
    "device": lambda lib: lib.device("cpu"),
}
KEYWORDS = ["dim", "keepdim", "dtype", "out", "alpha", "input", "other", "axis", "device", "value", "p", "size", "foo"]


def declared():
    """(name, ndgrad's signature, torch's callable, is a method) for every declared function and method."""
    found = []
    for prefix, ours, theirs in NAMESPACES:
        for name in sorted(vars(ours)):
            signature = getattr(getattr(ours, name), "signature", None)
            if signature is not None and not name.startswith("_") and hasattr(theirs, name):
                found.append((prefix + name, signature, getattr(theirs, name), False))
    for name in sorted(dir(ndgrad.Tensor)):
        signature = getattr(getattr(ndgrad.Tensor, name, None), "signature", None)
        if signature is not None and hasattr(torch.Tensor, name):
            found.append(("Tensor." + name, signature, getattr(torch.Tensor, name), True))
    return found


def _parsed_in_cpp(function):
    return isinstance(function, (types.BuiltinFunctionType, types.MethodDescriptorType))


def _parses(function, leading):
    """Whether torch's argument parser checks this function's arguments: CPython itself refuses extra arguments to
    one that takes none or exactly one (``torch.is_grad_enabled``, ``Tensor.exp``, ``torch.from_numpy``)."""
    try:
        function(*leading, object(), object())
    except TypeError as error:
        return not any(words in str(error) for words in ("takes no arguments", "takes exactly one argument"))
    except Exception:  # noqa: BLE001 - anything else means the arguments got through
        pass
    return True


def _outcome(call):
    """torch's parser error, or None if torch's parser let the call through (whatever happened next)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except TypeError as error:
        text = str(error)
        parser_words = ("argument", "positional", "keyword", "expected Tensor as element")
        return text.replace("torch.", "ndgrad.") if any(word in text for word in parser_words) else None
    except Exception:  # noqa: BLE001 - an error after parsing: the call got through the parser
        return None
    return None


def _checked(signature, args, kwargs):
    try:
        signature.check(tuple(args), kwargs)
    except TypeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("name, signature, theirs, method", declared(), ids=lambda v: v if isinstance(v, str) else "")
def test_wrong_calls_raise_what_torch_raises(name, signature, theirs, method):
    rng = random.Random(name)
    for _ in range(24):
        positional = [rng.choice(list(VALUES)) for _ in range(rng.randint(0, 4))]
        keywords = {rng.choice(KEYWORDS): rng.choice(list(VALUES)) for _ in range(rng.choice([0, 0, 1, 2]))}
        args = [VALUES[v](torch) for v in positional]
        kwargs = {k: VALUES[v](torch) for k, v in keywords.items()}
        if method:
            expected = _outcome(lambda args=args, kwargs=kwargs: theirs(torch.ones(2, 3), *args, **kwargs))
        else:
            expected = _outcome(lambda args=args, kwargs=kwargs: theirs(*args, **kwargs))
        got = _checked(signature, [VALUES[v](ndgrad) for v in positional],
                       {k: VALUES[v](ndgrad) for k, v in keywords.items()})
        assert got == expected, f"{name}({', '.join(positional + [f'{k}={v}' for k, v in keywords.items()])})"


def test_every_function_torch_parses_is_declared():
    missing = []
    for prefix, ours, theirs in NAMESPACES:
        for name in sorted(vars(ours)):
            function = getattr(ours, name)
            if name.startswith("_") or not callable(function) or isinstance(function, type):
                continue
            if _parsed_in_cpp(getattr(theirs, name, None)) and _parses(getattr(theirs, name), ()) and not hasattr(
                function, "signature"
            ):
                missing.append(prefix + name)
    assert missing == []


def test_every_method_torch_parses_is_declared():
    missing = []
    for name in sorted(dir(ndgrad.Tensor)):
        ours, theirs = getattr(ndgrad.Tensor, name, None), getattr(torch.Tensor, name, None)
        if name.startswith("_") or not callable(ours) or not _parsed_in_cpp(theirs) or hasattr(ours, "signature"):
            continue
        if _parses(theirs, (torch.ones(1),)):
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("call", [
    "lib.zeros(2.5)", "lib.zeros(2, 3.5)", "lib.zeros([2, 'a'])", "lib.ones(2).sum(dim='x')",
    "lib.ones(2).max(0, keepdim='yes')", "lib.cat([lib.ones(2), None])", "lib.zeros(2, dtype='float32')",
    "lib.full((2,), [1, 2])", "lib.add(lib.ones(2), 'x')", "lib.ones(2).view(2, dtype=3)",
    "lib.ones(2).sum(0, True, 3, 4)", "lib.ones(2).permute(0, 'x')", "lib.nn.Linear(2.5, 3)",
    "lib.ones(2, 2).reshape(2, lib.tensor(1.0))", "lib.randn(2, generator=1, dtype=3)",
    "lib.eq(lib.ones(2), None)", "lib.where(lib.ones(2) > 0, lib.ones(2), 'x')",
    "lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), scale_factor=(2.0, 1j))",
    "lib.nn.functional.interpolate(lib.ones(1, 1, 4), scale_factor=['a'], mode='linear')",
])
def test_the_boundary_raises_torch_s_error(call):
    def raised(lib):
        with pytest.raises(TypeError) as error:
            eval(call, {"lib": lib})
        return str(error.value).replace("torch.", "ndgrad.")

    assert raised(ndgrad) == raised(torch)


def test_remembered_call_shapes_do_not_let_wrong_values_through():
    x = ndgrad.ones(2, 2)
    assert x.unsqueeze(ndgrad.tensor(0)).shape == (1, 2, 2)  # a 0-d integer tensor stands for an int
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        x.unsqueeze(ndgrad.tensor(0.5))  # same type as the call before, but not an integer
    assert x.reshape((4,)).shape == (4,)
    with pytest.raises(TypeError, match="failed to unpack the object at pos 2"):
        x.reshape((2, 2.0))  # a tuple again, with a float in it
