"""ndgrad.load on hostile, damaged and forged files. The contract: a problem inside the pickle raises
pickle.UnpicklingError("Weights only load failed. ... WeightsUnpickler error: <problem>"); a problem with the archive
raises RuntimeError("ndgrad.load: invalid file: <problem>") (or, in a legacy file's header, torch's "Invalid magic
number; corrupt file?" and "Invalid protocol version: ..."); nothing else escapes, nothing the file names runs, and
nothing much larger than the file is allocated.

The oracles: real torch.load(weights_only=True) refuses the same hostile bytes (where it is stricter or laxer, the
case says so and checks it), and Python's own unpickler shows that each code-running pickle does run its code."""

import builtins
import codecs
import functools
import importlib
import io
import os
import pickle
import pickletools
import struct
import subprocess
import sys
import tracemalloc
import warnings
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
import torch

import ndgrad

INVALID = "ndgrad.load: invalid file: "
WEIGHTS_ONLY = "Weights only load failed."
LEGACY_HEADER_ERRORS = ("Invalid magic number; corrupt file?", "Invalid protocol version: ")
FIRED = []  # the arguments fire() was called with: what a pickle that ran code would leave behind


def fire(*args):
    FIRED.append(args)


@pytest.fixture(autouse=True)
def nothing_fired_and_no_safe_globals():
    FIRED.clear()
    yield
    ndgrad.serialization.clear_safe_globals()
    torch.serialization.clear_safe_globals()
    assert not FIRED


# ---- crafting files --------------------------------------------------------------------------------------------
class Call:
    """Pickles as a call ``func(*args)`` (REDUCE), followed by BUILD of ``state`` when one is given."""

    def __init__(self, func, *args, state=None):
        self.func, self.args, self.state = func, args, state

    def __reduce__(self):
        return (self.func, self.args) if self.state is None else (self.func, self.args, self.state)

    def __call__(self, *args):  # pickle wants a callee that is callable, and a Call may be the callee of another
        raise AssertionError("a crafted call is pickled, never called")


class Pid:
    """Pickles as a persistent id (BINPERSID) whose value is ``value``, pickled too."""

    def __init__(self, value):
        self.value = value


class Storage:
    """Pickles as the persistent id of a storage as torch.save writes it into a zip archive (five fields) or a
    legacy file (six, the last None). By default, storage "0" of FILES[...]: two float32 elements."""

    def __init__(self, kind="FloatStorage", numel=2, key="0"):
        self.fields = "storage", getattr(torch, kind), key, "cpu", numel


STORAGE = Storage()


def tensor(storage=STORAGE, offset=0, size=(2,), stride=(1,), requires_grad=False, hooks=None, state=None):
    """torch's pickle of a tensor: _rebuild_tensor_v2 of a storage, with the fields given (and BUILD of ``state``)."""
    hooks = Call(OrderedDict) if hooks is None else hooks
    return Call(torch._utils._rebuild_tensor_v2, storage, offset, size, stride, requires_grad, hooks, state=state)


class _Crafter(pickle.Pickler):
    """Protocol 2 in Python 3's names (``builtins set``, not ``__builtin__ set``), as torch and ndgrad read them."""

    def __init__(self, stream, legacy):
        super().__init__(stream, protocol=2, fix_imports=False)
        self.legacy = legacy

    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return obj.fields + ((None,) if self.legacy else ())
        return obj.value if isinstance(obj, Pid) else None


def crafted(obj, legacy=False):
    """The protocol-2 pickle of ``obj``, with Call, Pid and STORAGE as they say."""
    out = io.BytesIO()
    _Crafter(out, legacy).dump(obj)
    return out.getvalue()


def torch_bytes(obj, legacy=False, saver=torch.save):
    out = io.BytesIO()
    saver(obj, out, _use_new_zipfile_serialization=not legacy)
    return out.getvalue()


def records(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def rezipped(data, edit):
    """The zip archive ``data`` with each record's bytes replaced by ``edit(name, bytes)``, dropped where that is
    None; an edit may also return [(name, bytes, compression)] to write in its place."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name", where that is the point
        for info, content in records(data):
            result = edit(info.filename, content)
            for name, new, compression in [] if result is None else (
                    result if isinstance(result, list) else [(info.filename, result, zipfile.ZIP_STORED)]):
                entry = zipfile.ZipInfo(name, date_time=info.date_time)
                entry.compress_type = compression
                archive.writestr(entry, new)
    return out.getvalue()


def pickles_of(data):
    """[start, ..., end] offsets of the pickles at the start of ``data`` (a legacy file: five, then the bytes)."""
    stream, bounds = io.BytesIO(data), [0]
    for _ in range(5):
        for opcode, _, position in pickletools.genops(stream):
            if opcode.name == "STOP":
                bounds.append(position + 1)
                break
    return bounds


def with_pickle(data, pickled):
    """``data`` (a torch file of torch.ones(2), zip or legacy) with the object's pickle replaced by ``pickled``."""
    if data.startswith(b"PK"):
        return rezipped(data, lambda name, content: pickled if name.endswith("/data.pkl") else content)
    bounds = pickles_of(data)
    return data[:bounds[3]] + pickled + data[bounds[4]:]


# ones(2) in each format, its storage "0" (torch keys a legacy file's storages by their address: ndgrad writes it)
FILES = {"zip": torch_bytes(torch.ones(2)), "legacy": torch_bytes(ndgrad.ones(2), legacy=True, saver=ndgrad.save)}


def wrapped(obj_or_pickle, form):
    pickled = obj_or_pickle if isinstance(obj_or_pickle, bytes) else crafted(obj_or_pickle, form == "legacy")
    return with_pickle(FILES[form], pickled)


def load(data, **load_args):
    return ndgrad.load(io.BytesIO(data), **load_args)


def problem(error):
    """The "WeightsUnpickler error: ..." line of a refusal, after checking the contract's form of the message."""
    text = str(error)
    assert type(error) is pickle.UnpicklingError and text.startswith(WEIGHTS_ONLY), text
    return text.split("WeightsUnpickler error: ", 1)[1].split("\n", 1)[0]


def refusal(data, **load_args):
    with pytest.raises(pickle.UnpicklingError) as error:
        load(data, **load_args)
    return problem(error.value)


def torch_refusal(data):
    """torch's refusal of ``data`` (any exception: it is the oracle for "refused", not for the type)."""
    with pytest.raises(Exception) as error, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.load(io.BytesIO(data), weights_only=True)
    return error.value


def same_unsupported_global(ours, theirs):
    """torch's "Unsupported global" line equals ndgrad's once torch's names become ndgrad's, where both say one."""
    marker = "Unsupported global: "
    theirs = str(theirs).replace("torch.serialization.", "ndgrad.serialization.")
    if marker in ours and marker in theirs:
        assert ours == theirs.split("WeightsUnpickler error: ", 1)[1].split("\n", 1)[0]


@pytest.mark.parametrize("form", ["zip", "legacy"])
def test_crafted_files_load_as_torch_and_ndgrad_files(form):
    """The crafting itself: a crafted pickle of a tensor loads in both, as the file it replaces does."""
    for data in (FILES[form], wrapped(tensor(), form), wrapped({"w": [tensor(size=(1,), stride=(1,))]}, form)):
        assert_like_torch(load(data), torch.load(io.BytesIO(data)))
    assert load(wrapped(tensor(), form)).tolist() == [1.0, 1.0]


# ---- 1. hostile pickles ----------------------------------------------------------------------------------------
def _touch(path):
    return f"open({str(path)!r}, 'w').close()"


class Sentinel:
    """Its __setstate__ creates the file its state names: what BUILD on an object of a hostile class would run."""

    def __init__(self, path):
        self.path = str(path)

    def __setstate__(self, state):
        open(state["path"], "w").close()


MODULE = __name__
# name: (the object whose pickle would create ``path`` when unpickled, the global ndgrad refuses first)
RUNS_CODE = {
    "os.system": (lambda path: Call(os.system, f"touch {path}"), "posix.system"),
    "eval": (lambda path: Call(eval, _touch(path)), "eval"),
    "builtins.exec": (lambda path: Call(builtins.exec, _touch(path)), "exec"),
    "subprocess.Popen": (lambda path: Call(subprocess.Popen, ["touch", str(path)]), "subprocess.Popen"),
    "getattr chain": (lambda path: Call(Call(getattr, Call(__import__, "os"), "system"), f"touch {path}"), "getattr"),
    "importlib.import_module": (
        lambda path: Call(Call(getattr, Call(importlib.import_module, "os"), "system"), f"touch {path}"), "getattr"),
    "functools.partial": (lambda path: Call(Call(functools.partial, os.system, f"touch {path}")), "functools.partial"),
    "a module-level function": (lambda path: Call(fire, str(path)), f"{MODULE}.fire"),
    "a class's __setstate__": (lambda path: Sentinel(path), f"{MODULE}.Sentinel"),
    "inside a state dict": (
        lambda path: {"w": tensor(), "layers": [{"bias": tensor(), "x": Call(os.system, f"touch {path}")}]},
        "posix.system"),
    "in a tensor's rebuild call": (lambda path: tensor(hooks=Call(fire, str(path))), f"{MODULE}.fire"),
    "as a storage type": (lambda path: [Pid(("storage", Call(fire, str(path)), "0", "cpu", 2))], f"{MODULE}.fire"),
    "as the persistent id": (lambda path: {"w": Pid(Call(os.system, f"touch {path}"))}, "posix.system"),
    "protocol 4 (FRAME)": (lambda path: pickle.dumps(Call(fire, str(path)), protocol=4), "Unsupported operand 149"),
    "protocol 5 (FRAME)": (lambda path: pickle.dumps(Call(fire, str(path)), protocol=5), "Unsupported operand 149"),
    "STACK_GLOBAL": (lambda path: b"\x80\x02" + b"".join(_unicode(text) for text in (MODULE, "fire")) + b"\x93"
                     + _unicode(str(path)) + b"\x85R.", "Unsupported operand 147"),
    "INST": (lambda path: b"\x80\x02(" + _unicode(str(path)) + f"i{MODULE}\nfire\n.".encode(),
             "Unsupported operand 105"),
}


def _unicode(text):
    return b"X" + struct.pack("<I", len(text.encode())) + text.encode()


class _PlainUnpickler(pickle.Unpickler):
    """Python's unpickler, which runs what a pickle names; its storages are torch's."""

    def persistent_load(self, pid):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.ones(2).storage()


@pytest.mark.parametrize("form", ["zip", "legacy"])
@pytest.mark.parametrize("name", RUNS_CODE)
def test_a_pickle_that_runs_code_is_refused_and_runs_nothing(name, form, tmp_path):
    make, refused = RUNS_CODE[name]
    path = tmp_path / "ran"
    data = wrapped(make(path), form)
    ours = refusal(data)
    assert ours.startswith(refused if refused.startswith("Unsupported operand") else
                           f"Unsupported global: GLOBAL {refused} was not an allowed global by default."), ours
    same_unsupported_global(ours, torch_refusal(data))
    assert not path.exists() and not FIRED
    result = _PlainUnpickler(io.BytesIO(_object_pickle(data))).load()  # the control: unrestricted, it runs
    if isinstance(result, subprocess.Popen):
        result.wait()
    assert path.exists() or FIRED == [(str(path),)]
    FIRED.clear()


def _object_pickle(data):
    if data.startswith(b"PK"):
        return next(content for info, content in records(data) if info.filename.endswith("/data.pkl"))
    bounds = pickles_of(data)
    return data[bounds[3]:bounds[4]]


_OD = b"ccollections\nOrderedDict\n"
# name: (the pickle or object, what ndgrad's refusal says, what torch does: "refuses", "loads" or "not run" where
# torch.load would allocate what the pickle asks for)
REFUSED = {
    "MEMOIZE": (b"\x80\x02" + _OD + b"\x94)R.", "Unsupported operand 148", "refuses"),
    "OBJ": (b"\x80\x02(" + _OD + b"o.", "Unsupported operand 111", "refuses"),
    "EXT1": (b"\x80\x02\x82\x01.", "Unsupported operand 130", "refuses"),
    "protocol 6": (b"\x80\x06N.", "unsupported pickle protocol: 6", "loads"),
    "REDUCE of a dtype": (b"\x80\x02ctorch\nfloat32\n)R.", "Trying to call reduce for unrecognized function",
                          "refuses"),
    "REDUCE of a list": (b"\x80\x02])R.", "Trying to call reduce for unrecognized function []", "refuses"),
    "REDUCE with a list of arguments": (b"\x80\x02" + _OD + b"]R.", "REDUCE's arguments must be a tuple", "loads"),
    "NEWOBJ of a dtype": (b"\x80\x02ctorch\nfloat32\n)\x81.", "Trying to create new object for unrecognized",
                          "refuses"),
    "NEWOBJ of a device, never initialized": (b"\x80\x02ctorch\ndevice\n)\x81.", "NEWOBJ cannot make a device",
                                              "refuses"),
    "BUILD on a Tensor setting __class__": (tensor(state={"__class__": OrderedDict}),
                                            "Can only build OrderedDict or types allowlisted", "refuses"),
    "BUILD on a Tensor setting __dict__": (tensor(state={"__dict__": {"grad": 1}}),
                                           "Can only build OrderedDict or types allowlisted", "refuses"),
    "BUILD on a set setting __class__": (Call(set, [], state={"__class__": OrderedDict}),
                                         "Can only build OrderedDict or types allowlisted", "refuses"),
    "APPEND onto a dict": (b"\x80\x02}K\x01a.", "Can only append to lists, but got dict", "refuses"),
    "APPENDS onto a tuple": (b"\x80\x02)(K\x01e.", "Can only append to lists, but got tuple", "refuses"),
    "SETITEM on a list": (b"\x80\x02]K\x01K\x02s.", "Can only set items of dicts, but got list", "refuses"),
    "SETITEMS on a set": (b"\x80\x02c__builtin__\nset\n)R(K\x01K\x02u.", "Can only set items of dicts, but got set",
                          "refuses"),
    "_codecs.encode with another encoding": (Call(codecs.encode, "text", "utf-16"),
                                             "_codecs.encode is allowed only as pickle writes bytes", "loads"),
    "bytearray(10**12)": (Call(bytearray, 10**12), "bytearray is allowed only from bytes or a list", "not run"),
    "a huge BINUNICODE length": (b"\x80\x02X\xff\xff\xff\x7fabc.", "pickle data was truncated", "refuses"),
    "a huge memo index, LONG_BINGET": (b"\x80\x02j\xff\xff\xff\xff.", "Memo value not found at index 4294967295",
                                       "refuses"),
    "100 000 MARKs": (b"\x80\x02" + b"(" * 100_000 + b".", "unpickling stack underflow", "refuses"),
    "stack underflow": (b"\x80\x02R.", "unpickling stack underflow", "refuses"),
    "TUPLE without a MARK": (b"\x80\x02K\x01t.", "could not find MARK", "refuses"),
    "truncated": (pickle.dumps({"a": [1, 2, 3]}, protocol=2)[:-6], "pickle data was truncated", "refuses"),
    "no STOP": (b"\x80\x02N", "pickle data was truncated", "refuses"),
    "a GLOBAL not in UTF-8": (b"\x80\x02c\xff\xfe\nx\n.", "UnicodeDecodeError", "refuses"),
    "an offset outside the storage": (tensor(offset=1), "reaches outside its storage", "refuses"),
    "a stride outside the storage": (tensor(stride=(5,)), "reaches outside its storage", "refuses"),
    "a negative offset": (tensor(offset=-1), "storage offset must be a non-negative int", "refuses"),
    "size and stride of different lengths": (tensor(stride=(1, 1)), "differ in length", "refuses"),
    "a size of strings": (tensor(size=("2",)), "size must be a tuple of non-negative ints", "refuses"),
    "a list as the storage": (tensor(storage=[0, 0]), "a tensor's storage must be a storage of the file", "refuses"),
    "an integer tensor requiring grad": (tensor(Storage("LongStorage", 1), size=(1,), requires_grad=True),
                                         "Only Tensors of floating point and complex dtype can require", "refuses"),
    "too many arguments": (Call(torch._utils._rebuild_tensor_v2, *range(9)), "TypeError", "refuses"),
    "_rebuild_from_type_v2 of another function": (
        Call(torch._tensor._rebuild_from_type_v2, OrderedDict, torch.Tensor, (), {}), "_rebuild_from_type_v2 cannot",
        "refuses"),
    "a persistent id of four fields": (Pid(("storage", torch.FloatStorage, "0", "cpu")), "unsupported persistent id",
                                       "refuses"),
    "a persistent id of another kind": (Pid(("module", torch.FloatStorage, "0", "cpu", 2)),
                                        "unsupported persistent id", "refuses"),
    "a storage key that is a list": (Pid(("storage", torch.FloatStorage, ["0"], "cpu", 2)),
                                     "unsupported persistent id", "refuses"),
    "a tensor as a persistent id's kind": (Pid((tensor(), torch.FloatStorage, "0", "cpu", 2)),
                                           "unsupported persistent id", "refuses"),
    "a persistent id nested 100 000 deep": (b"\x80\x02" + b"(" * 100_000 + b")" + b"t" * 100_000 + b"Q.",
                                            "unsupported persistent id (((((((...),),),),),),)", "refuses"),
    "one storage as two types": ([tensor(), tensor(Storage("IntStorage"))], "used as two different types",
                                 "loads"),
}


ZIP_ONLY = {"truncated", "no STOP"}  # in a legacy file, more pickles follow the object's: they are read on


@pytest.mark.parametrize(("name", "form"), [(name, form) for name in REFUSED for form in ("zip", "legacy")
                                            if form == "zip" or name not in ZIP_ONLY])
def test_a_hostile_or_malformed_pickle_is_refused(name, form):
    obj, expected, torch_does = REFUSED[name]
    data = wrapped(obj, form)
    ours = refusal(data)
    assert expected in ours, ours
    if torch_does == "refuses":
        same_unsupported_global(ours, torch_refusal(data))
    elif torch_does == "loads" and form == "zip":  # where ndgrad is stricter than torch (in a legacy file, torch
        with warnings.catch_warnings():           # refuses the storage "0" that such a pickle leaves unread)
            warnings.simplefilter("ignore")
            torch.load(io.BytesIO(data), weights_only=True)


def test_a_pickle_in_python_2_names_reads_as_pickle_reads_it():
    """Protocol 2 writes some globals in Python 2's names (range as ``__builtin__ xrange``): they read under their
    Python 3 names, as in pickle and torch, in refusals and in the allow-list."""
    data = wrapped(b"\x80\x02c__builtin__\nxrange\nK\x03\x85R.", "zip")
    ours = refusal(data)
    assert ours.startswith("Unsupported global: GLOBAL range was not")
    same_unsupported_global(ours, torch_refusal(data))
    with ndgrad.serialization.safe_globals([range]), torch.serialization.safe_globals([range]):
        assert load(data) == torch.load(io.BytesIO(data)) == range(3)


# ---- 2. the user's allow-list ----------------------------------------------------------------------------------
class Point:
    """Pickled with its __dict__ as the state BUILD sets."""

    def __init__(self, x, label):
        self.x, self.label = x, label


class Stateful(Point):
    """Pickled through __getstate__/__setstate__ (the state is a tuple)."""

    def __getstate__(self):
        return self.x, self.label

    def __setstate__(self, state):
        self.x, self.label = state


class Slotted:
    """Pickled with its slots as BUILD's second state."""

    __slots__ = ("x", "label")

    def __init__(self, x, label):
        self.x, self.label = x, label


@pytest.mark.parametrize("cls", [Point, Stateful, Slotted])
def test_a_user_class_loads_once_allow_listed(cls):
    data = torch_bytes({"p": cls(ndgrad.arange(3.0), "a")}, saver=ndgrad.save)
    refused = f"Unsupported global: GLOBAL {MODULE}.{cls.__qualname__} was not an allowed global by default."
    ours = refusal(data)
    assert ours.startswith(refused)
    same_unsupported_global(ours, torch_refusal(data))
    with ndgrad.serialization.safe_globals([cls]):
        assert ndgrad.serialization.get_safe_globals() == [cls]
        loaded = load(data)["p"]
    with torch.serialization.safe_globals([cls]):
        theirs = torch.load(io.BytesIO(data))["p"]
    assert type(loaded) is type(theirs) is cls and loaded.label == theirs.label == "a"
    assert loaded.x.tolist() == theirs.x.tolist() == [0.0, 1.0, 2.0] and isinstance(loaded.x, ndgrad.Tensor)
    assert ndgrad.serialization.get_safe_globals() == []
    assert refusal(data).startswith(refused)  # refused again after the with block
    ndgrad.serialization.add_safe_globals([cls])
    assert type(load(data)["p"]) is cls
    ndgrad.serialization.clear_safe_globals()
    assert refusal(data).startswith(refused) and ndgrad.serialization.get_safe_globals() == []


def test_a_global_allow_listed_under_another_name():
    """An (object, name) pair lists the object under the name a file gives it, as torch's does."""
    data = wrapped(b"\x80\x02celsewhere\nPoint\n)\x81}X\x05\x00\x00\x00labelX\x01\x00\x00\x00bsb.", "zip")
    assert refusal(data).startswith("Unsupported global: GLOBAL elsewhere.Point was not")
    with ndgrad.serialization.safe_globals([(Point, "elsewhere.Point")]), \
            torch.serialization.safe_globals([(Point, "elsewhere.Point")]):
        ours, theirs = load(data), torch.load(io.BytesIO(data))
    assert type(ours) is type(theirs) is Point and ours.label == theirs.label == "b"
    with pytest.raises(TypeError, match="^safe_globals must be a list, not tuple$"):
        ndgrad.serialization.add_safe_globals((Point,))


def test_build_calls_the_class_s_own_setstate_never_one_the_pickle_planted():
    """A first BUILD may set any attribute of an allow-listed object, "__setstate__" too; a second BUILD must not
    call that attribute (here torch.Tensor, whose call would allocate the elements the state names)."""
    planted = b"\x80\x02c" + f"{MODULE}\nPoint\n".encode() + b")\x81}X\x0c\x00\x00\x00__setstate__ctorch\nTensor\nsb"
    data = wrapped(planted + b"J\x00\x00\x00\x10b.", "zip")
    with ndgrad.serialization.safe_globals([Point]):
        assert "TypeError" in refusal(data)
        assert type(load(wrapped(planted + b".", "zip"))) is Point  # the first BUILD alone is harmless


def test_unsafe_globals_in_checkpoints_as_torch_lists_them(tmp_path):
    files = {"linear": torch.nn.Linear(2, 3), "numpy": np.arange(3), "state dict": torch.nn.Linear(2, 3).state_dict()}
    for name, obj in files.items():
        path = tmp_path / f"{name}.pt"
        torch.save(obj, path)
        ours = ndgrad.serialization.get_unsafe_globals_in_checkpoint(path)
        assert ours == sorted(torch.serialization.get_unsafe_globals_in_checkpoint(path))
        assert (ours == []) == (name == "state dict")
    ndgrad.save(ndgrad.nn.Linear(2, 3), tmp_path / "ours.pt")
    assert ndgrad.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "ours.pt") == [
        name.replace("torch.", "ndgrad.") for name in
        torch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "linear.pt")]
    with ndgrad.serialization.safe_globals([ndgrad.nn.Linear]):  # found under torch's name for it as well
        for name in ("ours.pt", "linear.pt"):
            assert ndgrad.serialization.get_unsafe_globals_in_checkpoint(tmp_path / name) == []
        model = ndgrad.load(tmp_path / "linear.pt")
    assert model.weight.tolist() == torch.load(tmp_path / "linear.pt", weights_only=False).weight.tolist()


# ---- 3. damaged archives ---------------------------------------------------------------------------------------
def _state_dict(lib):
    weight = lib.arange(6.0).reshape(2, 3)
    return {"weight": weight, "row": weight[1], "steps": lib.tensor([3, 1, 2]), "empty": lib.zeros(0, 3),
            "mask": lib.tensor([True, False]), "nested": [lib.tensor(2.5, dtype=lib.float64), (weight.t(),)]}


BASES = {f"{lib.__name__} {form}": torch_bytes(_state_dict(lib), form == "legacy", lib.save)
         for lib in (torch, ndgrad) for form in ("zip", "legacy")}


def tensors_in(obj):
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in tensors_in(item)]
    return [obj] if isinstance(obj, (ndgrad.Tensor, torch.Tensor)) else []


def assert_like_torch(ours, theirs, values=True):
    """What ndgrad loaded is what torch loaded from the same bytes: the same containers, tensors alike (their
    elements too, unless ``values`` is False)."""
    if isinstance(theirs, torch.Tensor):
        assert type(ours) is (ndgrad.nn.Parameter if type(theirs) is torch.nn.Parameter else ndgrad.Tensor)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] and ours.shape == theirs.shape
        assert ours.stride() == theirs.stride() and ours.requires_grad == theirs.requires_grad
        assert not values or ours.detach().numpy().tobytes() == theirs.detach().numpy().tobytes()
    elif isinstance(theirs, (dict, list, tuple)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
        if isinstance(theirs, dict):
            assert list(ours) == list(theirs)
            ours, theirs = list(ours.values()), list(theirs.values())
        for mine, its in zip(ours, theirs):
            assert_like_torch(mine, its, values)
    else:
        assert str(ours).replace("ndgrad.", "torch.") == str(theirs)


def assert_contract_error(error):
    if type(error) is pickle.UnpicklingError:
        problem(error)
    else:
        assert type(error) is RuntimeError and str(error).startswith((INVALID, *LEGACY_HEADER_ERRORS)), repr(error)


def assert_within_contract(data):
    """ndgrad.load(data) raises one of the contract's errors, or returns what torch returns where torch loads the
    bytes too, or else an object whose tensors hold the elements their shapes say."""
    try:
        ours = load(data)
    except Exception as error:  # noqa: BLE001 - which ones, is what this checks
        assert_contract_error(error)
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.load(io.BytesIO(data), weights_only=True)
    except Exception:  # noqa: BLE001 - torch refusing is no claim about ndgrad's result
        for loaded in tensors_in(ours):
            assert len(loaded.flatten().tolist()) == loaded.numel() == int(np.prod(loaded.shape))
    else:  # torch does not check a storage's CRC: a damaged central directory can have it read other bytes
        assert_like_torch(ours, theirs, values=False)


def _every(data, count):
    """About ``count`` positions spread across ``data``."""
    return range(0, len(data), max(1, len(data) // count))


@pytest.mark.parametrize("base", BASES)
def test_every_truncation_is_refused(base):
    data = BASES[base]
    assert_like_torch(load(data), torch.load(io.BytesIO(data)))
    for end in _every(data, 400):
        with pytest.raises(Exception) as error:  # noqa: PT011 - which ones, assert_contract_error checks
            load(data[:end] if end else data[:1])
        assert_contract_error(error.value)


@pytest.mark.parametrize("base", BASES)
def test_every_flipped_byte_is_refused_or_loads_within_the_contract(base):
    data = BASES[base]
    for position in _every(data, 600):
        for flip in (0x01, 0xFF):
            assert_within_contract(data[:position] + bytes([data[position] ^ flip]) + data[position + 1:])


@pytest.mark.parametrize("form", ["zip", "legacy"])
def test_every_byte_of_the_pickle_changed_in_turn(form):
    data = FILES[form]
    pickled = _object_pickle(data)
    for position in range(len(pickled)):
        for flip in (0x01, 0x80):
            assert_within_contract(with_pickle(data, pickled[:position] + bytes([pickled[position] ^ flip])
                                               + pickled[position + 1:]))


def test_an_empty_file_ran_out_of_input_as_in_torch():
    with pytest.raises(EOFError):
        torch.load(io.BytesIO(b""))
    with pytest.raises(EOFError, match="^Ran out of input$"):
        load(b"")


def _central_size(data, suffix, size):
    """``data`` with the sizes that the zip's central directory and local header give the record whose name ends
    with ``suffix`` forged to ``size``."""
    data = bytearray(data)
    central = struct.unpack("<L", data[data.rindex(b"PK\x05\x06") + 16:][:4])[0]
    while data[central:central + 4] == b"PK\x01\x02":
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[central + 28:central + 34])
        local = struct.unpack("<L", data[central + 42:central + 46])[0]
        if data[central + 46:central + 46 + name_length].decode().endswith(suffix):
            data[central + 20:central + 28] = data[local + 18:local + 26] = struct.pack("<LL", size, size)
        central += 46 + name_length + extra_length + comment_length
    return bytes(data)


def _record_start(data, suffix):
    """(zip entry, where its bytes begin: after its local header) of the record whose name ends with ``suffix``."""
    info = next(info for info, _ in records(data) if info.filename.endswith(suffix))
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    return info, info.header_offset + 30 + name_length + extra_length


def _flipped_in(data, suffix):
    """``data`` with the first byte of the record whose name ends with ``suffix`` flipped (its CRC then wrong)."""
    start = _record_start(data, suffix)[1]
    return data[:start] + bytes([data[start] ^ 0xFF]) + data[start + 1:]


def _legacy_pickles(data, edit):
    """The legacy file ``data`` with pickle ``i`` (0: magic, 1: protocol, 2: system, 3: object, 4: keys) replaced
    by ``edit(i, pickle)``; the storages' bytes follow unchanged."""
    bounds = pickles_of(data)
    edited = (edit(i, data[start:end]) for i, (start, end) in enumerate(zip(bounds, bounds[1:])))
    return b"".join(edited) + data[bounds[-1]:]


def _replaced(target, pickled):
    return lambda i, old: pickled if i == target else old


def _added(name, record):
    return lambda old_name, content: [(old_name, content, zipfile.ZIP_STORED)] + [record] * old_name.endswith(name)


ZIP, LEGACY = FILES["zip"], FILES["legacy"]
OTHER_ORDER = "big" if sys.byteorder == "little" else "little"
_SYSTEM = {"protocol_version": 1001, "little_endian": sys.byteorder != "little",
           "type_sizes": {"short": 2, "int": 4, "long": 4}}
# name: (the file, the problem that ndgrad.load reports after "ndgrad.load: invalid file: ")
DAMAGED = {
    "not a zip": (b"PK\x03\x04" + bytes(200), "not a zip archive, or a damaged or truncated one"),
    "a truncated zip": (ZIP[:len(ZIP) // 2], "not a zip archive, or a damaged or truncated one"),
    "an empty zip": (b"PK\x03\x04PK\x05\x06" + bytes(18), "an empty zip archive"),
    "a CRC error in a storage": (_flipped_in(ZIP, "/data/0"), "the record data/0 is damaged (BadZipFile: Bad CRC-32"),
    "a CRC error in data.pkl": (_flipped_in(ZIP, "/data.pkl"), "the record 'data.pkl' is damaged (BadZipFile: Bad"),
    "a record outside the folder": (rezipped(ZIP, _added("/version", ("elsewhere/x", b"", zipfile.ZIP_STORED))),
                                    "the record 'elsewhere/x' is outside the archive's folder 'archive/'"),
    "a record twice": (rezipped(ZIP, _added("/data/0", ("archive/data/0", b"0000", zipfile.ZIP_STORED))),
                       "the zip archive holds 'archive/data/0' twice"),
    "no data.pkl": (rezipped(ZIP, lambda name, content: None if name.endswith("data.pkl") else content),
                    "no data.pkl in the zip archive"),
    "no record of a storage": (rezipped(ZIP, lambda name, content: None if name.endswith("/data/0") else content),
                               "no record data/0 for a storage the pickle refers to"),
    "a storage of the wrong size": (rezipped(ZIP, lambda name, content: content + b"0000" * name.endswith("/data/0")),
                                    "the record data/0 holds 12 bytes, its storage 8"),
    "a compressed storage": (
        rezipped(ZIP, lambda name, content: [(name, content, zipfile.ZIP_DEFLATED * name.endswith("/data/0"))]),
        "the record data/0 is compressed; torch.save stores storages uncompressed"),
    "records larger than the file": (_central_size(ZIP, "/data/0", 10**9),
                                     "the zip's records claim more bytes than the file holds"),
    "another byte order": (rezipped(ZIP, lambda name, content: OTHER_ORDER.encode() if name.endswith("/byteorder")
                                    else content), f"saved in another byte order than this machine's ({sys.byteorder}"),
    "an unknown storage location": (wrapped(tensor(Pid(("storage", torch.FloatStorage, "0", "nowhere", 2))), "zip"),
                                    "unknown storage location 'nowhere'"),
    "legacy: another byte order": (_legacy_pickles(LEGACY, _replaced(2, pickle.dumps(_SYSTEM, protocol=2))),
                                   "saved in another byte order than this machine's"),
    "legacy: storage keys of two types": (_legacy_pickles(LEGACY, _replaced(4, pickle.dumps(["0", 0], protocol=2))),
                                          "the list of storage keys does not match the storages the object refers to"),
    "legacy: a storage key missing": (_legacy_pickles(LEGACY, _replaced(4, pickle.dumps([], protocol=2))),
                                      "the list of storage keys does not match the storages the object refers to"),
    "legacy: another element count": (LEGACY[:-16] + struct.pack("<q", 3) + LEGACY[-8:],
                                      "storage '0' holds 3 elements, the object says 2"),
    "legacy: truncated storage bytes": (LEGACY[:-1], "the storages' bytes are truncated"),
    "legacy: a storage larger than the file": (wrapped(tensor(Storage(numel=10**12)), "legacy"),
                                               "its storages claim more bytes than the file holds"),
    "legacy: one storage of two sizes": (wrapped([tensor(), tensor(Storage(numel=1), size=(1,))], "legacy"),
                                         "storage '0' is given two sizes"),
}


@pytest.mark.parametrize("name", DAMAGED)
def test_a_damaged_archive_is_refused_by_name(name):
    data, expected = DAMAGED[name]
    with pytest.raises(RuntimeError) as error:
        load(data)
    assert str(error.value).startswith(INVALID + expected), error.value


@pytest.mark.parametrize(("header", "pickled", "message"), [
    (0, pickle.dumps(123, protocol=2), "Invalid magic number; corrupt file?"),
    (1, pickle.dumps(1002, protocol=2), "Invalid protocol version: 1002"),
])
def test_a_legacy_header_of_another_file_is_refused_as_torch_refuses_it(header, pickled, message):
    data = _legacy_pickles(LEGACY, _replaced(header, pickled))
    with pytest.raises(RuntimeError) as ours:
        load(data)
    assert str(ours.value) == str(torch_refusal(data)) == message


@pytest.mark.skipif(ndgrad.cuda.is_available(), reason="about a machine without a GPU")
def test_a_storage_bound_for_a_missing_gpu_raises_torch_s_error():
    """The errors of a storage's placement reach the caller as they are, not as a refusal of the pickle."""
    data = wrapped(tensor(Pid(("storage", torch.FloatStorage, "0", "cuda:0", 2))), "zip")
    expected = str(torch_refusal(data)).replace("torch.", "ndgrad.")
    assert expected.startswith("Attempting to deserialize object on a CUDA device but ndgrad.cuda.is_available()")
    for file, where in ((data, None), (ZIP, "cuda"), (LEGACY, "cuda:0")):
        with pytest.raises(RuntimeError) as error:
            load(file, map_location=where)
        assert str(error.value) == expected


def test_an_error_of_map_location_reaches_the_caller_as_in_torch():
    def fail(storage, location):
        raise LookupError(location)

    for data in (ZIP, LEGACY):
        with pytest.raises(LookupError, match="^cpu$"):
            load(data, map_location=fail)
        with pytest.raises(LookupError, match="^cpu$"):
            torch.load(io.BytesIO(data), map_location=fail)


def test_mmap_of_a_record_past_the_end_of_the_file(tmp_path):
    """mmap maps a storage from where its local header says it starts: an extra field forged long puts that past
    the end of the file."""
    info, _ = _record_start(ZIP, "/data/0")
    path = tmp_path / "forged.pt"
    path.write_bytes(ZIP[:info.header_offset + 28] + struct.pack("<H", 60000) + ZIP[info.header_offset + 30:])
    with pytest.raises(RuntimeError, match=f"^{INVALID}the record data/0 reaches past the end of the file$"):
        ndgrad.load(path, mmap=True)


def test_a_legacy_file_of_many_storages_loads_in_linear_time():
    """30 000 empty storages: each one's size is checked against the file without adding up all those before it,
    which made the load quadratic in their number (seven times slower for these, a hang for a few hundred thousand)."""
    count = 30_000
    data = wrapped([tensor(Storage(numel=0, key=str(key)), size=(0,)) for key in range(count)], "legacy")
    data = _legacy_pickles(data, _replaced(4, pickle.dumps([str(key) for key in range(count)], protocol=2)))
    data = data[:pickles_of(data)[-1]] + struct.pack("<q", 0) * count
    assert [tuple(loaded.shape) for loaded in load(data)] == [(0,)] * count


# ---- allocations -----------------------------------------------------------------------------------------------
def peak_allocation(data):
    """(what loading ``data`` raised, the most memory it held at once, in bytes)."""
    load(FILES["zip"])  # what the first load imports is not the file's doing
    tracemalloc.start()
    try:
        load(data)
    except (RuntimeError, pickle.UnpicklingError) as error:
        return error, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    raise AssertionError("loaded")


def _copied(container, function, call, count=2000):
    """A pickle of a list of ``container`` (memo 0), ``function`` (memo 1) and ``count`` results of ``call``: the
    bytes of a call that copies the container, a few bytes (memo GETs) for each copy of all its elements."""
    return b"\x80\x02](" + container + b"q\x00" + function + b"q\x01" + call * count + b"e."


LIST = b"](" + b"K\x01" * 2000 + b"e"
DICT = b"}(" + b"".join(_unicode(str(key)) + b"N" for key in range(2000)) + b"u"
# name: (the file, what ndgrad.load reports)
HUGE = {
    "a storage of 10**12 elements": (wrapped(tensor(Storage(numel=10**12)), "zip"),
                                     "the record data/0 holds 8 bytes, its storage 4000000000000"),
    "a record forged to 10**12 bytes": (_central_size(ZIP, "/data/0", 2**32 - 1),
                                        "the zip's records claim more bytes than the file holds"),
    "a legacy storage of 10**12 elements": (wrapped(tensor(Storage(numel=10**12)), "legacy"),
                                            "its storages claim more bytes than the file holds"),
    "bytearray(10**12)": (wrapped(Call(bytearray, 10**12), "zip"), "bytearray is allowed only from bytes or a list"),
    "one list copied by torch.Size 2000 times": (wrapped(_copied(LIST, b"ctorch\nSize\n", b"h\x01h\x00\x85R"), "zip"),
                                                 "the pickle passes its containers to more calls than its length"),
    "one dict copied by BUILD 2000 times": (wrapped(_copied(DICT, _OD, b"h\x01)Rh\x00b"), "zip"),
                                            "the pickle passes its containers to more calls than its length"),
}


@pytest.mark.parametrize("name", HUGE)
def test_a_file_claiming_memory_it_does_not_hold_allocates_little(name):
    data, expected = HUGE[name]
    error, peak = peak_allocation(data)
    assert expected in str(error)
    # a dict's entries take some 30 times their bytes in the pickle, and a pickle may copy twice what it holds
    assert peak < 64 * len(data) + 2**17, (peak, len(data))


def test_what_a_pickle_copies_once_is_within_its_budget():
    """The copies a pickle makes of containers it builds for them (bytes for a bytearray, a list for a set, a dict
    for a Counter) load, torch's and ndgrad's files alike."""
    obj = {"bytes": bytearray(b"x" * 10_000), "set": {b"a" * 5000, b"b" * 5000}, "counter": Counter("ab" * 5000),
           "sizes": torch.Size(range(64))}
    for data in (torch_bytes(obj), torch_bytes(obj, saver=ndgrad.save)):
        assert_like_torch(load(data), obj)


# ---- 4. the arguments of load ----------------------------------------------------------------------------------
def test_mmap_needs_a_path_to_a_zip_archive(tmp_path):
    with pytest.raises(ValueError) as theirs:
        torch.load(io.BytesIO(ZIP), mmap=True)
    with pytest.raises(ValueError) as ours:
        load(ZIP, mmap=True)
    assert str(ours.value) == str(theirs.value) == "f must be a file path in order to use the mmap argument"
    path = str(tmp_path / "legacy.pt")
    with open(path, "wb") as f:
        f.write(LEGACY)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(path, mmap=True)
    with pytest.raises(RuntimeError) as ours:
        ndgrad.load(path, mmap=True)
    assert str(ours.value) == str(theirs.value).replace("torch.", "ndgrad.")
    assert str(ours.value).startswith(f"mmap can only be used with files saved with `ndgrad.save({path}, _use_new")


def test_weights_only_false_runs_a_pickle_only_when_its_source_is_trusted(monkeypatch):
    data = torch_bytes({"p": Point(torch.arange(2.0), "a"), "w": torch.ones(2)})
    monkeypatch.delenv("NDGRAD_TRUST_PICKLES", raising=False)
    for trusted in (None, "0", "yes"):
        if trusted is not None:
            monkeypatch.setenv("NDGRAD_TRUST_PICKLES", trusted)
        with pytest.raises(pickle.UnpicklingError, match="NDGRAD_TRUST_PICKLES=1"):
            load(data, weights_only=False)
    monkeypatch.setenv("NDGRAD_TRUST_PICKLES", "1")
    loaded = load(data, weights_only=False)
    assert type(loaded["p"]) is Point and loaded["p"].label == "a" and isinstance(loaded["p"].x, ndgrad.Tensor)
    assert loaded["p"].x.tolist() == [0.0, 1.0] and loaded["w"].tolist() == [1.0, 1.0]
    assert problem(pytest.raises(pickle.UnpicklingError, load, data).value).startswith("Unsupported global")


def test_a_pickle_module_with_weights_only_is_refused_as_in_torch():
    message = "^Can not safely load weights when explicit pickle_module is specified$"
    for weights_only in (None, True):
        with pytest.raises(RuntimeError, match=message):
            load(ZIP, pickle_module=pickle, weights_only=weights_only)
    with pytest.raises(RuntimeError, match=message):
        torch.load(io.BytesIO(ZIP), pickle_module=pickle, weights_only=True)
