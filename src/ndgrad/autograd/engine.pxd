# Types for the compiled core (see Note [compiled core] in ndgrad._core): the nodes the engine's loop visits, so
# that their edges and sequence numbers are read as C struct members.
cimport cython

from ndgrad._fields cimport NodeFields


@cython.locals(node=NodeFields, next_node=NodeFields, following=NodeFields)
cpdef object run_backward(object roots, object root_grads, object retain_graph, object create_graph,
                          object capture=*)


@cython.locals(node=NodeFields, next_node=NodeFields)
cpdef dict _count_dependencies(object root_nodes)
