"""User-defined differentiable functions: Function, whose ctx is also the grad_fn it records, and
once_differentiable. The engine runs these nodes like any other; nothing here knows a particular op."""

import functools
import inspect

from ndgrad._dtype import from_numpy_dtype
from ndgrad._fields import NodeFields
from ndgrad._warnings import warn
from ndgrad.autograd import forward_ad
from ndgrad.autograd.anomaly_mode import _AnomalyState, remember_forward
from ndgrad.autograd.grad_mode import STATE, no_grad
from ndgrad.autograd.graph import Node, _sequence
from ndgrad.autograd.provenance import _State as _Provenance
from ndgrad.autograd.provenance import capture
from ndgrad.autograd.saved import FREED_MESSAGE, HOOKS, SavedOutput, SavedPacked, check_version, version_to_save

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

_CUSTOM_VIEW = "custom_function"  # the origin of a view a Function returns; in-place writes to it are refused
_VIEW_REFUSED = (
    "Output {} of {} is a view and is being modified inplace. This view was created inside a custom Function (or "
    "because an input was returned as-is) and the autograd logic to handle view+inplace would override the custom "
    "backward associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. You "
    "can fix this by cloning the output of the custom Function."
)


class _RefusedViewStep:
    """The last view step of a view a Function returned. Replaying the steps is how an in-place write through the
    view (or a view of it) would rebuild history around the custom backward, so replaying refuses instead."""

    @staticmethod
    def forward(xp, array, message):
        raise RuntimeError(message)


_Tensor = None


def _tensor_class():
    global _Tensor
    if _Tensor is None:
        from ndgrad._tensor import Tensor

        _Tensor = Tensor
    return _Tensor


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) records for backward (see torch.autograd.function.FunctionCtx)."""

    def save_for_backward(self, *tensors):
        """Keep tensors for backward; they come back, version-checked, as ``ctx.saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp``, which reads them as ``ctx.saved_tensors``."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declare the inputs that forward modified in place (see torch.autograd.function.FunctionCtx.mark_dirty)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that never require grad; backward receives zeros for them."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether backward gets zeros (True, the default) or None for outputs no gradient reached."""
        self._materialize_grads = value


class BackwardCFunction(FunctionCtx, Node):
    """The grad_fn a Function records, e.g. ``MyExpBackward``; the same object is the ctx forward and backward get."""

    _forward_cls = None  # set on each per-Function subclass
    _saved = None
    _in_jvp = False
    _materialize_grads = True
    to_save = dirty_tensors = non_differentiable = saved_for_forward = ()

    def __repr__(self):
        return object.__repr__(self)

    @property
    def saved_tensors(self):
        if self._in_jvp:
            return self.saved_for_forward
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        unpacked = []
        for item, version in zip(saved, self._saved_versions):
            if type(item) is SavedOutput or type(item) is SavedPacked:
                item = item.unpack(self)
            elif version is not None:
                check_version(item, version, self)
            unpacked.append(item)
        return tuple(unpacked)

    def _release(self):
        self._saved = None

    def apply(self, *grads):
        """Call the Function's backward (or vjp) with this node as ctx."""
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should only "
                "implement one of them."
            )
        return (vjp if vjp is not Function.vjp else backward)(self, *grads)

    def _apply(self, grads):
        if self._materialize_grads and any(grad is None for grad in grads):
            from ndgrad._creation import zeros

            device = next((grad.device for grad in grads if grad is not None), None)
            grads = [
                zeros(meta[0], dtype=from_numpy_dtype(meta[1]), device=device)
                if grad is None and meta is not None else grad
                for grad, meta in zip(grads, self._output_meta)
            ]
        result = self.apply(*grads)
        return self._checked(result if isinstance(result, tuple) else (result,))

    def _checked(self, result):
        """One gradient per tensor input (the engine's edges), after PyTorch's checks of what backward returned."""
        Tensor = _tensor_class()
        expected = len(self._is_tensor_input)
        if len(result) > expected and all(grad is None for grad in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected {expected}, got "
                f"{len(result)})"
            )
        for position, (grad, is_tensor) in enumerate(zip(result, self._is_tensor_input)):
            if grad is None:
                continue
            if not is_tensor:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position {position + 1}, but "
                    "the corresponding forward input was not a Variable"
                )
            if not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
        grads = [grad for grad, is_tensor in zip(result, self._is_tensor_input) if is_tensor]
        for index, ((node, input_nr), grad) in enumerate(zip(self._edges, grads)):
            if node is not None and grad is not None:
                self._check_gradient(index, grad, *node._output_meta[input_nr])
        return grads

    def _check_gradient(self, index, grad, shape, dtype):
        """The engine sums a broadcast gradient down and casts its dtype; anything else is the user's error."""
        grad_shape = grad._data.shape
        lead = len(grad_shape) - len(shape)
        if lead < 0 or any(size not in (1, grad_size) for size, grad_size in zip(shape, grad_shape[lead:])):
            raise RuntimeError(
                f"Function {self.name()} returned an invalid gradient at index {index} - got {list(grad_shape)} but "
                f"expected shape compatible with {list(shape)}"
            )
        grad_kind = grad._data.dtype.kind
        if grad_kind not in "fV" and (dtype.kind == "c") != (grad_kind == "c"):
            raise RuntimeError(
                "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to be true, but "
                "got false.  (Could this error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)"
            )


class Function:
    """Base class for differentiable functions written by the user (see torch.autograd.Function)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _give_backward_class(cls)

    def __init__(self, *args, **kwargs):
        warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you should "
            "invoke them on the class itself. Instantiating an autograd function will raise an error in a future "
            "version of PyTorch.",
            DeprecationWarning,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch."
            "autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it with "
            "backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward under no_grad and record the Function's node (see torch.autograd.Function.apply)."""
        Tensor = _tensor_class()
        with_setup_context = cls.setup_context is not Function.setup_context
        if with_setup_context:  # forward takes no ctx: arguments are bound to its signature, defaults included
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        elif kwargs:
            _check_keywords(cls.forward, args, kwargs)
        inputs = args + tuple(kwargs.values())
        requires_grad = [isinstance(x, Tensor) and x._requires_grad for x in inputs]
        record = STATE.grad_enabled and any(requires_grad)
        ctx = NodeFields.__new__(cls._backward_cls)
        ctx._sequence_nr = next(_sequence)
        ctx.needs_input_grad = tuple(requires_grad)
        if record:  # before forward: a dirty input is about to become an output of ctx itself
            ctx._is_tensor_input = tuple(isinstance(x, Tensor) for x in inputs)
            ctx._edges = tuple(x._edge() if x._requires_grad else (None, 0) for x in inputs if isinstance(x, Tensor))
        with no_grad(), forward_ad._paused():  # forward's own ops record nothing and push no tangents
            if with_setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        raw_outputs = output if is_tuple else (output,)
        outputs, views = _wrap_outputs(ctx, inputs, raw_outputs, record, Tensor)
        if record:
            _record(ctx, inputs, outputs, Tensor)
        if forward_ad._active():
            _push_tangents(cls, ctx, inputs, outputs, views, Tensor)
        return outputs if is_tuple else outputs[0]


def _give_backward_class(cls):
    """The grad_fn class of a Function (``MyExpBackward``), whose instances are also its ctx."""
    name = f"{cls.__name__}Backward"
    namespace = {"_forward_cls": cls, "__module__": __name__, "__qualname__": name,
                 "formula": f"{cls.__name__}.backward(ctx, grad)"}  # the rule, as ndgrad.autograd.trace shows it
    cls._backward_cls = type(name, (BackwardCFunction,), namespace)


_give_backward_class(Function)  # Function.apply itself runs, to raise forward's NotImplementedError, as in PyTorch


def _check_keywords(forward, args, kwargs):
    """PyTorch's Function.apply passes keywords only to forward's positional parameters past ctx, with its messages."""
    parameters = list(inspect.signature(forward).parameters.values())[1:]
    names = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]  # not even keyword-only ones
    for key in kwargs:
        if key not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{key}'")
        if names.index(key) < len(args):
            raise TypeError(f"forward() got multiple values for argument '{key}'")


def _wrap_outputs(ctx, inputs, raw_outputs, record, Tensor):
    """Give the outputs their history: the ctx as grad_fn, dirty inputs rewritten in place, inputs returned
    as-is turned into views. Returns the outputs and, per output, whether it is a view."""
    dirty = ctx.dirty_tensors
    if any(not any(t is out for out in raw_outputs) for t in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as output. The inputs that "
            "are modified inplace must all be outputs of the Function."
        )
    non_differentiable = ctx.non_differentiable
    outputs, views, meta = [], [], []
    for output_nr, out in enumerate(raw_outputs):
        if not isinstance(out, Tensor):
            outputs.append(out), views.append(False), meta.append(None)
            continue
        is_dirty = any(out is t for t in dirty)
        if is_dirty:
            if record and out._requires_grad and out.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            out._bump_version()
        elif any(out is x for x in inputs):
            out = _alias(out, Tensor)
        view = not is_dirty and out._base is not None
        if record and out._data.dtype.kind in "fcV" and not any(out is t for t in non_differentiable):
            out._requires_grad, out.grad_fn, out._output_nr = True, ctx, output_nr
        if record and view:
            refusal = {"message": _VIEW_REFUSED.format(output_nr, ctx._short_name())}
            out._view_steps = out._view_steps[:-1] + ((_RefusedViewStep, refusal, 0, _CUSTOM_VIEW),)
        outputs.append(out), views.append(view), meta.append((out._data.shape, out._data.dtype))
    ctx._output_meta = tuple(meta)
    return tuple(outputs), views


def _alias(tensor, Tensor):
    """A new tensor viewing all of ``tensor``: what an input returned as-is becomes, as in PyTorch."""
    from ndgrad.ops.shape import Alias

    if not STATE.grad_enabled:
        return Tensor._from_parts(tensor._data, False, None, 0, tensor._shared_counter())
    with no_grad(), forward_ad._paused():
        return Alias.apply(tensor)


def _record(ctx, inputs, outputs, Tensor):
    """The saved tensors with their versions (outputs saved without a cycle)."""
    saved, versions = [], []
    for index, tensor in enumerate(ctx.to_save):
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {index} is of type {type(tensor).__name__}"
            )
        if tensor is not None and tensor.grad_fn is ctx and any(tensor is out for out in outputs):
            saved.append(SavedOutput(tensor))  # an output of this node: holding it would make a cycle
            versions.append(None)
        else:
            saved.append(tensor)
            versions.append(None if tensor is None else version_to_save(tensor))
    if HOOKS.stack:
        _pack(ctx, saved)
        versions = [None] * len(saved)  # what the hooks keep is theirs: no version check, as in PyTorch
    ctx._saved, ctx._saved_versions = saved, tuple(versions)
    ctx.__dict__.pop("to_save", None)
    if _Provenance.enabled:
        ctx._site = capture(3)  # where the user called apply (see ndgrad.autograd.provenance)
    if _AnomalyState.enabled:  # with check_forward, stops at a custom forward that made a NaN or Inf
        remember_forward(ctx, inputs, [out for out in outputs if isinstance(out, Tensor)])
    for out in ctx.dirty_tensors:
        if out._base is not None and out.grad_fn is ctx:
            from ndgrad.ops.views import rebase

            rebase(out, out)  # a view written in place: its base's history now runs through this node


def _pack(ctx, saved):
    """Hand each saved tensor to the innermost saved_tensors_hooks' pack hook."""
    pack, unpack = HOOKS.stack[-1]
    with no_grad():
        for index, item in enumerate(saved):
            if type(item) is SavedOutput:
                tensor, edge, is_output = item.unpack(ctx), item.output_nr, True
            elif item is not None:
                tensor, edge, is_output = item, item._edge() if item._requires_grad else (None, 0), False
            else:
                continue
            saved[index] = SavedPacked(pack(tensor), unpack, edge, tensor._requires_grad, is_output)


def _push_tangents(cls, ctx, inputs, outputs, views, Tensor):
    """Forward-mode AD: the outputs' tangents are what the Function's jvp makes of the inputs' tangents."""
    from ndgrad._creation import zeros_like

    tangents = [forward_ad._tangent(x) if isinstance(x, Tensor) else None for x in inputs]
    if all(t is None for t in tangents):
        return
    if cls.jvp is Function.jvp:
        Function.jvp(ctx)
    tangents = [zeros_like(x) if t is None and isinstance(x, Tensor) else t for x, t in zip(inputs, tangents)]
    ctx._in_jvp = True
    try:
        with forward_ad._paused():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        ctx.__dict__.pop("saved_for_forward", None)
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outputs):
        raise RuntimeError(
            f"Function's jvp returned an invalid number of forward gradients (expected {len(outputs)} but got "
            f"{len(result)})"
        )
    for out, tangent, view in zip(outputs, result, views):
        if tangent is None or not isinstance(out, Tensor) or out._data.dtype.kind not in "fcV":
            continue
        if tangent.shape != out.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
                f"is not supported. Tensor is of size {list(out.shape)} while the given forward gradient is of size "
                f"{list(tangent.shape)}."
            )
        if view and tangent._base is None:
            raise RuntimeError(
                "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a "
                "view."
            )
        forward_ad._set_tangent(out, tangent if tangent.dtype is out.dtype else tangent.to(out.dtype))


class Error(Node):
    """The grad_fn once_differentiable gives a backward's results: differentiating them again raises."""

    def __init__(self, message, tensors):
        self._message = message
        self._sequence_nr = next(_sequence)
        # Edges to throwaway leaves, as PyTorch makes them: the error needs a graph to sit in, nothing more.
        self._edges = tuple(
            t.detach().requires_grad_()._edge() if t is not None and t._data.dtype.kind in "fcV" else (None, 0)
            for t in tensors
        )
        self._output_meta = tuple(None if t is None else (t._data.shape, t._data.dtype) for t in tensors)

    def name(self):
        return "ndgrad::autograd::Error"

    def _apply(self, grads):
        raise RuntimeError(self._message)


def once_differentiable(fn):
    """Decorate a backward that is not itself differentiable: it runs under no_grad, and differentiating its
    results raises (see torch.autograd.function.once_differentiable)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        Tensor = _tensor_class()
        with no_grad():
            outputs = fn(ctx, *args)
        if not STATE.grad_enabled or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        tensors = [out if isinstance(out, Tensor) else None for out in ((outputs,) if single else outputs)]
        node = Error("trying to differentiate twice a function that was marked with @once_differentiable", tensors)
        wrapped = tuple(
            None if t is None else Tensor._from_parts(t._data, True, node, nr, t._shared_counter())
            for nr, t in enumerate(tensors)
        )
        return wrapped[0] if single else wrapped

    return wrapper
