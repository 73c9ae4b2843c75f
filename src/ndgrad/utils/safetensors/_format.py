"""The .safetensors layout: an 8-byte little-endian length N, N bytes of JSON naming each tensor's dtype, shape and
byte range, then the bytes. ``layout`` writes a header as the safetensors package does; ``read`` checks one by the
published format's rules, raising InvalidHeader with the reason."""

import json
import math
import struct
from dataclasses import dataclass

import numpy as np

from ndgrad import _dtype

__all__ = ["FORMAT_BITS", "CODES", "DTYPES", "Entry", "Contents", "InvalidHeader", "layout", "little_endian", "read"]

# Every dtype code of the format, with its bits per element, in the order of the package's list of them: a file
# holds the tensors of later codes first.
FORMAT_BITS = {
    "BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
    "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32,
    "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}
_RANK = {code: rank for rank, code in enumerate(FORMAT_BITS)}
# The codes of ndgrad's dtypes (all but complex128, which the format lacks)
CODES = {
    _dtype.bool_: "BOOL", _dtype.uint8: "U8", _dtype.int8: "I8", _dtype.int16: "I16", _dtype.int32: "I32",
    _dtype.int64: "I64", _dtype.float16: "F16", _dtype.bfloat16: "BF16", _dtype.float32: "F32",
    _dtype.float64: "F64", _dtype.complex64: "C64",
}
DTYPES = {code: d for d, code in CODES.items()}
MAX_HEADER = 100_000_000  # bytes: the package's limit, which keeps a hostile length from costing memory
_USIZE = 2**64 - 1  # the largest size or offset the format can state
_FIELDS = ("dtype", "shape", "data_offsets")


@dataclass(frozen=True)
class Entry:
    """One tensor of a file: its dtype code, its shape, and its bytes' range counted from the start of the data."""

    code: str
    shape: tuple
    begin: int
    end: int


@dataclass(frozen=True)
class Contents:
    """A checked header: the entries by name in the order of their data, the metadata (or None), and where the data
    starts in the file."""

    entries: dict
    metadata: dict | None
    data_start: int


class InvalidHeader(Exception):
    """Why bytes are not a .safetensors file; the API puts its own words before the reason."""


def layout(specs, metadata):
    """(header, names in data order) for ``specs`` {name: (code, shape, nbytes)}: the 8-byte length and the JSON, in
    the order the package writes them (by code, latest in FORMAT_BITS first, then by name), without spaces, and
    padded with spaces so that the data starts at a multiple of 8."""
    order = sorted(specs, key=lambda name: (-_RANK[specs[name][0]], name))
    body = {} if metadata is None else {"__metadata__": metadata}
    offset = 0
    for name in order:
        code, shape, nbytes = specs[name]
        body[name] = {"dtype": code, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, order


def little_endian(numpy_dtype):
    return np.dtype(numpy_dtype).newbyteorder("<")


# ---- reading -------------------------------------------------------------------------------------------------
def read(buffer):
    """The checked header of a whole file held in ``buffer`` (bytes, or a read-only mmap): a JSON object in
    UTF-8 that begins with '{', no key twice, the metadata strings only, every tensor's dtype known and its byte
    range as long as its shape says, the ranges tiling the data exactly, in order, without gaps or overlaps."""
    if len(buffer) < 8:
        raise InvalidHeader("header too small")
    (length,) = struct.unpack("<Q", buffer[:8])
    if length > MAX_HEADER:
        raise InvalidHeader("header too large")
    if 8 + length > len(buffer):
        raise InvalidHeader("invalid header length")
    header = _parsed(buffer[8:8 + length])
    metadata = _metadata(header.pop("__metadata__", None))
    entries = sorted(((name, _entry(name, info)) for name, info in header.items()),
                     key=lambda item: (item[1].begin, item[1].end))
    _check_tiling(entries, len(buffer) - 8 - length)
    return Contents(dict(entries), metadata, 8 + length)


def _parsed(raw):
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidHeader(f"invalid UTF-8 in header: {error.reason} at byte {error.start}") from None
    try:
        header = json.loads(text, object_pairs_hook=_object, parse_int=_integer, parse_float=_float,
                          parse_constant=_not_a_number)
    except json.JSONDecodeError as error:
        raise InvalidHeader(f"invalid JSON in header: {error}") from None
    except RecursionError:
        raise InvalidHeader("invalid JSON in header: nested too deeply") from None
    if type(header) is not dict:
        raise InvalidHeader("invalid JSON in header: the header must be a JSON object")
    if not text.startswith("{"):
        raise InvalidHeader("invalid header start: the header must begin with '{'")
    return header


# NOTE: the JSON hooks below read numbers and strings as the package's parser (serde_json) does, so that the two
# refuse the same headers: Python's json alone takes NaN, 1e400 (as inf), -0 (as an int) and lone surrogates.
def _object(pairs):
    """A JSON object as a dict, refusing a key given twice: the format forbids it, since parsers that keep the
    first and parsers that keep the last would read different tensors from one file."""
    result = {}
    for key, value in pairs:
        if key in result:
            raise InvalidHeader(f"invalid JSON in header: duplicate key `{key}`")
        result[_text(key)] = value
    return result


def _text(text):
    try:
        text.encode()
    except UnicodeEncodeError:
        raise InvalidHeader(f"invalid JSON in header: {text!r} holds a lone surrogate, which UTF-8 cannot") from None
    return text


def _integer(text):
    if text == "-0":  # a float to serde_json, and so no size
        return -0.0
    if len(text) > 21:  # beyond any size or offset (and Python's int() of a huge number is slow, or refused)
        raise InvalidHeader(f"invalid JSON in header: number out of range: {text[:30]}...")
    return int(text)


def _float(text):
    number = float(text)
    if math.isinf(number):
        raise InvalidHeader(f"invalid JSON in header: number out of range: {text[:30]}")
    return number


def _not_a_number(name):
    raise InvalidHeader(f"invalid JSON in header: {name} is not JSON")


def _metadata(value):
    if value is None:
        return None
    if type(value) is not dict or any(type(item) is not str for item in value.values()):
        raise InvalidHeader("invalid JSON in header: __metadata__ must be an object whose values are strings")
    for item in value.values():
        _text(item)
    return value


def _entry(name, info):
    if type(info) is not dict:
        raise InvalidHeader(f"invalid JSON in header: tensor `{name}` must be an object of {', '.join(_FIELDS)}")
    for field in _FIELDS:
        if field not in info:
            raise InvalidHeader(f"invalid JSON in header: tensor `{name}` has no {field}")
    code, shape, offsets = (info[field] for field in _FIELDS)
    if type(code) is not str or code not in FORMAT_BITS:
        known = ", ".join(f"`{known}`" for known in FORMAT_BITS)
        raise InvalidHeader(
            f"invalid JSON in header: unknown dtype {code!r} of tensor `{name}`, expected one of {known}"
        )
    if not _sizes(shape):
        raise InvalidHeader(f"invalid JSON in header: the shape of tensor `{name}` must be a list of integers from "
                            "0 to 2**64 - 1")
    if not _sizes(offsets) or len(offsets) != 2:
        raise InvalidHeader(f"invalid JSON in header: the data_offsets of tensor `{name}` must be two integers from "
                            "0 to 2**64 - 1")
    return Entry(code, tuple(shape), *offsets)


def _sizes(value):
    return type(value) is list and all(type(n) is int and 0 <= n <= _USIZE for n in value)


def _check_tiling(entries, data_length):
    position = 0
    for name, entry in entries:
        if entry.begin != position or entry.end < entry.begin:
            raise InvalidHeader(f"invalid offset for tensor `{name}`")
        bits = _bits(entry)
        if bits % 8 or bits // 8 != entry.end - entry.begin:
            raise InvalidHeader(
                f"invalid shape, data type, or offset for tensor `{name}`: shape {list(entry.shape)} of {entry.code} "
                f"is {bits / 8:g} bytes, its data_offsets span {entry.end - entry.begin}"
            )
        position = entry.end
    if position != data_length:
        raise InvalidHeader("incomplete metadata, file not fully covered")


def _bits(entry):
    """The tensor's size in bits; refused as the package refuses it once a partial product passes 2**64 - 1
    (which also keeps a hostile shape from making huge Python ints)."""
    count = 1
    for size in entry.shape:
        count *= size
        if count > _USIZE:
            break
    bits = count * FORMAT_BITS[entry.code]
    if bits > _USIZE:
        raise InvalidHeader("overflow computing buffer size from shape and/or element type")
    return bits
