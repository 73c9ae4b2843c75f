"""The unpickler behind ndgrad.load: a small interpreter of the pickle opcodes torch.save writes (protocol 2) that
builds only what an allow-list names, as torch.load(weights_only=True) does.

Why an interpreter of its own rather than pickle.Unpickler with ``find_class`` overridden: the standard unpickler's
BUILD sets any attribute of any object and its REDUCE calls whatever callable reached the stack. Here each opcode
says what it may touch: REDUCE and NEWOBJ call only the allow-list's callables, BUILD fills only an OrderedDict's
attributes or an allow-listed user class, APPEND fills only lists and SETITEM only dicts. Nothing is imported and
every length is checked against the bytes the file holds, so a pickle can neither run code nor claim memory it
does not contain. That includes copies: a pickle can name one container many times (a memo GET is two bytes), so
the elements of the containers that REDUCE, NEWOBJ and BUILD are given count against the pickle's length.

A pickle is a program for a stack machine: each opcode pushes a value, or pops some and pushes what they build.
MARK opens a group that TUPLE, APPENDS or SETITEMS close; PUT and GET name values so that a shared object is built
once; STOP returns the top of the stack."""

import pickle
import struct
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
from collections import Counter, OrderedDict

__all__ = ["UnpicklingError", "load_pickle", "unsupported_global", "global_name"]

UnpicklingError = pickle.UnpicklingError


def global_name(module, name):
    """The Python 3 name of a GLOBAL: protocol 2 writes some in Python 2's names (``__builtin__ set``,
    ``commands Popen``), which pickle (and torch) read back through these tables of the standard library."""
    module, name = NAME_MAPPING.get((module, name), (IMPORT_MAPPING.get(module, module), name))
    return f"{module}.{name}"


def unsupported_global(full_name):
    """torch's message for a global off the allow-list, in ndgrad's names (builtins are named without a module)."""
    shown = full_name[len("builtins."):] if full_name.startswith("builtins.") else full_name
    return UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`ndgrad.serialization.add_safe_globals([{shown}])` or the `ndgrad.serialization.safe_globals([{shown}])` "
        "context manager to allowlist this global if you trust this class/function."
    )


def load_pickle(stream, *, callables, values, buildable, persistent_load, encoding="utf-8"):
    """The object that the pickle at ``stream``'s position (an io.BytesIO) describes, leaving the stream after it.
    A GLOBAL resolves through ``callables`` (names to
    the functions and classes REDUCE and NEWOBJ may call) or ``values`` (names to objects that are only passed
    along: dtypes, storage types, the Tensor class); BUILD fills instances of the classes in ``buildable``;
    BINPERSID hands its id to ``persistent_load``. ``encoding`` decodes Python 2 strings ("bytes" keeps them as
    bytes). Every problem raises UnpicklingError."""
    machine = _Machine(stream, callables, values, buildable, persistent_load, encoding)
    try:
        return machine.run()
    except UnpicklingError:
        raise
    except _CallerError as passed:  # the archive's, map_location's or a missing GPU's error, as torch raises it
        raise passed.error from None
    except Exception as error:  # noqa: BLE001 - what an allowed call refused (TypeError, ValueError, ...) is the file's fault
        raise UnpicklingError(f"{type(error).__name__}: {error}") from error


class _CallerError(Exception):
    """Carries an error of persistent_load's own past load_pickle, which raises it unconverted."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


class _Machine:
    def __init__(self, stream, callables, values, buildable, persistent_load, encoding):
        self.stream = stream
        start = stream.tell()
        self.copy_budget = 2 * (stream.seek(0, 2) - start)  # elements calls may copy: two per byte of the pickle
        stream.seek(start)
        self.callables, self.values, self.persistent_load, self.encoding = callables, values, persistent_load, encoding
        self.callable_ids = {id(obj) for obj in callables.values()}
        self.buildable_ids = {id(cls) for cls in buildable}
        self.stack, self.marks, self.memo = [], [], {}

    def run(self):
        while True:
            code = self.read(1)
            operation = _OPERATIONS.get(code)
            if operation is None:
                raise UnpicklingError(f"Unsupported operand {code[0]}")
            if operation is _stop:
                return self.pop()
            operation(self)

    # ---- reading the stream and the stack, with every shortfall reported as the file's
    def read(self, count):
        data = self.stream.read(count)
        if len(data) != count:
            raise UnpicklingError("pickle data was truncated")
        return data

    def read_line(self):
        line = self.stream.readline()
        if not line.endswith(b"\n"):
            raise UnpicklingError("pickle data was truncated")
        return line[:-1].decode("utf-8")

    def unpack(self, layout):
        return struct.unpack(layout, self.read(struct.calcsize(layout)))[0]

    def push(self, value):
        self.stack.append(value)

    def pop(self):
        if not self.stack:
            raise UnpicklingError("unpickling stack underflow")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise UnpicklingError("unpickling stack underflow")
        return self.stack[-1]

    def pop_mark(self):
        """The values pushed since the last MARK, which is closed."""
        if not self.marks:
            raise UnpicklingError("could not find MARK")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def pop_many(self, count):
        if len(self.stack) < count:
            raise UnpicklingError("unpickling stack underflow")
        items = self.stack[len(self.stack) - count:]
        del self.stack[len(self.stack) - count:]
        return items

    def require_callable(self, func, action):
        if id(func) not in self.callable_ids:
            raise UnpicklingError(f"Trying to {action} unrecognized function {func!r}")

    def charge(self, values):
        """Counts the elements that a call (or BUILD) given ``values`` may copy against the copy budget: those of
        each container among them, and of the containers in a tuple among them (BUILD's (state, slots)). A pickle
        that builds each container for one call spends at most twice its length (bytes, then a bytearray of them)."""
        for value in values:
            for part in (value, *value) if type(value) is tuple else (value,):
                if isinstance(part, (str, bytes, bytearray, tuple, list, dict, set, frozenset)):
                    self.copy_budget -= len(part)
                    if self.copy_budget < 0:
                        raise UnpicklingError("the pickle passes its containers to more calls than its length allows")


# ---- the opcodes (pickle's names) ----------------------------------------------------------------------------
def _proto(machine):
    protocol = machine.read(1)[0]
    if protocol > 5:
        raise UnpicklingError(f"unsupported pickle protocol: {protocol}")


def _stop(machine):
    """Handled by _Machine.run: the top of the stack is the result."""


def _global(machine):
    full_name = global_name(machine.read_line(), machine.read_line())
    for table in (machine.callables, machine.values):
        if full_name in table:
            return machine.push(table[full_name])
    raise unsupported_global(full_name)


def _reduce(machine):
    args = machine.pop()
    func = machine.pop()
    machine.require_callable(func, "call reduce for")
    if type(args) is not tuple:
        raise UnpicklingError(f"REDUCE's arguments must be a tuple, not {type(args).__name__}")
    machine.charge(args)
    machine.push(func(*args))


def _newobj(machine):
    args = machine.pop()
    cls = machine.pop()
    machine.require_callable(cls, "create new object for")
    if not isinstance(cls, type) or type(args) is not tuple:
        raise UnpicklingError(f"NEWOBJ needs a class and a tuple, not {type(cls).__name__} and {type(args).__name__}")
    if cls.__new__ is object.__new__ and id(cls) not in machine.buildable_ids:  # an empty shell that BUILD cannot fill
        raise UnpicklingError(f"NEWOBJ cannot make a {cls.__qualname__}: its objects are made whole by calling it")
    machine.charge(args)
    machine.push(cls.__new__(cls, *args))


def _build(machine):
    """Sets an object's state: an OrderedDict's attributes (a state dict's ``_metadata``), or an instance of an
    allow-listed user class, through its ``__setstate__`` or else its ``__dict__`` and slots, as pickle would."""
    state = machine.pop()
    inst = machine.top()
    machine.charge((state,))
    if type(inst) is OrderedDict:
        if type(state) is not dict or not all(type(key) is str for key in state):
            raise UnpicklingError("an OrderedDict's state must be a dict of attribute names")
        inst.__dict__.update(state)
    elif id(type(inst)) in machine.buildable_ids:
        setstate = getattr(type(inst), "__setstate__", None)  # the class's: not one an earlier BUILD put in __dict__
        if setstate is not None:
            setstate(inst, state)
            return
        slots = None
        if type(state) is tuple and len(state) == 2:
            state, slots = state
        if state:
            inst.__dict__.update(state)
        for key, value in (slots or {}).items():
            setattr(inst, key, value)
    else:
        raise UnpicklingError(
            "Can only build OrderedDict or types allowlisted via `add_safe_globals`, but got "
            f"{type(inst).__qualname__}"
        )


def _append(machine):
    item = machine.pop()
    _list_to_fill(machine).append(item)


def _appends(machine):
    items = machine.pop_mark()
    _list_to_fill(machine).extend(items)


def _list_to_fill(machine):
    target = machine.top()
    if type(target) is not list:
        raise UnpicklingError(f"Can only append to lists, but got {type(target).__qualname__}")
    return target


def _setitem(machine):
    key, value = machine.pop_many(2)
    _dict_to_fill(machine)[key] = value


def _setitems(machine):
    items = machine.pop_mark()
    if len(items) % 2:
        raise UnpicklingError("SETITEMS needs keys and values in pairs")
    target = _dict_to_fill(machine)
    for index in range(0, len(items), 2):
        target[items[index]] = items[index + 1]


def _dict_to_fill(machine):
    target = machine.top()
    if type(target) not in (dict, OrderedDict, Counter):
        raise UnpicklingError(f"Can only set items of dicts, but got {type(target).__qualname__}")
    return target


def _mark(machine):
    machine.marks.append(machine.stack)
    machine.stack = []


def _tuple(machine):
    machine.push(tuple(machine.pop_mark()))


def _tuple_of(count):
    def build(machine):
        machine.push(tuple(machine.pop_many(count)))
    return build


def _constant(value_factory):
    def push(machine):
        machine.push(value_factory())
    return push


def _unpacked(layout):
    def push(machine):
        machine.push(machine.unpack(layout))
    return push


def _long1(machine):
    machine.push(int.from_bytes(machine.read(machine.read(1)[0]), "little", signed=True))


def _binunicode(machine):
    machine.push(str(machine.read(machine.unpack("<I")), "utf-8", "surrogatepass"))


def _short_binstring(machine):
    data = machine.read(machine.read(1)[0])
    machine.push(data if machine.encoding == "bytes" else data.decode(machine.encoding))


def _binpersid(machine):
    pid = machine.pop()
    try:
        storage = machine.persistent_load(pid)
    except UnpicklingError:
        raise
    except Exception as error:  # noqa: BLE001 - raised as it is, by load_pickle
        raise _CallerError(error) from error
    machine.push(storage)


def _get(layout):
    def push(machine):
        index = machine.unpack(layout)
        if index not in machine.memo:
            raise UnpicklingError(f"Memo value not found at index {index}")
        machine.push(machine.memo[index])
    return push


def _put(layout):
    def remember(machine):
        machine.memo[machine.unpack(layout)] = machine.top()
    return remember


_OPERATIONS = {
    pickle.PROTO: _proto, pickle.STOP: _stop, pickle.GLOBAL: _global, pickle.REDUCE: _reduce,
    pickle.NEWOBJ: _newobj, pickle.BUILD: _build, pickle.APPEND: _append, pickle.APPENDS: _appends,
    pickle.SETITEM: _setitem, pickle.SETITEMS: _setitems, pickle.MARK: _mark, pickle.TUPLE: _tuple,
    pickle.TUPLE1: _tuple_of(1), pickle.TUPLE2: _tuple_of(2), pickle.TUPLE3: _tuple_of(3),
    pickle.NONE: _constant(lambda: None), pickle.NEWFALSE: _constant(lambda: False),
    pickle.NEWTRUE: _constant(lambda: True), pickle.EMPTY_TUPLE: _constant(tuple), pickle.EMPTY_LIST: _constant(list),
    pickle.EMPTY_DICT: _constant(dict), pickle.EMPTY_SET: _constant(set),
    pickle.BININT: _unpacked("<i"), pickle.BININT1: _unpacked("<B"), pickle.BININT2: _unpacked("<H"),
    pickle.BINFLOAT: _unpacked(">d"), pickle.LONG1: _long1, pickle.BINUNICODE: _binunicode,
    pickle.SHORT_BINSTRING: _short_binstring, pickle.BINPERSID: _binpersid,
    pickle.BINGET: _get("<B"), pickle.LONG_BINGET: _get("<I"),
    pickle.BINPUT: _put("<B"), pickle.LONG_BINPUT: _put("<I"),
}
