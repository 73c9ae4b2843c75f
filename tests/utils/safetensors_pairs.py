"""The same tensors in ndgrad and in torch, made of the same bytes, and what the two libraries did with them: the
helpers of test_safetensors.py and test_safetensors_invalid.py."""

import math
import re

import numpy as np
import torch

import ndgrad
from ndgrad._dtype import ALL_DTYPES

# The dtypes ndgrad and the .safetensors format share, by the name both ndgrad and torch give them
SHARED_DTYPES = tuple(d.name for d in ALL_DTYPES if d is not ndgrad.complex128)


def tensor_pair(dtype, shape, seed=0):
    """(ndgrad tensor, torch tensor) of dtype ``dtype`` (a name) and ``shape``, holding the same random bytes (each
    0 or 1 for bool), NaNs and infinities included."""
    nbytes = math.prod(shape) * getattr(torch, dtype).itemsize
    raw = np.random.default_rng(seed).integers(0, 2 if dtype == "bool" else 256, nbytes, dtype=np.uint8).tobytes()
    if not raw:  # frombuffer takes no empty buffer
        return ndgrad.empty(shape, dtype=getattr(ndgrad, dtype)), torch.empty(shape, dtype=getattr(torch, dtype))
    return (ndgrad.frombuffer(bytearray(raw), dtype=getattr(ndgrad, dtype)).reshape(shape),
            torch.frombuffer(bytearray(raw), dtype=getattr(torch, dtype)).reshape(shape))


def tensor_pairs(specs):
    """({name: ndgrad tensor}, {name: torch tensor}) for ``specs`` {name: (dtype, shape, seed)}."""
    made = {name: tensor_pair(*spec) for name, spec in specs.items()}
    return {name: pair[0] for name, pair in made.items()}, {name: pair[1] for name, pair in made.items()}


def contents(tensors):
    """{name: (dtype name, shape, bytes)} of a dict of ndgrad or of torch tensors, comparable between the two."""
    return {name: (str(t.dtype).rsplit(".", 1)[-1], tuple(t.shape), raw_bytes(t)) for name, t in tensors.items()}


def raw_bytes(tensor):
    library = ndgrad if isinstance(tensor, ndgrad.Tensor) else torch
    if not tensor.numel():  # torch views no empty slice as bytes
        return b""
    return tensor.detach().cpu().reshape(-1).view(library.uint8).numpy().tobytes()


def error_of(call):
    """(exception class name, normalised message) of what ``call()`` raised, or None if it returned."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the exception is the result being compared
        return type(error).__name__, normalised(str(error))
    return None


def normalised(text):
    """torch's names as ndgrad's, runs of whitespace as one space, and the names in each printed set sorted (a set
    of names prints in the order of their hashes, which differ between runs)."""
    text = " ".join(text.replace("torch.", "ndgrad.").split())
    return re.sub(r"\{('[^{}]*')\}", lambda match: "{" + ", ".join(sorted(match.group(1).split(", "))) + "}", text)
