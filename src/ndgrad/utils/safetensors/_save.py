"""save and save_file (see safetensors.torch.save): the package's checks of the tensors, in its order and words,
then the header and each tensor's bytes, little-endian, in the order the package writes them."""

import os
import tempfile

import numpy as np

from ndgrad._tensor import Tensor
from ndgrad.utils.safetensors._errors import SafetensorError, not_instance, path_of
from ndgrad.utils.safetensors._format import CODES, layout, little_endian
from ndgrad.utils.safetensors._sharing import shared_groups

__all__ = ["save", "save_file"]

_NON_CONTIGUOUS = (
    "You are trying to save a non contiguous tensor: `{}` which is not allowed. It either means you are trying to "
    "save tensors which are reference of each other in which case it's recommended to save only the full tensors, "
    "and reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving."
)


def save(tensors, metadata=None):
    """The bytes of a .safetensors file holding ``tensors`` {name: contiguous tensor} and the text ``metadata``
    {str: str} (see safetensors.torch.save)."""
    header, chunks = _serialized(tensors, metadata)
    return b"".join([header, *chunks])


def save_file(tensors, filename, metadata=None):
    """Write ``tensors`` and ``metadata`` to ``filename`` as save() would give them (see safetensors.torch.save_file).
    The bytes go to a new file beside it, renamed over it once complete, so that a failed write leaves no partial
    file; like the package's, the file is readable by its owner only."""
    header, chunks = _serialized(tensors, metadata)
    path = path_of(filename)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(descriptor, "wb") as stream:
                for chunk in (header, *chunks):
                    stream.write(chunk)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        raise SafetensorError(f"Error while serializing: I/O error: {error}") from error


def _serialized(tensors, metadata):
    """(header, each tensor's bytes in data order), after the package's checks in its order: the dict and its
    values, shared memory, each tensor's layout and dtype, then the names and the metadata."""
    _check_tensors(tensors)
    specs, chunks = {}, {}
    for name, tensor in tensors.items():
        if not tensor.is_contiguous():
            raise ValueError(_NON_CONTIGUOUS.format(name))
        specs[name] = (_code(tensor), tensor.shape, tensor.nbytes)
        chunks[name] = _little_endian_bytes(tensor)
    _check_names(tensors)
    header, order = layout(specs, _checked_metadata(metadata))
    return header, [chunks[name] for name in order]


def _check_tensors(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, ndgrad.Tensor] but received {type(tensors)}")
    sparse = []
    for name, tensor in tensors.items():
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected ndgrad.Tensor but received {type(tensor)}")
        if tensor.is_sparse:
            sparse.append(name)
    if sparse:
        raise ValueError(
            f"You are trying to save a sparse tensors: `{sparse}` which this library does not support. You can make "
            "it a dense tensor before saving with `.to_dense()` but be aware this might make a much larger file than "
            "needed."
        )
    failing = [names for names in shared_groups(tensors) if len(names) > 1]
    if failing:
        raise RuntimeError(
            "Some tensors share memory, this will lead to duplicate memory on disk and potential differences when "
            f"loading them again: {failing}. A potential way to correctly save your model is to use `save_model`. "
            "More information at https://huggingface.co/docs/safetensors/torch_shared_tensors"
        )


def _code(tensor):
    try:
        return CODES[tensor.dtype]
    except KeyError:
        # KeyError as in the package (whose table of dtypes lacks it), with a message to go with it
        raise KeyError(f"{tensor.dtype} has no dtype code in the .safetensors format") from None


def _little_endian_bytes(tensor):
    """The tensor's elements as little-endian bytes, copied to the host for a GPU tensor (a view elsewhere)."""
    array = tensor.detach().cpu()._data.reshape(-1)
    return memoryview(array.astype(little_endian(array.dtype), copy=False).view(np.uint8))


def _check_names(tensors):
    for name in tensors:
        if not isinstance(name, str):
            raise not_instance("tensor_dict", name, "str")
        name.encode()  # the package's UnicodeEncodeError for a lone surrogate, which UTF-8 cannot hold
        if name == "__metadata__":  # NOTE: the package writes it, and then neither library can read the file
            raise ValueError("a tensor cannot be named `__metadata__`: the format keeps that name for the metadata")


def _checked_metadata(metadata):
    if metadata is None:
        return None
    if not isinstance(metadata, dict):
        raise not_instance("metadata", metadata, "dict")
    for key, value in metadata.items():
        for text in (key, value):
            if not isinstance(text, str):
                raise not_instance("metadata", text, "str")
            text.encode()
    return metadata
