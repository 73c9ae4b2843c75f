"""Saved tensors: what a backward node keeps from the forward pass, and the version check on unpacking.

Note [saved versions]: every tensor shares a version counter with the views of its storage, and each in-place
op bumps it. A saved tensor remembers the version it had when saved; unpacking it at a later version means the
values the gradient formula needs are gone, so unpacking raises instead of returning a wrong gradient.
"""

from ndgrad._dtype import from_numpy_dtype, legacy_type_name

__all__ = ["SavedTensor", "FREED_MESSAGE"]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward."
)


class SavedTensor:
    """One tensor saved for backward.

    An input is held as the Tensor itself (its graph leads away from the node, so no cycle). The node's own
    output is held as its array and version counter only: holding the output Tensor would make the cycle
    Tensor -> node -> Tensor. Unpacking rebuilds it with the node as grad_fn, so double backward reaches it.
    """

    __slots__ = ("tensor", "data", "version_counter", "saved_version", "is_output", "output_nr")

    def __init__(self, tensor, is_output=False):
        self.is_output = is_output
        self.saved_version = tensor._version
        if is_output:
            self.tensor, self.data, self.output_nr = None, tensor._data, tensor._output_nr
            self.version_counter = tensor._shared_counter()
        else:
            self.tensor, self.data, self.output_nr = tensor, None, 0

    def unpack(self, node):
        version = self.version_counter[0] if self.is_output else self.tensor._version
        if version != self.saved_version:
            raise RuntimeError(self._modified_message(node, version))
        if not self.is_output:
            return self.tensor
        from ndgrad._tensor import Tensor

        return Tensor._from_parts(self.data, True, node, self.output_nr, self.version_counter)

    def _modified_message(self, node, version):
        shape = list(self.data.shape if self.is_output else self.tensor._data.shape)
        dtype = self.tensor.dtype if self.tensor is not None else from_numpy_dtype(self.data.dtype)
        description = f"[{legacy_type_name(dtype)} [{', '.join(map(str, shape))}]]"
        producer = node if self.is_output else self.tensor.grad_fn
        if producer is not None:
            name = producer.name()
            description += f", which is output {self.output_nr} of {name[: name.rfind('Backward')] or name},"
        return (
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"{description} is at version {version}; expected version {self.saved_version} instead. Hint: enable "
            "anomaly detection to find the operation that failed to compute its gradient, with "
            "ndgrad.autograd.set_detect_anomaly(True, check_nan=False)."
        )

