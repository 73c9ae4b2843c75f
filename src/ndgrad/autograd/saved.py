"""Saved tensors: what a backward node keeps from the forward pass, and the version check on unpacking.

Note [saved versions]: every tensor shares a version counter with the views of its storage, and each in-place
op bumps it. A node remembers the version each saved tensor had when saved; unpacking it at a later version means
the values the gradient formula needs are gone, so unpacking raises instead of returning a wrong gradient.
"""

from ndgrad._dtype import legacy_type_name

__all__ = ["SavedOutput", "check_version", "FREED_MESSAGE"]

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

    __slots__ = ("data", "version_counter", "saved_version", "output_nr")

    def __init__(self, tensor):
        self.data, self.output_nr = tensor._data, tensor._output_nr
        self.version_counter = tensor._shared_counter()
        self.saved_version = self.version_counter[0]

    def rebind(self, tensor):
        """The output was written into ``tensor`` in place (``exp_``): save that tensor's memory and version."""
        self.data = tensor._data
        self.version_counter = tensor._shared_counter()
        self.saved_version = self.version_counter[0]

    def unpack(self, node):
        from ndgrad._tensor import Tensor

        rebuilt = Tensor._from_parts(self.data, True, node, self.output_nr, self.version_counter)
        check_version(rebuilt, self.saved_version, node)
        return rebuilt


def check_version(tensor, saved_version, node):
    """Raise PyTorch's error if ``tensor`` was modified in place since it was saved."""
    if tensor._version != saved_version:
        raise RuntimeError(_modified_message(tensor, saved_version, node))


def _modified_message(tensor, saved_version, node):
    description = f"[{legacy_type_name(tensor.dtype)} [{', '.join(map(str, tensor._data.shape))}]]"
    if tensor.grad_fn is not None:
        description += f", which is output {tensor._output_nr} of {tensor.grad_fn._short_name()},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{description} is at version {tensor._version}; expected version {saved_version} instead. Hint: enable "
        "anomaly detection to find the operation that failed to compute its gradient, with "
        "ndgrad.autograd.set_detect_anomaly(True, check_nan=False)."
    )
