"""Named results of ops that return several tensors (torch.return_types): tuples whose items also have names.

Each type behaves like PyTorch's struct sequences: built from one sequence, read-only attributes per field,
``n_fields``, and a repr with one ``field=value`` per line. Ops build their result with ``linalg_qr((Q, R))``.
"""


class _Field:
    """One named item of a struct sequence: read-only, like PyTorch's."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __get__(self, instance, owner=None):
        return self if instance is None else instance[self.index]

    def __set__(self, instance, value):
        raise AttributeError("readonly attribute")

    def __delete__(self, instance):
        raise AttributeError("readonly attribute")


_NO_FIELDS = object()  # PyTorch's types take an optional dict after the sequence (of unnamed fields: none here)


def _struct_sequence(name, fields):
    """A tuple type called ``name`` whose items are also readable as the attributes ``fields``."""
    size = len(fields)

    def __new__(cls, sequence, unnamed=_NO_FIELDS):
        if unnamed is not _NO_FIELDS and not isinstance(unnamed, dict):
            raise TypeError(f"{__name__}.{name}() takes a dict as second arg, if any")
        try:
            result = tuple.__new__(cls, sequence)
        except TypeError:
            raise TypeError("constructor requires a sequence") from None
        if len(result) != size:
            raise TypeError(f"{__name__}.{name}() takes a {size}-sequence ({len(result)}-sequence given)")
        return result

    def __repr__(self):
        items = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"{__name__}.{name}(\n{items})"

    def __reduce__(self):
        return type(self), (tuple(self),)

    namespace = {
        "__slots__": (), "__module__": __name__, "__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__,
        "__match_args__": tuple(fields), "n_fields": size, "n_sequence_fields": size, "n_unnamed_fields": 0,
    }
    namespace.update({field: _Field(index) for index, field in enumerate(fields)})
    return type(name, (tuple,), namespace)


_VALUES_INDICES = ("values", "indices")

max = _struct_sequence("max", _VALUES_INDICES)
min = _struct_sequence("min", _VALUES_INDICES)
median = _struct_sequence("median", _VALUES_INDICES)
nanmedian = _struct_sequence("nanmedian", _VALUES_INDICES)
mode = _struct_sequence("mode", _VALUES_INDICES)
kthvalue = _struct_sequence("kthvalue", _VALUES_INDICES)
sort = _struct_sequence("sort", _VALUES_INDICES)
topk = _struct_sequence("topk", _VALUES_INDICES)
cummax = _struct_sequence("cummax", _VALUES_INDICES)
cummin = _struct_sequence("cummin", _VALUES_INDICES)
aminmax = _struct_sequence("aminmax", ("min", "max"))
frexp = _struct_sequence("frexp", ("mantissa", "exponent"))
histogram = _struct_sequence("histogram", ("hist", "bin_edges"))
histogramdd = _struct_sequence("histogramdd", ("hist", "bin_edges"))

slogdet = _struct_sequence("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _struct_sequence("linalg_slogdet", ("sign", "logabsdet"))
qr = _struct_sequence("qr", ("Q", "R"))
linalg_qr = _struct_sequence("linalg_qr", ("Q", "R"))
geqrf = _struct_sequence("geqrf", ("a", "tau"))
svd = _struct_sequence("svd", ("U", "S", "V"))
linalg_svd = _struct_sequence("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _struct_sequence("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _struct_sequence("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _struct_sequence("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu = _struct_sequence("linalg_lu", ("P", "L", "U"))
lu_unpack = _struct_sequence("lu_unpack", ("P", "L", "U"))
linalg_lu_factor = _struct_sequence("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _struct_sequence("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_ldl_factor = _struct_sequence("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _struct_sequence("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
linalg_solve_ex = _struct_sequence("linalg_solve_ex", ("result", "info"))
linalg_inv_ex = _struct_sequence("linalg_inv_ex", ("inverse", "info"))
linalg_cholesky_ex = _struct_sequence("linalg_cholesky_ex", ("L", "info"))
triangular_solve = _struct_sequence("triangular_solve", ("solution", "cloned_coefficient"))
