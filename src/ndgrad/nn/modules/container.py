"""Containers (see torch.nn.modules.container): Sequential chains modules; ModuleList and ModuleDict hold them;
ParameterList and ParameterDict hold parameters. Whatever they hold is registered, so the Module API sees it."""

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from ndgrad._tensor import Tensor
from ndgrad.nn.modules.module import Module, _addindent, typename
from ndgrad.nn.parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _absolute_index(idx, size):
    """A list index in [0, size), or PyTorch's IndexError."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


def _renumbered(modules):
    return OrderedDict((str(i), module) for i, module in enumerate(modules.values()))


def _digits_hidden(keys):
    """__dir__ of the list-like containers: their '0', '1', ... entries are not attribute names."""
    return [key for key in keys if not key.isdigit()]


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: modules under the keys '0', '1', ... kept contiguous."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _digits_hidden(super().__dir__())

    def __delitem__(self, idx):
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_absolute_index(idx, len(keys))]]:
            delattr(self, key)
        self._modules = _renumbered(self._modules)

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def append(self, module):
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def _insert(self, index, module):
        size = len(self._modules)
        for i in range(size, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module


class Sequential(_ModuleSequence):
    """Calls its modules in order, each on the previous one's output (see torch.nn.Sequential)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), _absolute_index(idx, len(self)), None))

    def __setitem__(self, idx, module):
        key = next(islice(self._modules, _absolute_index(idx, len(self)), None))
        setattr(self, key, module)

    def _combined(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return other

    def __add__(self, other):
        return Sequential().extend(self).extend(self._combined(other))

    def __iadd__(self, other):
        offset = len(self)
        for i, module in enumerate(self._combined(other)):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        for _ in range(other):
            combined.extend(self)
        return combined

    __rmul__ = __mul__

    def __imul__(self, other):
        self._check_factor(other)
        originals = list(self._modules.values())
        for _ in range(other - 1):
            self.extend(originals)
        return self

    def insert(self, index, module):
        """Put ``module`` at ``index``, shifting the later ones up."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        self._insert(index + size if index < 0 else index, module)
        return self

    def extend(self, sequential):
        for module in sequential:
            self.append(module)
        return self


class ModuleList(_ModuleSequence):
    """A list of modules, registered so that the Module API sees them (see torch.nn.ModuleList)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_absolute_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_absolute_index(idx, len(self))), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for index, module in enumerate(chain(self, other)):
            combined.add_module(str(index), module)
        return combined

    def insert(self, index, module):
        """Put ``module`` before ``index``."""
        self._insert(index, module)

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        offset = len(self)
        for index, module in enumerate(modules):
            self.add_module(str(offset + index), module)
        return self

    def __repr__(self):
        """Runs of identical children print once, as '(0-2): 3 x Linear(...)'."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for index, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        lines = [
            _addindent(f"({first}): {text}" if first == last else f"({first}-{last}): {last - first + 1} x {text}", 2)
            for first, last, text in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _pairs(values, container):
    """The (key, value) pairs of a mapping or of an iterable of pairs, checked as PyTorch checks them."""
    for index, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            raise TypeError(
                f"{container} update sequence element #{index} should be Iterable; is{type(pair).__name__}"
            )
        if len(pair) != 2:
            raise ValueError(f"{container} update sequence element #{index} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]


class ModuleDict(Module):
    """An ordered dict of modules, registered so that the Module API sees them (see torch.nn.ModuleDict)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(
                f"ModuleDict.update should be called with an iterable of key/value pairs, but got "
                f"{type(modules).__name__}"
            )
        pairs = modules.items() if isinstance(modules, (Mapping, ModuleDict)) else _pairs(modules, "ModuleDict")
        for key, module in pairs:
            self[key] = module


def _as_parameter(value):
    """Containers of parameters turn a plain Tensor into a Parameter and keep anything else as it is."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


def _describe(key, value, type_name):
    """One line of ParameterList / ParameterDict's repr."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(size) for size in value.shape)
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters (tensors become Parameters), registered as '0', '1', ... (see torch.nn.ParameterList)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for index in range(*idx.indices(len(self))):
                out.append(self[index])
            return out
        return getattr(self, str(_absolute_index(idx, len(self))))

    def __setitem__(self, idx, value):
        setattr(self, str(_absolute_index(idx, len(self))), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return _digits_hidden(super().__dir__())

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_describe(index, value, lambda t: t.dtype) for index, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors become Parameters) (see torch.nn.ParameterDict)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key):
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                f"'{type(key).__name__}'). Open an issue on github if you need non-string keys."
            )
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, self._key_to_attr(key), _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in self._keys.copy():
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((key, default) for key in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, but got "
                f"{type(parameters).__name__}"
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())  # NOTE: PyTorch sorts a plain mapping's keys
        else:
            pairs = _pairs(parameters, "ParameterDict")
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_describe(key, value, typename) for key, value in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
