"""PyTorch's argument parser: a public function declares its overloads in the schema language of PyTorch's native
functions (``sum(Tensor self, int[1]? dim, bool keepdim=False)``), and a call that fits none of them raises the
TypeError PyTorch raises, word for word. The check runs before the function body, so a string never reaches NumPy
where a dim goes, and a float size or a string keepdim is refused instead of silently computing.
"""

import functools
import inspect
import operator
import types

import numpy as np

from ndgrad._warnings import warn

__all__ = ["parses", "alias", "parses_method", "tensor_method", "type_name", "class_name",
           "check_fits", "Signature", "takes_no_arguments", "takes_one_argument"]

# The schema's type -> the kind the checks below know it by, and the name PyTorch's messages give it.
_KINDS = {
    "Tensor": ("tensor", "Tensor"), "Scalar": ("scalar", "Number"), "int": ("int", "int"), "SymInt": ("int", "int"),
    "float": ("float", "float"), "complex": ("complex", "complex"), "bool": ("bool", "bool"), "str": ("str", "str"),
    "Tensor[]": ("tensors", "tuple of Tensors"), "int[]": ("ints", "tuple of ints"),
    "SymInt[]": ("ints", "tuple of ints"), "float[]": ("floats", "tuple of floats"),
    "Scalar[]": ("scalars", "tuple of Scalars"), "ScalarType": ("dtype", "ndgrad.dtype"),
    "Layout": ("layout", "ndgrad.layout"), "MemoryFormat": ("memory_format", "ndgrad.memory_format"),
    "Device": ("device", "ndgrad.device"), "Generator": ("generator", "ndgrad.Generator"),
    "Dimname": ("name", "name"), "Dimname[]": ("names", "tuple of names"), "object": ("object", "object"),
    "Storage": ("storage", "ndgrad.Storage"),
}
# PyTorch also accepts NumPy's spelling of these keywords (torch.sum(a=t, axis=0, keepdims=True)).
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
# Ops whose Tensor parameters also take Python numbers (torch.add(t, 2) binds 2 to ``other: Tensor``).
_NUMBERS_AS_TENSORS = {
    "add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_", "multiply", "multiply_", "sub", "sub_",
    "subtract", "subtract_", "true_divide", "true_divide_", "to", "copy_", "floor_divide", "floor_divide_",
}
_NUMBER_TYPES = (int, float, complex, np.number, np.bool_)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python, which C's tp_name calls by its bare name
_MISSING = object()
ALL_POSITIONAL = "all positional arguments"  # where a varargs int list came from (never a keyword's name: spaces)
_SHAPES_KEPT = 256  # call shapes remembered per function
_WARNED = set()  # deprecated overloads already warned about: PyTorch warns once
_bound = None  # the ndgrad classes the checks need: (Tensor, dtype, device, Generator), bound on first use


def _classes():
    """ndgrad's Tensor, dtype, device and Generator (imported late: the tensor module imports the ops)."""
    global _bound
    from ndgrad._device import device
    from ndgrad._dtype import dtype
    from ndgrad._random import Generator
    from ndgrad._tensor import Size, Tensor

    _OWN_TYPE_NAMES.update({dtype: "ndgrad.dtype", Size: "ndgrad.Size", device: "ndgrad.device",
                            Generator: "ndgrad._C.Generator"})
    _bound = (Tensor, dtype, device, Generator)
    return _bound


_OWN_TYPE_NAMES = {}  # ndgrad's classes, named as PyTorch's C types name themselves


def type_name(value):
    """The name PyTorch's messages give the type of ``value`` (C's ``tp_name``): int, numpy.float64, Tensor."""
    if type(value) is types.MethodType and value.__func__.__module__ == "ndgrad._C":
        return "builtin_function_or_method"  # a Tensor method that PyTorch writes in C (see ndgrad._tensor_surface)
    return class_name(type(value))


def class_name(cls):
    """C's ``tp_name`` of a class: its bare name if defined in Python or built in, else module and name."""
    own = _OWN_TYPE_NAMES.get(cls)
    if own is not None:
        return own
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


# ---- what each kind of parameter accepts (PyTorch's FunctionParameter::check) ---------------------------------
def _is_long(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_index(value):
    """An int, or anything with __index__ (a one-element integer tensor), but not a bool."""
    if isinstance(value, bool):
        return False
    if _is_long(value):
        return True
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _is_number_tensor(value, Tensor):
    """A 0-d tensor that needs no gradient stands for a number."""
    return isinstance(value, Tensor) and not value._requires_grad and value._data.ndim == 0


def _accepts_int_list(value, size):
    """PyTorch looks at the first element only; ``unpack`` checks the others."""
    if isinstance(value, (tuple, list)):
        return not value or _is_index(value[0])
    return size > 0 and _is_index(value)


def _accepts(param, value, position, numbers_as_tensors):
    Tensor, dtype, device, Generator = _bound or _classes()
    kind = param.kind
    if kind == "tensor":
        return isinstance(value, Tensor) or (numbers_as_tensors and isinstance(value, _NUMBER_TYPES))
    if kind == "int":
        return _is_long(value) or (_is_number_tensor(value, Tensor) and value._data.dtype.kind in "iu")
    if kind in ("float", "complex", "scalar"):
        if isinstance(value, (float, int, np.number, np.bool_)) or (kind != "float" and isinstance(value, complex)):
            return True
        return _is_number_tensor(value, Tensor)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "ints":
        return _accepts_int_list(value, param.size)
    if kind == "tensors":
        if not isinstance(value, (tuple, list)):
            return False
        for index, item in enumerate(value):
            if not isinstance(item, Tensor):  # PyTorch raises here even while only trying an overload
                raise TypeError(f"expected Tensor as element {index} in argument {position}, but got {type_name(item)}")
        return True
    if kind == "str":
        return isinstance(value, str)
    if kind == "dtype":
        return type(value) is dtype or any(value is python_type for python_type in (float, int, bool, complex))
    if kind == "device":
        return _is_long(value) or isinstance(value, (str, device))
    if kind == "generator":
        return isinstance(value, Generator)
    if kind in ("floats", "scalars"):
        items = value[:1] if kind == "floats" else value  # a float list is judged by its first element too
        return isinstance(value, (tuple, list)) and all(isinstance(item, _NUMBER_TYPES) for item in items)
    if kind == "name":
        return value is None or isinstance(value, str)
    if kind == "names":
        return isinstance(value, (tuple, list)) and all(item is None or isinstance(item, str) for item in value)
    if kind == "layout":
        from ndgrad._metadata import layout

        return isinstance(value, layout)
    if kind == "memory_format":
        from ndgrad._metadata import memory_format

        return isinstance(value, memory_format)
    if kind == "storage":
        return False  # ndgrad's tensors own their memory: only the default, None, fits
    return True  # object


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def check_fits(kind, value):
    """PyTorch's errors for a Python int too large for what it becomes: an int64_t (int, int list, device index),
    a Scalar (which holds an int64 or, from 2**63, a uint64), or a double."""
    if not _is_long(value) or _LONG_MIN <= value <= _LONG_MAX:
        return
    if kind in ("int", "ints", "device"):
        raise ValueError("Overflow when unpacking long long")
    if kind == "scalar":
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value >= 2**64:
            raise OverflowError("int too big to convert")
    elif kind in ("float", "complex"):
        try:
            float(value)
        except OverflowError:
            raise OverflowError("int too large to convert to float") from None


# ---- one declared overload ------------------------------------------------------------------------------------
class _Parameter:
    __slots__ = ("name", "kind", "type_name", "size", "allow_none", "optional", "default", "keyword_only", "aliases")

    def __init__(self, text, keyword_only):
        schema_type, _, rest = text.partition(" ")
        name, has_default, default = (part.strip() for part in rest.partition("="))
        base, self.size = schema_type.replace("?", ""), 0
        if base.endswith("]") and not base.endswith("[]"):  # int[2]: a list of 2, or one int standing for all
            base, _, size = base[:-1].partition("[")
            base, self.size = base + "[]", int(size)
        self.kind, self.type_name = _KINDS[base]
        self.allow_none = schema_type.endswith("?") or default == "None"  # Tensor?[] is a list, never None
        self.name, self.optional, self.default = name, bool(has_default), default
        self.keyword_only = keyword_only
        self.aliases = _NUMPY_NAMES.get(name, ())

    def describe(self):
        text = f"{self.type_name} {self.name}"
        return f"{text} = {self.default}" if self.optional else text


class _Overload:
    """One signature as PyTorch's bindings declare it, e.g.
    ``sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None)``.

    ``|hidden`` (or ``|deprecated``) after it keeps it out of error messages. ``derive_method``: the Tensor
    method's form of a function's signature, which drops ``input`` (the tensor the method is called on) and
    ``out``; a signature without ``input`` has no method form (``method_form`` is False).
    """

    def __init__(self, schema, derive_method=False):
        self.schema = schema
        name, _, rest = schema.partition("(")
        parameters, _, marker = rest.rpartition(")")
        self.name = name.strip()
        self.deprecated = marker.strip() == "|deprecated"  # tried last
        self.hidden = self.deprecated or marker.strip() == "|hidden"
        self.params, keyword_only, self.method_form = [], False, not derive_method
        for text in filter(None, parameters.split(", ")):  # ", " as PyTorch splits: {-2,-1} is one default
            if text == "*":
                keyword_only = True
                continue
            param = _Parameter(text, keyword_only)
            if derive_method and param.kind == "tensor" and param.name == "input" and not self.method_form:
                self.method_form = True
            elif not (derive_method and param.name == "out"):
                self.params.append(param)
        self.numbers_as_tensors = self.name in _NUMBERS_AS_TENSORS
        self.max_args = len(self.params)
        self.min_args = sum(not p.optional for p in self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)
        self.varargs = self.max_pos_args == 1 and self.params[0].kind == "ints"

    def describe(self):
        """PyTorch's printed form: ``(Tensor input, *, ndgrad.dtype dtype = None)``."""
        parts, keyword = [], False
        for param in self.params:
            if param.keyword_only and not keyword:
                parts.append("*")
                keyword = True
            parts.append(param.describe())
        return f"({', '.join(parts)})"

    def parse(self, args, kwargs, raise_error):
        """(param, value, where) for each parameter given a value (``where``: its position, ``ALL_POSITIONAL``, or
        the keyword it came by), or None if the call does not fit; with ``raise_error``, PyTorch's TypeError
        instead of None.

        Positional arguments fill the parameters in order and keywords (or their NumPy spellings) the rest; None
        fits a parameter whose type ends in ``?`` or whose default is None; an overload whose one positional
        parameter is an int list takes all positional ints as that list (``x.view(2, 3)``).
        """
        nargs = len(args)
        varargs = self.varargs and nargs > 0 and _accepts_int_list(args, 0)
        if nargs > self.max_pos_args and not varargs:
            return self._extra_positional(nargs) if raise_error else None
        bound, position, remaining = [], 0, len(kwargs)
        for index, param in enumerate(self.params):
            if position < nargs:
                if param.keyword_only:
                    return self._extra_positional(nargs) if raise_error else None
                value, where = args[position], position
            else:
                where = _keyword(kwargs, param)
                value = kwargs[where] if where is not None else _MISSING
            if value is _MISSING:
                if not param.optional:
                    return self._missing(index) if raise_error else None
                continue
            if (value is None and param.allow_none) or _accepts(param, value, index, self.numbers_as_tensors):
                pass
            elif varargs and index == 0:
                value, where = args, ALL_POSITIONAL  # x.permute(1, 0): the positional ints are the list
            elif raise_error:
                self._wrong_type(param, value, position, type(where) is str)
            else:
                return None
            bound.append((param, value, where))
            if where is ALL_POSITIONAL:
                position = nargs
            elif type(where) is str:
                remaining -= 1
            else:
                position += 1
        if remaining:
            return self._extra_keywords(kwargs, nargs) if raise_error else None
        return bound

    def unpack(self, bound):
        """PyTorch's checks while converting a call it matched: every element of an int list is an int, and every
        Python int fits the C++ type it becomes (see check_fits). The arguments are converted last one first (the
        order in which C++ compilers evaluate a call's arguments)."""
        Tensor = (_bound or _classes())[0]
        for param, value, _ in reversed(bound):
            if param.kind == "floats" and isinstance(value, (tuple, list)):
                self._unpack_floats(param, value)
                continue
            if param.kind != "ints" or not isinstance(value, (tuple, list)):
                check_fits(param.kind, value)
                continue
            for index, element in enumerate(value):
                if isinstance(element, (int, np.integer)) or _is_index(element):  # a bool unpacks, as in PyTorch
                    if _is_long(element) and not _LONG_MIN <= element <= _LONG_MAX:
                        error = "Overflow when unpacking long long"
                    else:
                        continue
                elif isinstance(element, Tensor) and element._data.dtype.kind in "iu" and element._data.size == 1:
                    continue
                else:
                    error = f"type must be tuple of ints,but got {type_name(element)}"
                raise TypeError(
                    f"{self.name}(): argument '{param.name}' failed to unpack the object at pos {index + 1} with "
                    f"error \"{error}\""
                )

    def _unpack_floats(self, param, values):
        """A float list's elements: anything Python can take as a float (a bool, a 0-d tensor), not a complex."""
        for index, element in enumerate(values):
            if isinstance(element, complex) or not hasattr(type(element), "__float__"):
                raise TypeError(f"{self.name}(): argument '{param.name}' must be {param.type_name}, but found element "
                                f"of type {type_name(element)} at pos {index + 1}")

    def converted(self, args, kwargs, bound):
        """(args, kwargs, shape_only): the call as the function body expects it. Positional ints that stand for an
        int list become that one list (``x.view(2, 3)`` runs ``view(x, (2, 3))``); NumPy's keywords are renamed
        (``axis`` to ``dim``); Python types as dtypes become dtypes (``float`` is float64); numbers given as 0-d
        tensors or NumPy scalars become Python numbers, as PyTorch unpacks them. ``shape_only``: nothing changed
        but the packing of positional ints, which every call of the same shape needs alike."""
        if self.deprecated:  # its parameters, in another order, are the ones of the overload that replaced it
            return (), {param.name: _unpacked(param, value) for param, value, _ in bound}, False
        args, kwargs, shape_only = list(args), dict(kwargs), True
        for param, value, where in bound:
            new = _unpacked(param, value)
            shape_only = shape_only and new is value
            if where is ALL_POSITIONAL:
                args = [tuple(new)]
            elif type(where) is str:
                if where != param.name:
                    del kwargs[where]
                    shape_only = False
                kwargs[param.name] = new
            else:
                args[where] = new
        return tuple(args), kwargs, shape_only

    # PyTorch's words for each way a call can miss an overload
    def _extra_positional(self, nargs):
        low, high = self.min_args, self.max_pos_args  # sic: "from 2 to 1" when a keyword-only one is required
        if low != high:
            raise TypeError(f"{self.name}() takes from {low} to {high} positional arguments but {nargs} were given")
        plural, verb = ("" if high == 1 else "s"), ("was" if nargs == 1 else "were")
        raise TypeError(f"{self.name}() takes {high} positional argument{plural} but {nargs} {verb} given")

    def _missing(self, index):
        names = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        plural = "s" if len(names) == 1 else ""  # sic: PyTorch's message has its plural the wrong way round
        raise TypeError(f"{self.name}() missing {len(names)} required positional argument{plural}: {', '.join(names)}")

    def _wrong_type(self, param, value, position, is_keyword):
        if is_keyword:
            raise TypeError(f"{self.name}(): argument '{param.name}' must be {param.type_name}, not {type_name(value)}")
        where = f"{self.name}(): argument '{param.name}' (position {position + 1}) must be {param.type_name}"
        if param.kind == "ints" and isinstance(value, (tuple, list)) and value:
            raise TypeError(f"{where}, but found element of type {type_name(value[0])} at pos 0")
        raise TypeError(f"{where}, not {type_name(value)}")

    def _extra_keywords(self, kwargs, nargs):
        names = [p.name for p in self.params]
        for key in kwargs:  # NumPy's spellings are not looked up here: PyTorch calls them unexpected
            if key not in names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if key in names and names.index(key) < nargs:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
        raise TypeError("invalid keyword arguments")


def _keyword(kwargs, param):
    """The keyword a parameter was given by (its name or a NumPy spelling of it), or None."""
    if param.name in kwargs:
        return param.name
    return next((alias for alias in param.aliases if alias in kwargs), None)


_PYTHON_DTYPES = {float: "float64", int: "int64", bool: "bool_", complex: "complex128"}


def _unpacked(param, value):
    """``value`` as the function body expects it for ``param`` (the same object where nothing changes)."""
    kind, Tensor = param.kind, (_bound or _classes())[0]
    if kind == "layout":
        from ndgrad._metadata import strided

        return None if value is strided else value  # strided is what the default means; sparse_coo goes on
    if kind == "memory_format":
        from ndgrad._metadata import DEFAULT_FORMATS

        return None if value in DEFAULT_FORMATS else value  # channels_last reaches the body, which may refuse it
    if kind == "dtype" and value in _PYTHON_DTYPES and isinstance(value, type):
        import ndgrad._dtype

        return getattr(ndgrad._dtype, _PYTHON_DTYPES[value])
    if kind in ("int", "float", "scalar", "complex") and isinstance(value, (Tensor, np.generic)):
        return value.item()
    if kind == "floats" and isinstance(value, (tuple, list)) and not all(type(item) is float for item in value):
        return tuple(float(item) for item in value)  # as C++'s doubles: ints, bools, 0-d tensors as floats
    if kind == "ints":
        if isinstance(value, (Tensor, np.integer)):
            return int(value)
        if isinstance(value, (tuple, list)) and any(isinstance(item, (Tensor, np.integer, bool)) for item in value):
            return tuple(int(item) for item in value)  # a bool too: zeros(2, True) is zeros(2, 1)
    return value


# ---- a function's overloads together --------------------------------------------------------------------------
class Signature:
    """All overloads of one function; ``check`` passes a call that fits one and raises PyTorch's error otherwise.

    Whether a call fits depends, for most calls, only on the types of its arguments (and its keywords' names):
    those verdicts are remembered, so a call of a known shape costs one dictionary lookup. Lists and tuples, and
    tensors passed for numbers, are looked at each time.
    """

    def __init__(self, schemas, derive_method=False, body=None):
        self.schemas = schemas
        # the body's parameter names, in order, past the tensor a method is called on (None: it takes **kwargs)
        self.body = body
        self.accepted = None if body is None else frozenset(body)
        overloads = [_Overload(schema, derive_method) for schema in schemas]
        overloads = [overload for overload in overloads if overload.method_form]
        self.overloads = sorted(overloads, key=lambda overload: overload.deprecated)
        self.name = self.overloads[0].name
        self.fitting = {}  # call shape (see _call_shape) known to fit -> whether its positional ints make one list

    def check(self, args, kwargs):
        """Raise PyTorch's TypeError if the call fits none of the overloads; else return (args, kwargs, out): the
        call as the function body expects it (see _Overload.converted), and the out= tensors it writes, or None."""
        packs = None if kwargs else self.fitting.get(tuple(map(type, args)))
        if packs is None:
            return self.check_values(args, kwargs)
        return ((args,), kwargs, None) if packs else (args, kwargs, None)

    def check_values(self, args, kwargs):
        """``check`` for a call whose shape is not known to fit (the decorators' fast path missed)."""
        shape = _call_shape(args, kwargs)
        packs = self.fitting.get(shape)
        if packs is not None:
            return ((args,), kwargs, None) if packs else (args, kwargs, None)
        overload, bound = self._fitting_overload(args, kwargs)
        if overload.deprecated:
            self._warn_deprecated(overload)
        new_args, new_kwargs, shape_only = overload.converted(args, kwargs, bound)
        out = None
        if self.accepted is not None and not self.accepted.issuperset(new_kwargs):
            out = new_kwargs.pop("out", None) if "out" not in self.accepted else None
            new_kwargs, shape_only = self._body_keywords(new_kwargs, overload), False
        if shape_only and len(self.fitting) < _SHAPES_KEPT and all(_type_decides(p, v) for p, v, _ in bound):
            self.fitting[shape] = any(where is ALL_POSITIONAL for _, _, where in bound)
        return new_args, new_kwargs, out

    def recheck(self, args, kwargs):
        """For a call whose body failed: the error PyTorch's parser would have raised first, if a value does not fit
        (an int beyond int64 in a call of a remembered shape, whose values were not looked at); else nothing."""
        try:
            self._fitting_overload(args, kwargs)
        except Exception as error:
            error.__suppress_context__ = True  # the body's failure is a consequence, not news
            raise

    def _warn_deprecated(self, overload):
        if overload in _WARNED:
            return
        _WARNED.add(overload)
        instead = "".join(f"\n\t{self.name}{o.describe()}" for o in self.overloads if not o.hidden)
        warn(f"This overload of {self.name} is deprecated:\n\t{self.name}{overload.describe()}"
             + (f"\nConsider using one of the following signatures instead:{instead}" if instead else ""))

    def _body_keywords(self, kwargs, overload):
        """``kwargs`` as the body takes them. A keyword PyTorch names otherwise than the body goes to the body's
        positional parameter in the same place (``pow(self=2, exponent=x)``); one the body has no place for is a
        feature ndgrad lacks (``out=``, ``layout=``, ``memory_format=channels_last``), which given its default
        changes nothing."""
        kept, places = {}, [param.name for param in overload.params]
        for key, value in kwargs.items():
            index = places.index(key) if key in places else len(self.body)
            if key in self.accepted:
                kept[key] = value
            elif index < len(self.body) and not overload.params[index].keyword_only and self.body[index] not in kwargs:
                kept[self.body[index]] = value
            elif key == "pin_memory" and value:
                raise RuntimeError(
                    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
                    "available on this system."
                )
            elif value is not None and value is not False:
                raise NotImplementedError(f"{self.name}(): ndgrad does not support the argument '{key}'")
        return kept

    def _fitting_overload(self, args, kwargs):
        if len(self.overloads) == 1:
            overload = self.overloads[0]
            bound = overload.parse(args, kwargs, True)
            overload.unpack(bound)
            return overload, bound
        for overload in self.overloads:
            bound = overload.parse(args, kwargs, False)
            if bound is not None:
                overload.unpack(bound)
                return overload, bound
        given = len(args) + len(kwargs)
        plausible = [o for o in self.overloads if o.min_args <= given <= o.max_args and not o.hidden]
        if len(plausible) == 1:  # the only overload of this many arguments explains what is wrong with the call
            plausible[0].parse(args, kwargs, True)
        raise TypeError(self._invalid_combination(args, kwargs))

    def _invalid_combination(self, args, kwargs):
        """PyTorch's "received an invalid combination of arguments" message, with its quirks: it re-reads the
        printed signatures, so a parameter with a default is known by its default, and ``*`` counts as one."""
        options = [o.describe() for o in self.overloads if not o.hidden]
        keywords = dict(reversed(kwargs.items()))  # PyTorch's hash map lists two keywords last one first
        message = f"{self.name}() received an invalid combination of arguments - got "
        if len(options) == 1:
            arguments = _printed_arguments(options[0])
            unmatched = _unmatched_keywords(arguments, keywords)
            if unmatched:
                return message + "unrecognized keyword arguments: " + ", ".join(unmatched)
            if len(arguments) == len(args) + len(keywords):
                return message + _marked_types(arguments, args, keywords) + ", but expected " + options[0]
            return message + _types(args, keywords) + ", but expected " + options[0]
        message += _types(args, keywords) + ", but expected one of:\n"
        for option in options:
            message += f" * {option}\n"
            arguments = _printed_arguments(option)
            if len(arguments) == len(args) + len(keywords):
                unmatched = _unmatched_keywords(arguments, keywords)
                if unmatched:
                    message += "      didn't match because some of the keywords were incorrect: "
                    message += ", ".join(unmatched) + "\n"
                else:
                    message += "      didn't match because some of the arguments have invalid types: "
                    message += _marked_types(arguments, args, keywords) + "\n"
        return message


def _call_shape(args, kwargs):
    """The types of a call's arguments (a list's or tuple's with its elements' types), and its keywords' names."""
    shape = tuple(map(type, args))
    if tuple in shape or list in shape:
        shape = tuple(map(_type_and_items, args))
    if kwargs:
        values = tuple(map(type, kwargs.values()))
        if tuple in values or list in values:
            values = tuple(map(_type_and_items, kwargs.values()))
        shape = (shape, *kwargs, *values)
    return shape


def _type_and_items(value):
    return (type(value), *map(type, value)) if type(value) in (tuple, list) else type(value)


def _type_decides(param, value):
    """Whether every value of the same shape (see _call_shape) fits ``param`` too: not so for a tensor where a
    number or an int goes (its size, dtype and requires_grad count), in a list or not."""
    Tensor = (_bound or _classes())[0]
    if param.kind == "tensor" or param.kind == "tensors":
        return True
    if param.kind in ("memory_format", "layout"):
        return False  # the default values are dropped, the others are not: the value decides
    if type(value) in (tuple, list):
        return not any(isinstance(item, Tensor) for item in value)
    return not isinstance(value, Tensor)


def _printed_arguments(option):
    """(type, name) of each argument as PyTorch reads them back from a printed signature."""
    return [tuple(text.rsplit(" ", 1)) if " " in text else (text, text) for text in option[1:-1].split(", ")]


def _unmatched_keywords(arguments, keywords):
    names = {name for _, name in arguments[max(len(arguments) - len(keywords), 0):]}
    return [key for key in keywords if key not in names]


def _types(args, keywords):
    text = "".join(f"{type_name(a)}, " for a in args) + "".join(f"{k}={type_name(v)}, " for k, v in keywords.items())
    return f"({text[:-2] if args else text})"


def _matches_printed(printed_type, value):
    accepted = {"float": ("float", "int"), "int": ("int",)}.get(printed_type, (printed_type,))
    return type_name(value) in accepted


def _marked_types(arguments, args, keywords):
    """The call's types, with ``!`` around those that do not match the printed signature's."""
    text = ""
    for index, (printed_type, name) in enumerate(arguments):
        value = args[index] if index < len(args) else keywords.get(name, _MISSING)
        described = f"{name}=" if index >= len(args) else ""
        if isinstance(value, (tuple, list)):
            items = ", ".join(type_name(item) for item in value)
            described += f"{type_name(value)} of " + (f"({items}{',' if len(value) == 1 else ''})"
                                                      if isinstance(value, tuple) else f"[{items}]")
        else:
            described += type_name(value)
        text += (described if _matches_printed(printed_type, value) else f"!{described}!") + ", "
    return f"({text[:-2] if args else text})"


# ---- the decorators -------------------------------------------------------------------------------------------
def parses(*schemas):
    """Declare a public function's overloads (as in PyTorch's native_functions.yaml); calls are checked first."""

    def decorate(function):
        signature = Signature(schemas, body=_parameter_names(function))
        fitting = signature.fitting

        @functools.wraps(function)
        def checked(*args, **kwargs):
            # the common call: one dict lookup, its key written out for one or two arguments (4x faster than map)
            packs = None if kwargs else fitting.get(
                (type(args[0]),) if len(args) == 1 else
                (type(args[0]), type(args[1])) if len(args) == 2 else tuple(map(type, args))
            )
            out = None
            if packs is None:
                run_args, run_kwargs, out = signature.check_values(args, kwargs)
            else:
                run_args, run_kwargs = ((args,) if packs else args), kwargs
            try:
                result = function(*run_args, **run_kwargs)
            except MemoryError as error:  # NumPy's, for an allocation too large: PyTorch's words for it
                raise _allocation_error(error) from None
            except Exception:
                signature.recheck(args, kwargs)  # a remembered call shape's values were not looked at: they come first
                raise
            return result if out is None else _written(signature.name, result, out)

        checked.signature, checked.is_method = signature, False
        return checked

    return decorate


def takes_one_argument(function):
    """A function PyTorch defines in C with one positional parameter (METH_O): CPython refuses keywords and any
    other count, in its own words; the function checks the value's type itself, as PyTorch's does."""

    @functools.wraps(function)
    def checked(*args, **kwargs):
        if kwargs:
            raise TypeError(f"ndgrad.{function.__name__}() takes no keyword arguments")
        if len(args) != 1:
            raise TypeError(f"ndgrad.{function.__name__}() takes exactly one argument ({len(args)} given)")
        return function(*args)

    return checked


def takes_no_arguments(function):
    """A function PyTorch defines in C with no parameters: CPython refuses any argument, in its own words."""

    @functools.wraps(function)
    def checked(*args, **kwargs):
        if args or kwargs:
            given = f"arguments ({len(args)} given)" if args else "keyword arguments"
            raise TypeError(f"ndgrad.{function.__name__}() takes no {given}")
        return function()

    return checked


def alias(checked, *schemas):
    """Another public name of a function or method declared here, which PyTorch parses under that name and these
    ``schemas`` (``torch.divide`` for ``torch.div``, ``Tensor.divide_`` for ``Tensor.div_``)."""
    if checked.is_method:
        return _checked_method(checked.__wrapped__, Signature(schemas, body=checked.signature.body))
    return parses(*schemas)(checked.__wrapped__)


def parses_method(*schemas):
    """``parses`` for a Tensor method, declared as PyTorch declares methods: without the tensor it is called on
    (``add_(Tensor other, *, Scalar alpha=1)``)."""

    def decorate(method):
        return _checked_method(method, Signature(schemas, body=_parameter_names(method, method=True)))

    return decorate


def tensor_method(function, *schemas):
    """The Tensor method of a function: ``x.sum(0)`` runs ``sum(x, 0)`` after checking ``(0,)`` against the method
    form of the function's declared overloads, or against ``schemas`` (method forms, for a function torch has
    only as a method, such as ``view``).

    A method that takes no arguments needs none of this: it is a plain ``def exp(self)`` that calls the function's
    body, ``exp.__wrapped__(self)``, as ``self`` is a Tensor and a call of the wrong arity is Python's own error
    (worded as PyTorch's by ndgrad._tensor_surface)."""
    run = getattr(function, "__wrapped__", function)
    body = _parameter_names(run, method=True)
    if schemas:
        return _checked_method(run, Signature(schemas, body=body))
    return _checked_method(run, Signature(function.signature.schemas, True, body))


def _allocation_error(error):
    """PyTorch's error for NumPy's MemoryError of an allocation too large (the error itself for another)."""
    from ndgrad._device import allocation_error  # the device module declares its own signatures here

    return allocation_error(error) or error


def _written(name, result, out):
    from ndgrad._out import write_out  # the out= path only: it needs the dtypes, which are declared here

    return write_out(name, result, out)


def _parameter_names(function, method=False):
    """The names of ``function``'s parameters in order (a method's past its first), or None if it takes
    **kwargs."""
    parameters = list(inspect.signature(function).parameters.values())[1 if method else 0:]
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return tuple(p.name for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL)


# In-place methods whose own checks come first in PyTorch: resize_ refuses any tensor that requires grad, and
# fill_diagonal_ writes through a view of self, which words the refusal of a leaf as a view's
_OWN_REFUSALS = frozenset({"resize_", "resize_as_", "fill_diagonal_"})


def _checked_method(run, signature):
    fitting = signature.fitting
    # PyTorch's logical_*_ run outside autograd (see ndgrad.ops.comparison._logical_): no refusal comes first
    name = signature.name
    inplace = name.endswith("_") and not name.startswith(("_", "logical_")) and name not in _OWN_REFUSALS

    @functools.wraps(run)
    def method(self, *args, **kwargs):
        packs = None if kwargs else fitting.get(  # the key as in parses' checked, with x.sum() as ()
            () if not args else (type(args[0]),) if len(args) == 1 else tuple(map(type, args))
        )
        if packs is None:
            run_args, run_kwargs, _ = signature.check_values(args, kwargs)  # a method has no out=
        else:
            run_args, run_kwargs = ((args,) if packs else args), kwargs
        try:
            return run(self, *run_args, **run_kwargs)
        except MemoryError as error:
            raise _allocation_error(error) from None
        except Exception as error:
            signature.recheck(args, kwargs)
            if inplace and isinstance(error, (RuntimeError, IndexError)):  # PyTorch refuses some in-place writes first
                from ndgrad.ops._op import inplace_refusal

                refusal = inplace_refusal(self, error)
                if refusal is not error:
                    raise refusal from None
            raise

    method.signature, method.is_method = signature, True
    return method
