# The C layout of ndgrad._fields's classes in the compiled core (see Note [compiled core] in ndgrad._core).
cimport cython


cdef class TensorFields:
    cdef public object _data, _requires_grad, _grad, _output_nr, _version_counter, _base, _view_steps, _views
    cdef public object _accumulator_ref, _hooks, _retains_grad, _fw_tangent, _conj_bit, _origin


cdef class NodeFields:
    cdef public object _sequence_nr, _edges, _site, _freed_by


@cython.locals(t=TensorFields)
cpdef object new_tensor(object cls, object data, object requires_grad, object grad_fn, object output_nr,
                        object version_counter, object base=*)
