"""How in-place writes through views reach the graph: CopySlices (the base's new history) and AsStrided (a
view's history rebuilt from its base), both driven by the view's recorded steps; and the in-place view ops
(squeeze_, t_, ...), which change a tensor's own shape.

Note [views and in-place]: a view remembers the view ops that made it from its base (``_view_steps``). Writing
into a view in place changes the base's values, so the base gets a new grad_fn, CopySlices, whose backward
routes the gradient of the written region to the in-place op and the rest to the base's old history. Every
view of that base then sees new values, so each live view's grad_fn is rebuilt from the base (AsStrided).
"""

from ndgrad.autograd.forward_ad import _set_tangent, _tangent
from ndgrad.ops._op import Op
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


class CopySlices(Op):
    """The base with the region a view covers replaced by ``src``; recorded when a view is written in place."""

    node_name = "CopySlices"
    node_qualname = "ndgrad::autograd::CopySlices"

    @staticmethod
    def forward(xp, base, src, steps):
        result = base.copy()
        region = replay(xp, result, steps)
        region[...] = src if region.dtype.kind == "c" else src.real  # x.real of a complex base is a real region
        return result

    @staticmethod
    def vjp(ctx, grad):
        from ndgrad._creation import zeros

        need_base, need_src = ctx.needs_input_grad
        region = AsStrided.apply(grad, steps=ctx.steps)  # the written region's gradient goes to src
        if not need_base:
            return None, region
        grad_base = CopySlices.apply(grad, zeros(region.shape, dtype=region.dtype, device=grad.device), steps=ctx.steps)
        return grad_base, (region if need_src else None)

    @staticmethod
    def jvp(ctx, base_t, src_t):
        return CopySlices.apply(base_t, src_t, steps=ctx.steps)


class AsStrided(Op):
    """A view of ``base`` rebuilt from its recorded steps: the grad_fn of a view whose base was written in place."""

    @staticmethod
    def forward(xp, base, steps):
        return replay(xp, base, steps)

    @staticmethod
    def vjp(ctx, grad):
        from ndgrad._creation import zeros

        # a real view (x.real) has a complex base
        base = zeros(ctx.input_shapes[0], dtype=ctx.input_dtypes[0], device=grad.device)
        return (CopySlices.apply(base, grad, steps=ctx.steps),)

    @staticmethod
    def jvp(ctx, base_t):
        return AsStrided.apply(base_t, steps=ctx.steps)


def rebase(view, result):
    """After ``result`` was written into ``view``: the base's history becomes CopySlices, and its views'
    histories are rebuilt from it. In forward mode their tangents are rebuilt the same way, by the jvps."""
    base = view._base
    updated = CopySlices.apply(base, result, steps=view._view_steps)
    base.grad_fn, base._requires_grad, base._output_nr = updated.grad_fn, updated._requires_grad, 0
    _take_tangent(base, updated)
    refresh_views(base)


def refresh_views(base):
    """Rebuild the grad_fn (and, in forward mode, the tangent) of every live view of ``base`` from the base."""
    for view in list(base._views or ()):
        fresh = AsStrided.apply(base, steps=view._view_steps)
        view.grad_fn, view._requires_grad, view._output_nr = fresh.grad_fn, fresh._requires_grad, 0
        _take_tangent(view, fresh)


def rebase_tangents(view, result):
    """Forward mode where no history is recorded: only the tangents of the base and its views are rebuilt after
    ``result`` was written into ``view``."""
    base = view._base
    _take_tangent(base, CopySlices.apply(base, result, steps=view._view_steps))
    refresh_view_tangents(base)


def refresh_view_tangents(base):
    """Forward mode: every live view of ``base`` gets the same view of the base's (new) tangent."""
    for view in list(base._views or ()):
        _take_tangent(view, AsStrided.apply(base, steps=view._view_steps))


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

    def squeeze_(self, dim=None):
        return squeeze_(self, dim)
    def unsqueeze_(self, dim):
        return unsqueeze_(self, dim)
    def transpose_(self, dim0, dim1):
        return transpose_(self, dim0, dim1)
    def swapdims_(self, dim0, dim1):
        return transpose_(self, dim0, dim1)
    def swapaxes_(self, axis0, axis1):
        return transpose_(self, axis0, axis1)
    def t_(self):
        return t_(self)
