"""How in-place writes through views reach the graph: CopySlices (the base's new history) and AsStrided (a
view's history rebuilt from its base), both driven by the view's recorded steps; and the in-place view ops
(squeeze_, t_, ...), which change a tensor's own shape.

Note [views and in-place]: a view remembers the view ops that made it from its base (``_view_steps``). Writing
into a view in place changes the base's values, so the base gets a new grad_fn, CopySlices, whose backward
routes the gradient of the written region to the in-place op and the rest to the base's old history. Every
view of that base then sees new values, so each live view's grad_fn is rebuilt from the base (AsStrided). The steps
replay on memory laid out as the base's (whether a reshape is a view depends on the layout), and AsStrided's backward
is the steps' own backwards, last first. As in PyTorch, the outputs of an op that returns several views are never
rebuilt: once their base is written, they refuse their grad_fn.
"""

from ndgrad._argument_parser import parses_method
from ndgrad.autograd.forward_ad import _set_tangent, _tangent
from ndgrad.ops._op import Op, repeated_elements_error, repeats_elements
from ndgrad.ops.shape import (
    Squeeze,
    SqueezeDim,
    SqueezeInplace,
    T,
    Transpose,
    Unsqueeze,
    View,
    normalize_dims,
    wrap_dim,
)

__all__ = []


def replay(xp, array, steps):
    """Apply the recorded view steps (op, params, output_nr) to a raw array: the same view of another array."""
    for op, params, output_nr, _ in steps:
        array = op.forward(xp, array, **params)
        if type(array) is tuple:
            array = array[output_nr]
    return array


def layout_of(array):
    """An array's strides in elements: the memory layout that a base's recorded view steps assume."""
    return tuple(stride // array.itemsize for stride in array.strides)


def laid_out_as(xp, array, layout, copy=False):
    """``array``'s values in memory with the base's ``layout``, where the recorded steps are views again (a reshape
    of a base is a view only for some layouts); ``array`` itself if it has that layout and no copy is asked for."""
    if layout_of(array) == layout and not copy:
        return array
    result = empty_laid_out(xp, array.shape, array.dtype, layout)
    result[...] = array
    return result


def empty_laid_out(xp, shape, dtype, layout):
    """An uninitialised array of ``shape`` whose memory has ``layout``, gaps included, as the base's has."""
    if 0 in shape:
        return xp.empty(shape, dtype=dtype)
    low = sum((size - 1) * stride for size, stride in zip(shape, layout) if stride < 0)
    high = sum((size - 1) * stride for size, stride in zip(shape, layout) if stride > 0)
    memory = xp.empty(high - low + 1, dtype=dtype)
    itemsize = memory.itemsize
    return xp.lib.stride_tricks.as_strided(memory[-low:], shape, tuple(stride * itemsize for stride in layout))


class CopySlices(Op):
    """The base with the region a view covers replaced by ``src``; recorded when a view is written in place.
    ``layout``: the base's memory layout, which the view's steps were recorded on."""

    node_name = "CopySlices"
    node_qualname = "ndgrad::autograd::CopySlices"

    @staticmethod
    def forward(xp, base, src, steps, layout):
        result = laid_out_as(xp, base, layout, copy=True)
        region = replay(xp, result, steps)
        region[...] = src if region.dtype.kind == "c" else src.real  # x.real of a complex base is a real region
        return result

    @staticmethod
    def vjp(ctx, grad):
        from ndgrad._creation import zeros

        need_base, need_src = ctx.needs_input_grad
        region = AsStrided.apply(grad, steps=ctx.steps, layout=ctx.layout)  # the written region's gradient: src's
        if not need_base:
            return None, region
        if repeats_elements(region._data):  # a fill_ of an expand: PyTorch's backward cannot write that region
            raise repeated_elements_error()
        zero = zeros(region.shape, dtype=region.dtype, device=grad.device)
        grad_base = CopySlices.apply(grad, zero, steps=ctx.steps, layout=ctx.layout)
        return grad_base, (region if need_src else None)

    @staticmethod
    def jvp(ctx, base_t, src_t):
        return CopySlices.apply(base_t, src_t, steps=ctx.steps, layout=ctx.layout)


class AsStrided(Op):
    """A view of ``base`` rebuilt from its recorded steps: the grad_fn of a view whose base was written in place.
    ``layout``: the base's memory layout, which the steps were recorded on."""

    @staticmethod
    def forward(xp, base, steps, layout):
        return replay(xp, laid_out_as(xp, base, layout), steps)

    @staticmethod
    def vjp(ctx, grad):
        # The vjp of a chain of views: each step's own vjp, the last step's first. A step whose elements share
        # memory (an expand) sums their gradients, as PyTorch's as_strided backward does.
        from ndgrad._creation import zeros

        metas = _step_metas(grad._data, ctx.input_shapes[0], ctx.input_dtypes[0], ctx.steps, ctx.layout)
        for (op, params, output_nr, _), (shape, dtype, outputs) in zip(reversed(ctx.steps), reversed(metas)):
            grads = [grad if i == output_nr else zeros(s, dtype=d, device=grad.device) for i, (s, d) in
                     enumerate(outputs)]
            (grad,) = op.vjp(_StepContext(params, shape, dtype), *grads)
        return (grad,)

    @staticmethod
    def jvp(ctx, base_t):
        return AsStrided.apply(base_t, steps=ctx.steps, layout=ctx.layout)


def _step_metas(like, shape, dtype, steps, layout):
    """For each step: the shape and dtype it starts from, and those of its outputs (several for unbind, split)."""
    from ndgrad._device import namespace_of
    from ndgrad._dtype import from_numpy_dtype

    xp = namespace_of(like)
    array = empty_laid_out(xp, shape, dtype.numpy, layout)
    metas = []
    for op, params, output_nr, _ in steps:
        out = op.forward(xp, array, **params)
        outputs = out if type(out) is tuple else (out,)
        metas.append((array.shape, from_numpy_dtype(array.dtype), [(o.shape, from_numpy_dtype(o.dtype)) for o in
                                                                    outputs]))
        array = outputs[output_nr]
    return metas


class _StepContext:
    """What a view op's vjp reads from its node (its parameters, its input's shape and dtype), for one recorded
    step."""

    def __init__(self, params, shape, dtype):
        self.__dict__.update(params)
        self.input_shapes, self.input_dtypes, self.needs_input_grad = (shape,), (dtype,), (True,)


def rebase(view, result):
    """After ``result`` was written into ``view``: the base's history becomes CopySlices, and its views'
    histories are rebuilt from it. In forward mode their tangents are rebuilt the same way, by the jvps."""
    base = view._base
    updated = CopySlices.apply(base, result, steps=view._view_steps, layout=layout_of(base._data))
    base.grad_fn, base._requires_grad, base._output_nr = updated.grad_fn, updated._requires_grad, 0
    _take_tangent(base, updated)
    refresh_views(base)


def refresh_views(base):
    """Rebuild the grad_fn (and, in forward mode, the tangent) of every live view of ``base`` from the base. The
    views PyTorch will not rebuild (outputs of an op with several views) refuse their grad_fn from now on."""
    layout = layout_of(base._data)
    for view in list(base._views or ()):
        if creation_origin(view._view_steps) == "multi":
            refuse_history(view)
            continue
        fresh = _rebuilt(base, view._view_steps, layout)
        view.grad_fn, view._requires_grad, view._output_nr = fresh.grad_fn, fresh._requires_grad, 0
        _take_tangent(view, fresh)


def _rebuilt(base, steps, layout):
    """The view of ``base`` these steps make, with a history from the base: AsStrided, as PyTorch's AsStridedBackward0,
    except that a last step PyTorch cannot write as strides (view_as_real) is replayed after it, under its own node."""
    (op, params, _, _) = steps[-1]
    if not op.replayed_view:
        return AsStrided.apply(base, steps=steps, layout=layout)
    return op.apply(AsStrided.apply(base, steps=steps[:-1], layout=layout) if len(steps) > 1 else base, **params)


def creation_origin(steps):
    """How PyTorch marks a view made by these steps: the last mark a step left ("multi": an output of an op with
    several views, "no_grad", "custom_function"), or "" for a plain view; a view of a marked view keeps the mark."""
    return next((origin for _, _, _, origin in reversed(steps) if origin), "")


def refuse_history(view):
    from ndgrad._tensor import UnrebuildableView

    view.__class__ = UnrebuildableView


def rebase_tangents(view, result):
    """Forward mode where no history is recorded: only the tangents of the base and its views are rebuilt after
    ``result`` was written into ``view``."""
    base = view._base
    _take_tangent(base, CopySlices.apply(base, result, steps=view._view_steps, layout=layout_of(base._data)))
    refresh_view_tangents(base)


def refresh_view_tangents(base):
    """Forward mode: every live view of ``base`` gets the same view of the base's (new) tangent."""
    layout = layout_of(base._data)
    for view in list(base._views or ()):
        _take_tangent(view, AsStrided.apply(base, steps=view._view_steps, layout=layout))


def _take_tangent(tensor, source):
    tangent = _tangent(source)
    if tangent is not None:
        _set_tangent(tensor, tangent)


# ---- in-place view ops: PyTorch records them under their own node names -----------------------------------------
class SqueezeAllInplace(Squeeze):
    name = None  # the out-of-place op is the one the table tests
    node_name = "SqueezeBackward3"


class SqueezeDimsInplace(SqueezeDim):
    name = None  # the out-of-place op is the one the table tests
    node_name = "SqueezeBackward5"


class UnsqueezeInplace(Unsqueeze):
    name = None  # the out-of-place op is the one the table tests
    node_name = "UnsqueezeBackward1"


class TransposeInplace(Transpose):
    name = None  # the out-of-place op is the one the table tests
    node_name = "TransposeBackward1"


class TInplace(T):
    name = None  # the out-of-place op is the one the table tests
    node_name = "TBackward1"


def view_in_place(tensor, op, **params):
    """Make ``tensor`` itself the view ``op`` gives: its shape changes, its version counts a write, and with
    autograd ``op`` becomes its grad_fn. A view stays a view of its base, one step longer."""
    tensor._check_inplace()
    old_shape = tuple(tensor._data.shape)
    out = op.apply(tensor, **params)
    if tensor._base is None and tensor._views:  # its views' steps start from its old shape: undo the change first
        undo = _undo_step(op, params, old_shape)
        for view in tensor._views:
            view._view_steps = (undo, *view._view_steps)
    tensor._data = out._data
    tensor._bump_version()
    if out.grad_fn is not None:
        tensor.grad_fn, tensor._output_nr = out.grad_fn, 0
    if tensor._base is not None:
        tensor._view_steps = out._view_steps
    _take_tangent(tensor, out)
    return tensor


def _undo_step(op, params, old_shape):
    """The view step that takes a base changed in place by ``op`` back to its old layout (a transpose undoes itself;
    squeezing and unsqueezing only add or drop size-1 dims, which a view to the old shape restores)."""
    if issubclass(op, (Transpose, T)):
        return (op, params, 0, "")
    return (View, {"shape": old_shape}, 0, "")


def squeeze_(input, dim=None):
    if dim is None:
        return view_in_place(input, SqueezeAllInplace)
    dims = normalize_dims(dim, input.ndim)
    return view_in_place(input, SqueezeInplace if isinstance(dim, int) else SqueezeDimsInplace, dims=dims)


def unsqueeze_(input, dim):
    return view_in_place(input, UnsqueezeInplace, dim=wrap_dim(dim, input.ndim + 1))


def transpose_(input, dim0, dim1):
    return view_in_place(input, TransposeInplace, dim0=wrap_dim(dim0, input.ndim), dim1=wrap_dim(dim1, input.ndim))


def t_(input):
    if input.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return view_in_place(input, TInplace)


class InplaceViewMethods:
    """The Tensor methods of the in-place view ops: one line each."""

    __slots__ = ()

    @parses_method("squeeze_()",
                   "squeeze_(int dim)",
                   "squeeze_(int[] dim)")
    def squeeze_(self, dim=None):
        return squeeze_(self, dim)
    @parses_method("unsqueeze_(int dim)")
    def unsqueeze_(self, dim):
        return unsqueeze_(self, dim)
    @parses_method("transpose_(int dim0, int dim1)")
    def transpose_(self, dim0, dim1):
        return transpose_(self, dim0, dim1)
    @parses_method("swapdims_(int dim0, int dim1)")
    def swapdims_(self, dim0, dim1):
        return transpose_(self, dim0, dim1)
    @parses_method("swapaxes_(int axis0, int axis1)")
    def swapaxes_(self, axis0, axis1):
        return transpose_(self, axis0, axis1)
    def t_(self):
        return t_(self)
