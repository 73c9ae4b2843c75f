"""Saved tensors: what a backward node keeps from the forward pass, the version check on unpacking, saved-tensor
hooks (torch.autograd.graph.saved_tensors_hooks) and the ``_saved_*`` names PyTorch shows saved values under.

Note [saved versions]: every tensor shares a version counter with the views of its storage, and each in-place
op bumps it. A node remembers the version each saved tensor had when saved; unpacking it at a later version means
the values the gradient formula needs are gone, so unpacking raises instead of returning a wrong gradient.
Tensors packed by saved-tensor hooks are not checked: what the hooks keep is theirs, as in PyTorch.
"""

import contextlib
import threading
import weakref

from ndgrad._dtype import bool_, complex128, float64, int64, legacy_type_name
from ndgrad.autograd.anomaly_mode import _AnomalyState
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.autograd.hints import inplace_hint, with_hint

__all__ = [
    "SavedOutput", "SavedPacked", "version_to_save", "check_version", "FREED_MESSAGE", "HOOKS", "pack_saved",
    "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "saved_attribute",
]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward."
)


class SavedOutput:
    """A node's own output, saved for its backward (what ``saves = ("result",)`` asks for).

    Inputs are saved as the Tensors themselves, with their version beside them: their graph leads away from the
    node, so no cycle. The output is held as its array and version counter only, because holding the output
    Tensor would make the cycle Tensor -> node -> Tensor. Unpacking rebuilds it with the node as its grad_fn,
    so double backward reaches the node through it.
    """

    __slots__ = ("data", "version_counter", "saved_version", "output_nr", "tangent")

    def __init__(self, tensor):
        self.data, self.output_nr = tensor._data, tensor._output_nr
        counter = tensor._version_counter  # inlined Tensor._shared_counter: this runs for every saved output
        if counter is None:
            counter = tensor._version_counter = [0]
        self.version_counter, self.saved_version = counter, counter[0]
        self.tangent = None  # the output's forward-mode tangent, kept so backward-of-forward sees a dual output

    def rebind(self, tensor):
        """The output was written into ``tensor`` in place (``exp_``): save that tensor's memory and version."""
        self.data = tensor._data
        self.version_counter = tensor._shared_counter()
        self.saved_version = self.version_counter[0]

    def unpack_array(self, node):
        """The saved output's array, for an array rule, if it was not modified in place since."""
        if self.version_counter[0] != self.saved_version:
            self.unpack(node)  # raises the error, naming the rebuilt tensor
        return self.data

    def unpack(self, node):
        from ndgrad._tensor import Tensor

        if self.data.dtype.kind in "fcV":
            rebuilt = Tensor._from_parts(self.data, True, node, self.output_nr, self.version_counter)
        else:  # integer outputs (indices) are not differentiable: no grad_fn
            rebuilt = Tensor._from_parts(self.data, False, None, 0, self.version_counter)
        check_version(rebuilt, self.saved_version, node)
        if self.tangent is not None:
            from ndgrad.autograd.forward_ad import _ForwardState, _set_tangent

            if _ForwardState.level is not None:
                _set_tangent(rebuilt, self.tangent)
        return rebuilt


def version_to_save(tensor):
    """The version a tensor has as it is saved for backward, which unpacking checks. The counter is read
    directly, as Op.apply does inline: an inference tensor's raises PyTorch's error (see Note [inference tensors])."""
    counter = tensor._version_counter
    return counter[0] if counter is not None else 0


def _type_string(tensor):
    """The tensor's type as PyTorch's version-counter message names it: the CPU's legacy name (ndgrad.FloatTensor)
    whatever the device, unlike the other messages' ndgrad._dtype.type_string, or the C++ one (CPUComplexFloatType)
    for the complex dtypes."""
    if tensor.dtype.is_complex:
        return f"{tensor.device.type.upper()}{tensor.dtype.title}Type"
    return legacy_type_name(tensor.dtype)


def check_version(tensor, saved_version, node):
    """Raise PyTorch's error if ``tensor`` was modified in place since it was saved."""
    if tensor._version != saved_version:
        raise RuntimeError(_modified_message(tensor, saved_version, node))


def _modified_message(tensor, saved_version, node):
    description = f"[{_type_string(tensor)} [{', '.join(map(str, tensor._data.shape))}]]"
    if tensor.grad_fn is not None:
        description += f", which is output {tensor._output_nr} of {tensor.grad_fn._short_name()},"
    if _AnomalyState.enabled:
        hint = (
            "Hint: the backtrace further above shows the operation that failed to compute its gradient. The "
            "variable in question was changed in there or anywhere later. Good luck!"
        )
    else:
        hint = (
            "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
            "ndgrad.autograd.set_detect_anomaly(True, check_nan=False)."
        )
    message = (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{description} is at version {tensor._version}; expected version {saved_version} instead. {hint}"
    )
    return with_hint(message, inplace_hint(tensor, node))  # ndgrad's own: the lines that saved and modified it


# ---- saved-tensor hooks ---------------------------------------------------------------------------------------------
class _HooksState(threading.local):
    stack = ()  # (pack, unpack) pairs, innermost last; per thread, as in PyTorch
    disabled = None  # the error message while disable_saved_tensors_hooks is active


HOOKS = _HooksState()


class SavedPacked:
    """A saved tensor that went through a pack hook: unpacking calls the unpack hook and gives the result the
    saved tensor's place in the graph (same grad_fn, or the same leaf's AccumulateGrad)."""

    __slots__ = ("packed", "unpack_hook", "edge", "requires_grad", "is_output")

    def __init__(self, packed, unpack_hook, edge, requires_grad, is_output):
        self.packed, self.unpack_hook, self.edge = packed, unpack_hook, edge
        self.requires_grad, self.is_output = requires_grad, is_output

    def unpack(self, node):
        from ndgrad._tensor import Tensor
        from ndgrad.autograd.graph import AccumulateGrad

        data = self.unpack_hook(self.packed)
        if not isinstance(data, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                f"{type(data).__name__}"
            )
        if self.is_output:
            return Tensor._from_parts(data._data, True, node, self.edge, None)
        edge_node, output_nr = self.edge
        if edge_node is None:
            return Tensor._from_parts(data._data, self.requires_grad, None, 0, None)
        if isinstance(edge_node, AccumulateGrad):  # a new leaf that accumulates into the saved leaf's .grad
            leaf = Tensor._from_parts(data._data, True, None, 0, None)
            leaf._accumulator_ref = weakref.ref(edge_node)
            return leaf
        return Tensor._from_parts(data._data, True, edge_node, output_nr, None)


def pack_saved(node):
    """Run the innermost pack hook on each tensor ``node`` saved (Op.apply calls this while hooks are active)."""
    from ndgrad._tensor import Tensor

    pack, unpack = HOOKS.stack[-1]
    saved, versions = node._saved, list(node._saved_versions)
    with no_grad():
        for i, ((is_output, index), item) in enumerate(zip(node.op._save_plan, saved)):
            if is_output and type(item) is SavedOutput:
                tensor = Tensor._from_parts(item.data, True, node, item.output_nr, item.version_counter)
                edge = item.output_nr
            elif isinstance(item, Tensor):  # an input; numbers stay as they are, as PyTorch's wrapped numbers do
                tensor, edge = item, node._edges[index]
            else:
                continue
            version = tensor._version
            packed = pack(tensor)
            if tensor._version != version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                    "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                    "open an issue if you need to perform in-place operations on the input to a pack hook."
                )
            saved[i] = SavedPacked(packed, unpack, edge, tensor._requires_grad, is_output)
            versions[i] = None
    node._saved_versions = tuple(versions)


class saved_tensors_hooks:
    """Pack every tensor saved for backward with ``pack_hook``, unpack it with ``unpack_hook`` (see
    torch.autograd.graph.saved_tensors_hooks)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if HOOKS.disabled is not None:
            raise RuntimeError(HOOKS.disabled)
        HOOKS.stack = (*HOOKS.stack, (self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info):
        HOOKS.stack = HOOKS.stack[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU, moving them back to their device for backward (see
    torch.autograd.graph.save_on_cpu)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Make saved_tensors_hooks raise ``error_message`` while active (see
    torch.autograd.graph.disable_saved_tensors_hooks)."""
    if HOOKS.stack:
        raise RuntimeError(error_message)
    previous, HOOKS.disabled = HOOKS.disabled, error_message
    try:
        yield
    finally:
        HOOKS.disabled = previous


# ---- _saved_* attributes ------------------------------------------------------------------------------------------
# PyTorch's names for the forward inputs of nodes, where they are not (self, other).
_INPUT_NAMES = {
    "PowBackward1": ("self", "exponent"), "PowBackward2": ("exponent",), "MmBackward0": ("self", "mat2"),
    "BmmBackward0": ("self", "mat2"), "DotBackward0": ("self", "tensor"), "MvBackward0": ("self", "vec"),
}
# Metadata PyTorch saves beside the tensors: name -> (input position, what).
_METADATA = {"self_sym_sizes": (0, "sizes"), "self_sym_numel": (0, "numel"), "mat2_sym_sizes": (1, "sizes")}
_METADATA_OF = {
    "SumBackward0": ("self_sym_sizes",), "SumBackward1": ("self_sym_sizes",),
    "MeanBackward0": ("self_sym_numel", "self_sym_sizes"), "MeanBackward1": ("self_sym_numel", "self_sym_sizes"),
    "MaxBackward0": ("self_sym_sizes",), "MinBackward0": ("self_sym_sizes",),
    "MmBackward0": ("self_sym_sizes", "mat2_sym_sizes"),
}
_WRAPPED_DTYPES = {bool: bool_, int: int64, float: float64, complex: complex128}  # PyTorch's wrapped numbers
_PARAMETERS = ("dim", "keepdim", "exponent", "alpha", "base")
_PARAMETER_NAMES = {"PowBackward2": {"self": "base"}}  # PyTorch name -> our keyword parameter


def saved_attribute(node, name):
    """``node._saved_<name>``: the value PyTorch's node of the same name exposes, unpacked as backward would."""
    from ndgrad._creation import tensor as as_tensor

    node_name = type(node).__name__
    op = node.op
    parameter = _PARAMETER_NAMES.get(node_name, {}).get(name, name)
    if parameter in _PARAMETERS and parameter in node.__dict__:
        return node.__dict__[parameter]
    inputs = _INPUT_NAMES.get(node_name, ("self", "other"))
    for position, ((is_output, index), saved_name) in enumerate(zip(op._save_plan, op.saves)):
        torch_name = saved_name if is_output else (inputs[index] if index < len(inputs) else None)
        if torch_name == name:
            value = _unpack(node, position)
            if isinstance(value, (bool, int, float, complex)):  # a number, which PyTorch keeps as a 0-d tensor
                return as_tensor(value, dtype=_WRAPPED_DTYPES[type(value)])
            return value
    if name in _METADATA_OF.get(node_name, ()):
        return _metadata(node, *_METADATA[name])
    raise AttributeError(f"'{node_name}' object has no attribute '_saved_{name}'")


def _metadata(node, position, what):
    edge_node, output_nr = node._edges[position]
    shape = edge_node._output_meta[output_nr][0] if edge_node is not None else _saved_input(node, position).shape
    if what == "numel":
        numel = 1
        for size in shape:
            numel *= size
        return numel
    return tuple(shape)


def _saved_input(node, position):
    for slot, (is_output, index) in enumerate(node.op._save_plan):
        if not is_output and index == position:
            return _unpack(node, slot)
    return None


def _unpack(node, position):
    """One saved value, unpacked and checked as ``saved_tensors`` does (so unpack hooks run for it alone)."""
    saved = node._saved  # read once: a backward in another thread may free it meanwhile
    if saved is None:
        raise RuntimeError(FREED_MESSAGE)
    item, version = saved[position], node._saved_versions[position]
    if version is not None:
        check_version(item, version, node)
    elif type(item) is SavedOutput or type(item) is SavedPacked:
        item = item.unpack(node)
    return item
