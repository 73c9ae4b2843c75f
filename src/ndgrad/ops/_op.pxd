# Types for the compiled core (see Note [compiled core] in ndgrad._core): the tensors and nodes Op.apply's helpers
# write, so that their fields are read and written as C struct members.
cimport cython

from ndgrad._fields cimport NodeFields, TensorFields, new_tensor


@cython.locals(tensor=TensorFields)
cpdef tuple _edge_of(object x)


@cython.locals(node=NodeFields, out=TensorFields)
cpdef object _record(object cls, tuple inputs, dict params, tuple outs)


@cython.locals(tensor=TensorFields)
cpdef object _save(object node, tuple steps, tuple edges, tuple inputs, tuple outs)
