"""The signature check: every public function, method and class ndgrad shares with torch takes the same parameters
(names, kinds and defaults), overload by overload.

torch's signatures come from where torch checks them: ``inspect`` for what torch writes in Python, and for its C
functions and Tensor methods the signatures its argument parser matches calls against, read from torch's binding
library. ndgrad's come from the overloads its own argument parser declares (``@parses``, in the same schema
language) or, for plain Python functions, from ``inspect``. Names, kinds and defaults are compared; types are not.
"""

import ast
import functools
import inspect
import pathlib
import re

import torch
from tests.surface.names import resolve

__all__ = ["torch_overloads", "ndgrad_overloads", "differences"]

POSITIONAL, KEYWORD, VAR_POSITIONAL, VAR_KEYWORD = "positional", "keyword", "*", "**"
NO_DEFAULT = "-"  # a required parameter
_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL, inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD, inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


# ---- defaults, in one spelling for both libraries -------------------------------------------------------------
_CPP_DEFAULTS = {"at::Reduction::Mean": "1", "at::Reduction::Sum": "2", "at::Reduction::None": "0",
                 "c10::MemoryFormat::Contiguous": "contiguous_format", "MemoryFormat::Contiguous": "contiguous_format",
                 "at::kLong": "long"}


def default_text(value):
    """A default as comparable text: numbers by value (``1`` and ``1.`` are one default),
    torch's and ndgrad's objects by their bare names (``torch.strided`` and ``ndgrad.strided`` are the same)."""
    if isinstance(value, str):
        value = _CPP_DEFAULTS.get(value.strip(), value.strip()).replace("{", "[").replace("}", "]")
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return re.sub(r"^(torch|ndgrad)\.", "", value.strip())
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(float(value))
    if isinstance(value, (list, tuple)):
        return repr([float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in value])
    if callable(value) or inspect.ismodule(value):  # activation=F.relu, pickle_module=pickle
        return getattr(value, "__name__", type(value).__name__)
    return re.sub(r"^(torch|ndgrad)\.", "", repr(value))


def _inspected(function, method=False):
    """A Python function's parameters as (name, kind, default), without the ``self`` of a method; None if Python
    cannot tell them (a C function)."""
    try:
        signature = inspect.signature(function)
    except (ValueError, TypeError):
        return None
    parameters = list(signature.parameters.values())
    if method and parameters and parameters[0].name == "self":
        parameters = parameters[1:]
    return tuple((p.name, _KINDS[p.kind], NO_DEFAULT if p.default is p.empty else default_text(p.default))
                 for p in parameters)


def _split_top_level(text):
    """``text`` split at its commas outside brackets (``dim={-2, -1}`` is one parameter)."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        if char == "," and not depth:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [part for part in (*parts, current.strip()) if part]


# ---- torch ----------------------------------------------------------------------------------------------------
@functools.cache
def _parser_signatures():
    """name -> the signatures torch's Python argument parser checks calls against, as written in its binding
    library (``sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, ...)``): the
    signatures torch's own TypeErrors quote, and the truth where its stubs and docs differ (they call
    ``linalg.cholesky_ex``'s tensor ``A``; the parser takes ``input``)."""
    library, = (pathlib.Path(torch.__file__).parent / "lib").glob("libtorch_python.*")
    found = {}
    for match in _PARSER_STRING.finditer(library.read_bytes()):
        text = match.group().decode()
        found.setdefault(text.partition("(")[0], set()).add(text)
    return found


_PARSER_STRING = re.compile(rb"(?<=\x00)[a-z_][a-z_0-9]*\([A-Za-z_0-9?\[\]:., *=+\-'\"{}()<>]*\)"
                            rb"(?:\|deprecated|\|hidden)?(?=\x00)")


def _schema_parameters(schema):
    """(parameters, hidden) of one parser signature, in either library's spelling of the schema language."""
    head, _, rest = schema.partition("(")
    parameters_text, _, marker = rest.rpartition(")")
    parameters, kind = [], POSITIONAL
    for part in _split_top_level(parameters_text):
        if part == "*":
            kind = KEYWORD
            continue
        declaration, has_default, default = part.partition("=")
        name = declaration.split()[-1]
        parameters.append((name, kind, default_text(default) if has_default else NO_DEFAULT))
    return tuple(parameters), marker in ("|deprecated", "|hidden")


def _method_form(parameters):
    """Whether a parser signature is a Tensor method's, which leaves out the tensor it is called on, rather than a
    function's, which names it ``input`` (or ``self``, where another parameter may be the tensor)."""
    return not any(name in ("input", "self") for name, _, _ in parameters)


_ANYTHING = (("args", VAR_POSITIONAL, NO_DEFAULT), ("kwargs", VAR_KEYWORD, NO_DEFAULT))  # a C class's __init__


def torch_overloads(namespace, name):
    """torch's overloads of ``namespace.name``, each (parameters, hidden) with parameters a tuple of (name, kind,
    default); None where torch states no signature. Named-tensor overloads (``Dimname``) are left out: ndgrad has
    no named tensors."""
    owner = resolve(namespace)
    function = inspect.getattr_static(owner, name, None) if isinstance(owner, type) else getattr(owner, name)
    method = namespace == "torch.Tensor"
    if isinstance(function, (staticmethod, classmethod)):
        function = function.__func__
    if isinstance(function, property) or not callable(function):
        return None
    if isinstance(function, type):
        function, method = function.__init__, True
    inspected = _inspected(function, method)
    if inspected is not None and (inspect.isfunction(function) or inspected != _ANYTHING):
        return [(inspected, False)]
    schemas = _parser_signatures().get(getattr(function, "__name__", name), ())
    overloads = [_schema_parameters(schema) for schema in sorted(schemas) if "Dimname" not in schema]
    if namespace == "torch.Tensor" or any(not _method_form(parameters) for parameters, _ in overloads):
        overloads = [(p, hidden) for p, hidden in overloads if _method_form(p) == (namespace == "torch.Tensor")]
    return overloads or None


# ---- ndgrad ---------------------------------------------------------------------------------------------------
def ndgrad_overloads(namespace, name):
    """ndgrad's overloads of ``namespace.name``: the argument parser's (hidden ones marked), else inspect's."""
    owner = resolve(namespace)
    function = getattr(owner, name)
    method = namespace.endswith(".Tensor")
    if isinstance(function, type):
        function, method = function.__init__, True
    parsed = getattr(function, "signature", None)
    if parsed is not None and hasattr(parsed, "overloads"):
        return [(_parsed_parameters(overload), overload.hidden) for overload in parsed.overloads]
    inspected = _inspected(function, method)
    return None if inspected is None else [(inspected, False)]


def _parsed_parameters(overload):
    parameters = []
    for param in overload.params:
        kind = KEYWORD if param.keyword_only else POSITIONAL
        parameters.append((param.name, kind, default_text(param.default) if param.optional else NO_DEFAULT))
    return tuple(parameters)


# ---- the comparison -------------------------------------------------------------------------------------------
def describe(parameters):
    parts, keyword = [], False
    for name, kind, default in parameters:
        if kind == KEYWORD and not keyword:
            parts.append("*")
            keyword = True
        prefix = {VAR_POSITIONAL: "*", VAR_KEYWORD: "**"}.get(kind, "")
        keyword = keyword or kind == VAR_POSITIONAL
        parts.append(prefix + name + ("" if default == NO_DEFAULT else f"={default}"))
    return f"({', '.join(parts)})"


def differences(torch_namespace, ndgrad_namespace, name):
    """What differs between torch's and ndgrad's overloads of one name, as lines of text (none: the same)."""
    theirs = torch_overloads(torch_namespace, name)
    ours = ndgrad_overloads(ndgrad_namespace, name)
    if theirs is None or ours is None:
        return [] if theirs is None else ["ndgrad states no signature"]
    found = []
    for overload, their_hidden in theirs:
        if not their_hidden and not any(mine == overload for mine, _ in ours):
            found.append(f"torch {describe(overload)} has no ndgrad equal")
    for mine, hidden in ours:
        if not hidden and not any(mine == overload for overload, _ in theirs):
            found.append(f"ndgrad {describe(mine)} is not torch's")
    return found
