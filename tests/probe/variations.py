"""The generator behind the corpus: a valid call, then the same call with its arguments in turn replaced by values
of a wrong type, dtype, shape or range, and (for every third call) an unexpected keyword or a wrong argument count.

An argument's kind is read from the call's source (a tensor fixture, an int, a tuple of ints, a dtype, a string
choice...), and each kind has its list of replacements. To keep the corpus small, a call varies two of its
arguments with one replacement each; which arguments and which replacements turn with a checksum of the call, so
the corpus is the same on every run and a group of calls covers every argument and the whole list."""

import ast
import zlib
from dataclasses import dataclass

from .fixtures import TENSOR_KINDS

_FLOAT_TENSOR = ["'x'", "None", "1.5", "[1.0, 2.0]", "i", "k", "z", "s", "e", "bm", "v", "xd", "u8", "h"]
_INT_TENSOR = [
    "'x'",
    "None",
    "2",
    "x",
    "k",
    "lib.tensor([0, 5])",
    "lib.tensor([-3, 0])",
    "ti",
    "lib.tensor([], dtype=lib.int64)",
    "i",
    "idx",
    "u8",
    "lib.tensor([0.0, 2.0])",
]
REPLACEMENTS = {
    "tensor:float": _FLOAT_TENSOR,
    "tensor:int": _INT_TENSOR,
    "tensor:uint": _INT_TENSOR,
    "tensor:bool": ["'x'", "None", "True", "x", "i", "lib.tensor([True, False])", "tb", "lib.zeros(0, dtype=lib.bool)"],
    "tensor:complex": ["'x'", "None", "x", "i", "1j", "k"],
    "int": ["'x'", "None", "1.5", "True", "-1", "-100", "100", "[2]", "ti", "1j", "x", "nan"],
    "float": ["'x'", "None", "nan", "inf", "-inf", "-1.0", "0.0", "1j", "[0.5]", "s", "x", "True", "10**30"],
    "bool": ["'yes'", "None", "2", "1.0", "tb", "[True]", "0", "x"],
    "choice": ["'bogus'", "None", "1", "''", "upper"],
    "ints": ["first=-3", "first=2.5", "first='x'", "first=None", "nested", "()", "longer", "first=x"],
    "tensors": ["[]", "[x, None]", "[x, 'x']", "x", "[x, v]", "[x, i]", "[x, z]", "[x, s]", "[x, e]", "None", "'x'"],
    "dtype": ["'float32'", "float", "int", "lib.int64", "lib.bool", "lib.complex64", "lib.float16", "1", "np.float32"],
    "device": ["'xyz'", "'cpu:x'", "1.5", "lib.device('cpu')", "'CPU'", "None", "'cpu:0'"],
    "object": ["'x'", "None", "1", "x"],
    "none": ["'x'", "1.5", "x", "[1]"],
    "expression": ["'x'", "None", "1.5"],
}
_DTYPE_NAMES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64"}
_DTYPE_NAMES |= {"complex128", "half", "float", "double", "long", "int"}


@dataclass(frozen=True)
class Call:
    """One corpus entry: the source evaluated with ``lib`` bound to torch and to ndgrad."""

    group: str  # the function group the summary counts it under
    function: str  # the function or method called
    source: str
    exact: bool = True  # False for random or uninitialised results: compare dtype and shape, not values
    valid: bool = False  # a template of ``vary``: torch accepts it (the corpus tests check that)


def vary(group, template, *, wrap="{}", arguments=2, per_argument=1, exact=True, signature=None):
    """The valid ``template`` call and its variants, each written into ``wrap`` (e.g. "{}(x)" to call a module):
    ``per_argument`` replacements of each of ``arguments`` arguments (a different few for each template), and
    ``signature`` of the wrong-signature variants (by default, one for every third template)."""
    call = ast.parse(template, mode="eval").body
    assert isinstance(call, ast.Call), template
    function = _function_name(call.func)
    checksum = zlib.crc32(template.encode())

    def entry(node, valid=False):
        return Call(group, function, wrap.format(ast.unparse(node)), exact, valid)

    entries = [entry(call, valid=True)]
    slots = [("args", n, node, None) for n, node in enumerate(call.args)]
    slots += [("keywords", n, keyword.value, keyword.arg) for n, keyword in enumerate(call.keywords)]
    slots = _rotated(slots, checksum)[:arguments]
    for field, position, node, keyword in slots:
        for replacement in _chosen(template, position, keyword, _kind(node, keyword), per_argument):
            changed = _copy(call)
            new_node = _replacement(replacement, node)
            if field == "args":
                changed.args[position] = new_node
            else:
                changed.keywords[position].value = new_node
            entries.append(entry(changed))
    if signature is None:
        signature = 1 if checksum % 3 == 0 else 0
    entries.extend(entry(changed) for changed in _rotated(_signature_variants(call), checksum)[:signature])
    return unique(entries)


def _function_name(func):
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Call):  # a module built then called: its forward
        return _function_name(func.func) + ".forward"
    return ast.unparse(func)


def _kind(node, keyword):
    """Which replacement list fits an argument, read from its source."""
    if keyword == "dtype" or (isinstance(node, ast.Attribute) and node.attr in _DTYPE_NAMES):
        return "dtype"
    if keyword == "device":
        return "device"
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return "bool"
        if value is None:
            return "none"
        if isinstance(value, str):
            return "choice"
        return "int" if isinstance(value, int) else "float"
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return "int" if isinstance(node.operand.value, int) else "float"
    if isinstance(node, ast.Name) and node.id in ("nan", "inf"):
        return "float"
    if isinstance(node, ast.Name):
        return f"tensor:{TENSOR_KINDS[node.id]}" if node.id in TENSOR_KINDS else "object"
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        if all(_is_int(element) for element in node.elts):
            return "ints"
        if all(isinstance(element, ast.Name) and element.id in TENSOR_KINDS for element in node.elts):
            return "tensors"
    return "expression"


def _is_int(node):
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _chosen(template, position, keyword, kind, count):
    """``count`` replacements from the kind's list, starting where this call's checksum points."""
    return _rotated(REPLACEMENTS[kind], zlib.crc32(f"{template}|{position}|{keyword}".encode()))[:count]


def _rotated(items, checksum):
    """``items`` starting at the one ``checksum`` points to: which few of a list a template takes."""
    start = checksum % len(items) if items else 0
    return items[start:] + items[:start]


def _replacement(replacement, original):
    """The node that replaces ``original``: a source string, or a rule applied to the original (ints, choices)."""
    if replacement == "upper":
        return ast.Constant(str(original.value).upper() if str(original.value).upper() != original.value else "x")
    if replacement.startswith("first="):
        elements = [ast.parse(replacement[len("first=") :], mode="eval").body, *original.elts[1:]]
        return ast.Tuple(elements, ast.Load())
    if replacement == "nested":
        return ast.Tuple([ast.Tuple(list(original.elts), ast.Load())], ast.Load())
    if replacement == "longer":
        return ast.Tuple([*original.elts, *original.elts[-1:]], ast.Load())
    return ast.parse(replacement, mode="eval").body


def _signature_variants(call):
    """The call with an unknown keyword, with eight extra positional arguments, and with no arguments."""
    with_keyword = _copy(call)
    with_keyword.keywords.append(ast.keyword("bogus", ast.Constant(1)))
    too_many = _copy(call)
    too_many.args.extend(ast.Constant(0) for _ in range(8))
    variants = [with_keyword, too_many]
    if call.args or call.keywords:
        variants.append(ast.Call(call.func, [], []))
    return variants


def _copy(call):
    return ast.Call(call.func, list(call.args), [ast.keyword(k.arg, k.value) for k in call.keywords])


def unique(entries):
    seen = set()
    kept = []
    for entry in entries:
        if entry.source not in seen:
            seen.add(entry.source)
            kept.append(entry)
    return kept


# The probe's helpers (fixtures.py) and Python builtins that wrap a call: a call's function is what they wrap.
_WRAPPERS = {"after", "step", "lrs", "batches", "list", "len", "bool", "int", "float", "complex", "iter", "sorted"}


def calls(group, sources, *, exact=True):
    """Hand-written calls of one group, taken as they are (a function name read from each)."""
    return [Call(group, _called_function(source), source, exact) for source in sources]


def _called_function(source):
    """The first function or attribute a source names, looking inside the probe's wrappers."""
    for node in ast.walk(ast.parse(source, mode="exec")):
        if isinstance(node, ast.Call) and _function_name(node.func) not in _WRAPPERS:
            return _function_name(node.func)
        if isinstance(node, ast.Attribute):
            return node.attr
    return source


def joined(generated, sources, fallback, *, exact=True):
    """Hand-written calls, each in the group of the generated calls of the same function (else ``fallback``)."""
    home = {call.function: call.group for call in generated}
    return [
        Call(home.get(call.function, fallback), call.function, call.source, exact) for call in calls(fallback, sources)
    ]
