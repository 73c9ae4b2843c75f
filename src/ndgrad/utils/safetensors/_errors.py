"""The package's exception class, and its TypeError for an argument of the wrong type (the words its Rust core
uses: ``argument 'metadata': 'int' object is not an instance of 'str'``)."""

import os

__all__ = ["SafetensorError", "not_instance", "path_of"]


class SafetensorError(Exception):
    """A file that is not a valid .safetensors file, or a request it cannot answer (see safetensors.SafetensorError)."""

    __module__ = "ndgrad.utils.safetensors"


def not_instance(argument, value, expected):
    described = "'None'" if value is None else f"'{type(value).__name__}' object"
    return TypeError(f"argument '{argument}': {described} is not an instance of '{expected}'")


def path_of(filename):
    """``filename`` (a str or os.PathLike) as a str, refused as the package refuses it."""
    if isinstance(filename, bytes):
        raise not_instance("filename", filename, "str")
    try:
        return os.fspath(filename)
    except TypeError as error:
        raise TypeError(f"argument 'filename': {error}") from None
