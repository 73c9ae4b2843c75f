"""The fields of tensors and graph nodes, which every op writes and the engine reads: TensorFields under Tensor,
NodeFields under every grad_fn.

As Python, these are slotted classes like any other. In the compiled core (see Note [compiled core] in
ndgrad._core), ``_fields.pxd`` makes them C structs, so that compiled code which knows it holds a tensor or a node
reads and writes a field as a pointer, not by name. They sit in a module of their own, which imports nothing, so
that every compiled module can declare their layout before the rest of ndgrad is imported.

A field that a subclass replaces with a property is not here: ``grad_fn`` (UnrebuildableView refuses to read it)
and a node's ``_hooks`` and ``_output_meta`` (AccumulateGrad's are its leaf's) stay Python attributes, which every
read finds as Python finds them; so do the fields that only some nodes have (an op node's ``_saved``, whose
absence says the node saves nothing). Fields no one has set read None when compiled and are missing as Python;
ndgrad reads those (``_fw_tangent``, ``_origin``, ``_site``, ``_freed_by``) with ``getattr(..., None)``.
"""

__all__ = ["TensorFields", "NodeFields", "new_tensor"]


class TensorFields:
    """What a Tensor holds besides its grad_fn: the array, the autograd flags, the version counter, view links,
    hooks. (Tensor adds its ``__dict__`` and ``__weakref__``, which a Python class can make assignable.)"""

    __slots__ = (
        "_data", "_requires_grad", "_grad", "_output_nr", "_version_counter", "_base", "_view_steps", "_views",
        "_accumulator_ref", "_hooks", "_retains_grad", "_fw_tangent", "_conj_bit", "_origin",
    )


def new_tensor(cls, data, requires_grad, grad_fn, output_nr, version_counter, base=None):
    """A new tensor of class ``cls`` (Tensor._from_parts), made without __init__: every field set once."""
    # One store per statement: a tuple assignment of this many fields builds and unpacks a tuple (~30% slower).
    t = _new_fields(cls)
    t._data = data
    t._requires_grad = requires_grad
    t.grad_fn = grad_fn
    t._grad = None
    t._output_nr = output_nr
    t._version_counter = version_counter
    t._base = base
    t._view_steps = None
    t._views = None
    t._accumulator_ref = None
    t._hooks = None
    t._retains_grad = False
    t._conj_bit = False
    return t


_new_fields = TensorFields.__new__  # object.__new__ as Python; a C struct's allocator when compiled


class NodeFields:
    """What every graph node holds: its order of creation, its edges to its inputs' nodes, where the user made it,
    where it was freed. (Node adds the ``__dict__`` that holds the op's keyword parameters, ``ctx.dim``, and a
    user's metadata; OpNode what it saved, which only some nodes have.)"""

    __slots__ = ("_sequence_nr", "_edges", "_site", "_freed_by")
