"""Sorting and searching: sort, argsort, msort, topk, unique(_consecutive), nonzero/argwhere, searchsorted, bucketize,
isin.

Only sort and topk values are differentiable: their gradient goes back to the positions the indices name.
"""

import ndgrad.return_types as return_types
from ndgrad._argument_parser import parses, parses_method, tensor_method
from ndgrad._device import namespace_of
from ndgrad.ops._checks import no_bool_kernel, no_complex, no_complex_kernel
from ndgrad.ops._op import INDEXING, Op
from ndgrad.ops.shape import wrap_dim

__all__ = [
    "sort", "argsort", "msort", "topk", "unique", "unique_consecutive", "nonzero", "argwhere", "searchsorted",
    "bucketize", "isin",
]


def _sorted_order(xp, x, dim, descending):
    """Indices that sort x stably along dim; equal elements keep their order, also when descending."""
    if not descending:
        return xp.argsort(x, axis=dim, kind="stable")
    # NOTE: the stable ascending order of the reversed array, reversed, is stable descending; NaN comes first,
    # as in PyTorch (NumPy puts NaN last in ascending order).
    flipped = xp.flip(x, axis=dim)
    return x.shape[dim] - 1 - xp.flip(xp.argsort(flipped, axis=dim, kind="stable"), axis=dim)


class Sort(Op):
    """torch.sort: (values, indices) along ``dim``."""

    name, family = "sort", INDEXING
    outputs = ("values", "indices")
    saves = ("indices",)

    @staticmethod
    def forward(xp, x, dim, descending):
        if x.ndim == 0:
            return x.copy(), xp.zeros((), dtype=xp.int64)
        indices = _sorted_order(xp, x, dim, descending)
        return xp.take_along_axis(x, indices, axis=dim), indices.astype(xp.int64)

    formula = "grad_self = zeros(self.shape).scatter(dim, indices, grad)"
    @staticmethod
    def vjp(ctx, grad, grad_indices):
        from ndgrad.ops.gather_scatter import Scatter, _zeros

        (indices,) = ctx.saved_tensors
        return (Scatter.apply(_zeros(ctx.input_shapes[0], grad), grad, dim=ctx.dim, index=indices._data),)

    @staticmethod
    def jvp(ctx, x_t):
        from ndgrad.ops.gather_scatter import Gather

        (indices,) = ctx.saved_tensors
        return Gather.apply(x_t, dim=ctx.dim, index=indices._data), None


class SortStable(Sort):
    """torch.sort with the ``stable`` keyword given: PyTorch records it as another overload."""

    name = "sort"
    node_name = "SortBackward1"


class Topk(Sort):
    """torch.topk: the k largest (or smallest) elements along ``dim``, with their indices."""

    name = "topk"
    node_name = "TopkBackward0"

    @staticmethod
    def forward(xp, x, k, dim, largest, sorted):
        values, indices = Sort.forward(xp, x, dim, largest)
        if x.ndim == 0:
            return values, indices
        keep = (slice(None),) * dim + (slice(0, k),)
        return values[keep].copy(), indices[keep].copy()


class ArgSort(Op):
    """torch.argsort: the indices of a stable sort."""

    differentiable = False

    @staticmethod
    def forward(xp, x, dim, descending):
        return Sort.forward(xp, x, dim, descending)[1]


class Unique(Op):
    """torch.unique over all elements: sorted distinct values, the inverse map and counts; not differentiable."""

    node_name = "Unique2Backward0"
    outputs = ("values", "inverse", "counts")
    _kernel = "_unique2"

    @staticmethod
    def forward(xp, x):
        values, inverse, counts = xp.unique(x.reshape(-1), return_inverse=True, return_counts=True)
        return values, inverse.reshape(x.shape).astype(xp.int64), counts.astype(xp.int64)

    formula = "grad_self: not implemented (the derivative of unique is not defined)"
    @classmethod
    def vjp(cls, ctx, *grads):
        raise NotImplementedError(f"the derivative for '{ctx.op._kernel}' is not implemented.")


class UniqueDim(Unique):
    """torch.unique along ``dim``: distinct slices."""

    node_name = "UniqueDimBackward0"
    _kernel = "unique_dim"

    @staticmethod
    def forward(xp, x, dim):
        values, inverse, counts = xp.unique(x, return_inverse=True, return_counts=True, axis=dim)
        return values, inverse.reshape(-1).astype(xp.int64), counts.astype(xp.int64)


class UniqueConsecutive(Unique):
    """torch.unique_consecutive: each run of equal elements (or slices along ``dim``) once, with the run of each
    element (inverse) and the run lengths (counts)."""

    node_name = "UniqueConsecutiveBackward0"
    _kernel = "unique_consecutive"

    @staticmethod
    def forward(xp, x, dim):
        if dim is None:
            rows = x.reshape(-1, 1)
        else:  # one row per slice along dim (-1 cannot size the rows of an empty array)
            rows = xp.moveaxis(x, dim, 0).reshape(x.shape[dim], x.size // max(x.shape[dim], 1))
        starts = xp.ones(rows.shape[0], dtype=bool)  # where a run begins: a row unlike the one before
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        first = xp.flatnonzero(starts)
        values = x.reshape(-1)[first] if dim is None else xp.take(x, first, axis=dim)
        inverse = xp.cumsum(starts) - 1
        counts = xp.diff(xp.append(first, rows.shape[0]))
        return values, inverse.reshape(x.shape if dim is None else -1).astype(xp.int64), counts.astype(xp.int64)


class Nonzero(Op):
    """torch.nonzero: the indices of the nonzero elements, one row each."""

    differentiable = False

    @staticmethod
    def forward(xp, x):
        return xp.argwhere(x).astype(xp.int64)


class NonzeroTuple(Op):
    """torch.nonzero(as_tuple=True): one index tensor per dim (a 0-d input counts as 1-d)."""

    differentiable = False

    @staticmethod
    def forward(xp, x):
        return tuple(i.astype(xp.int64) for i in xp.nonzero(x.reshape(-1) if x.ndim == 0 else x))


class SearchSorted(Op):
    """torch.searchsorted: where values would be inserted into the innermost rows of a sorted sequence."""

    differentiable = False

    @staticmethod
    def forward(xp, sorted_sequence, values, right, sorter, out_int32):
        if sorter is not None:
            sorted_sequence = xp.take_along_axis(sorted_sequence, sorter, axis=-1)
        side = "right" if right else "left"
        if sorted_sequence.ndim == 1:
            result = xp.searchsorted(sorted_sequence, values, side=side)
        else:  # one search per row: count the row's elements before each value
            before = xp.less_equal if right else xp.less
            result = before(sorted_sequence[..., None, :], values[..., :, None]).sum(axis=-1)
        return xp.asarray(result).astype(xp.int32 if out_int32 else xp.int64)


# ---- the functions users call ----------------------------------------------------------------------------------
@parses("sort(Tensor input, *, bool? stable, int dim=-1, bool descending=False, Tensor[2] out=None)",
        "sort(Tensor input, int dim=-1, bool descending=False, *, Tensor[2] out=None)")
def sort(input, dim=-1, descending=False, stable=None):
    """Sorted values and their indices along ``dim``; equal elements keep their order (see torch.sort)."""
    dim = wrap_dim(dim, input.ndim)
    no_complex(input, " Sort does not support complex dtypes on CPU", RuntimeError)
    op = Sort if stable is None else SortStable
    return return_types.sort(op.apply(input, dim=dim, descending=descending))


@parses("argsort(Tensor input, *, bool stable, int dim=-1, bool descending=False, Tensor out=None)",
        "argsort(Tensor input, int dim=-1, bool descending=False)")
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort input along ``dim`` (see torch.argsort)."""
    no_complex(input, " Sort does not support complex dtypes on CPU", RuntimeError)
    return ArgSort.apply(input, dim=wrap_dim(dim, input.ndim), descending=descending)


@parses("msort(Tensor input, *, Tensor out=None)")
def msort(input):
    """input sorted along its first dim (see torch.msort)."""
    return sort(input, 0).values


@parses("topk(Tensor input, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor[2] out=None)")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) elements along ``dim`` and their indices (see torch.topk)."""
    dim = wrap_dim(dim, input.ndim)
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = input.shape[dim] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    no_complex(input, " topk does not support complex dtypes on CPU", RuntimeError)
    return return_types.topk(Topk.apply(input, k=k, dim=dim, largest=largest, sorted=sorted))


# ---- unique and unique_consecutive: torch.functional's Python, whose flags pick the function that runs ---------------
def _dispatch_on(flag_name, flag_index, if_true, if_false):
    """torch's boolean_dispatch: the function that runs (and so names a wrong call in its TypeError) depends on the
    truth of one argument, by keyword or at ``flag_index``."""

    def dispatch(*args, **kwargs):
        flag = kwargs[flag_name] if flag_name in kwargs else args[flag_index] if flag_index < len(args) else False
        return (if_true if flag else if_false)(*args, **kwargs)

    return dispatch


def _unique_impl(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)
    return _unique2(input, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts)


def _return_inverse_and_counts(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)


def _return_counts(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, counts


def _return_output(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique_impl(input, sorted, return_inverse, return_counts, dim)[0]


def _return_inverse(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
    return output, inverse_indices


unique = _dispatch_on("return_inverse", 2, _dispatch_on("return_counts", 3, _return_inverse_and_counts,
                                                        _return_inverse),
                      _dispatch_on("return_counts", 3, _return_counts, _return_output))
unique.__doc__ = "The distinct elements (or slices along ``dim``), sorted (see torch.unique)."


@parses("_unique2(Tensor input, bool sorted=True, bool return_inverse=False, bool return_counts=False)")
def _unique2(input, sorted=True, return_inverse=False, return_counts=False):
    no_complex_kernel("unique", input)
    return _requested(Unique.apply(input), return_inverse, return_counts)


@parses("unique_dim(Tensor input, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False)")
def _unique_dim(input, dim, sorted=True, return_inverse=False, return_counts=False):
    dim = _unique_dim_checked(input, dim)
    no_complex_kernel("unique_dim", input)
    return _requested(UniqueDim.apply(input, dim=dim), return_inverse, return_counts)


def _unique_dim_checked(input, dim):
    """``dim`` wrapped, with PyTorch's refusals of unique over a dim of a tensor that has empty dims elsewhere."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim)
    if input.shape[dim] and 0 in input.shape:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    if input.shape.count(0) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    return dim


def _requested(results, return_inverse, return_counts):
    """(values, inverse, counts), the outputs not asked for empty, as PyTorch's unique ops return them."""
    values, inverse, counts = results
    return (values, inverse if return_inverse else _no_indices(inverse), counts if return_counts else
            _no_indices(counts))


def _no_indices(like):
    from ndgrad._creation import empty

    return empty(0, dtype=like.dtype, device=like.device)


def _unique_consecutive_impl(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive(input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _consecutive_return_inverse_and_counts(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)


def _consecutive_return_counts(input, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, counts


def _consecutive_return_output(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)[0]


def _consecutive_return_inverse(input, return_inverse=False, return_counts=False, dim=None):
    output, inverse_indices, _ = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, inverse_indices


# NOTE: torch reads a positional return_counts of unique_consecutive at index 1, return_inverse's place; so do we.
unique_consecutive = _dispatch_on(
    "return_inverse", 2,
    _dispatch_on("return_counts", 1, _consecutive_return_inverse_and_counts, _consecutive_return_inverse),
    _dispatch_on("return_counts", 1, _consecutive_return_counts, _consecutive_return_output),
)
unique_consecutive.__doc__ = ("Each run of equal consecutive elements (or slices along ``dim``) once (see "
                              "torch.unique_consecutive).")


@parses("unique_consecutive(Tensor input, bool return_inverse=False, bool return_counts=False, int? dim=None)")
def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        dim = _unique_dim_checked(input, dim)
    no_complex_kernel("unique" if dim is None else "unique_dim", input)
    return _requested(UniqueConsecutive.apply(input, dim=dim), return_inverse, return_counts)


@parses("nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)")
def nonzero(input, *, out=None, as_tuple=False):
    """The indices of input's nonzero elements (see torch.nonzero)."""
    return NonzeroTuple.apply(input) if as_tuple else Nonzero.apply(input)


@parses("argwhere(Tensor input)")
def argwhere(input):
    """nonzero's indices as rows (see torch.argwhere)."""
    return Nonzero.apply(input)


@parses("searchsorted(Tensor sorted_sequence, Tensor input, *, bool out_int32=False, bool right=False, "
        "str? side=None, Tensor? sorter=None, Tensor out=None)",
        "searchsorted(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, "
        "str? side=None, Tensor? sorter=None, Tensor out=None)")
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion points of input's values into the innermost dim of ``sorted_sequence`` (see torch.searchsorted)."""
    from ndgrad._tensor import Tensor

    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"ndgrad.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("ndgrad.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    if scalar:
        from ndgrad._creation import tensor

        input = tensor([input], device=sorted_sequence.device)
    _check_searchsorted(sorted_sequence, input, () if scalar else input.shape, sorter)
    result = SearchSorted.apply(sorted_sequence.detach(), input.detach(), right=right,
                                sorter=None if sorter is None else sorter._data, out_int32=out_int32)
    return result.reshape(()) if scalar else result


def _check_searchsorted(sorted_sequence, input, shape, sorter):
    """PyTorch's checks, in its order: the sorter, the shapes (``shape``: the input's, () for a number), then the
    kernel's dtypes."""
    boundaries = sorted_sequence.shape
    if sorter is not None:
        if sorter.shape != boundaries:
            raise RuntimeError("ndgrad.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(boundaries)}and got sorter tensor {list(sorter.shape)}")
        if sorter.dtype.name != "int64":
            raise RuntimeError(f"ndgrad.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{sorter.dtype.title}")
        if sorter.numel() and not (0 <= int(sorter._data.min()) and int(sorter._data.max()) < boundaries[-1]):
            raise RuntimeError("ndgrad.searchsorted(): sorter index out of range")
    if not shape and len(boundaries) != 1:
        raise RuntimeError("ndgrad.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({len(boundaries)}) and input value's dim(0) "
                           "numel(1)")
    if not boundaries:
        raise RuntimeError("ndgrad.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if len(boundaries) != 1 and (len(boundaries) != len(shape) or boundaries[:-1] != shape[:-1]):
        raise RuntimeError(
            "ndgrad.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor {list(boundaries)} "
            f"and input value tensor {list(shape)}"
        )
    no_complex_kernel("searchsorted_out_cpu", sorted_sequence, input)
    no_bool_kernel("searchsorted_out_cpu", sorted_sequence)


@parses("bucketize(Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False, Tensor out=None)",
        "bucketize(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False)")
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each of input's values between sorted ``boundaries`` (see torch.bucketize)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@parses("isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False, "
        "Tensor out=None)",
        "isin(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False, Tensor out=None)",
        "isin(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False, Tensor out=None)")
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element is among test_elements (not among them with ``invert``), compared in their common dtype
    (see torch.isin). NaN is in nothing, as NaN == NaN is False."""
    from ndgrad._dtype import result_type
    from ndgrad.ops._checks import as_tensor, is_tensor

    dtype = result_type((elements, test_elements))
    for operand in (elements, test_elements):
        if is_tensor(operand) and operand.dtype.numpy.kind not in "iuf":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {operand.dtype.title}")
    like = elements if is_tensor(elements) else test_elements
    elements, test_elements = (x.to(dtype) if is_tensor(x) else as_tensor(x, dtype, like)
                               for x in (elements, test_elements))
    xp = namespace_of(elements._data)
    found = xp.isin(elements._data, test_elements._data, assume_unique=assume_unique, invert=invert)
    return elements._wrap(xp.asarray(found))


class SortingMethods:
    """The Tensor methods of this module's ops (Tensor inherits them through IndexingMethods): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    sort = tensor_method(sort)
    argsort = tensor_method(argsort)
    def msort(self):
        return msort.__wrapped__(self)
    topk = tensor_method(topk)
    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    @parses_method("nonzero()",
                   "nonzero(*, bool as_tuple)")
    def nonzero(self, *, as_tuple=False):
        return nonzero(self, as_tuple=as_tuple)
    def argwhere(self):
        return argwhere.__wrapped__(self)

