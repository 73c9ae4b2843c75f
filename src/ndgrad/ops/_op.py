"""The Op base class: the one bridge between the math (ops/*) and the graph (autograd/*).

An op declares ``forward`` (raw arrays in, raw arrays out, through ``xp``) and ``vjp`` (ndgrad Tensors in and
out, so gradients are themselves differentiable). ``Op.apply`` runs the forward and records the node.
"""

import inspect
from weakref import WeakSet

import numpy as np

from ndgrad._device import allocation_error, array_namespace, device_of_array, namespace_of, placement, to_device
from ndgrad._dtype import INT_RANGES, can_cast, get_default_dtype, result_type, wrapped_int
from ndgrad._fields import NodeFields, new_tensor
from ndgrad._fpstate import restore, silence
from ndgrad._shared import keep
from ndgrad._sparse_storage import SparseCOO
from ndgrad.autograd.anomaly_mode import _AnomalyState, remember_forward
from ndgrad.autograd.forward_ad import _active, _ForwardState, _no_jvp, _set_tangent, _tangent, push_tangents
from ndgrad.autograd.grad_mode import NO_VERSION, STATE
from ndgrad.autograd.graph import OpNode, _sequence
from ndgrad.autograd.leaks import warn_if_carried
from ndgrad.autograd.provenance import BACKWARD as _BACKWARD
from ndgrad.autograd.provenance import _State as _Provenance
from ndgrad.autograd.provenance import capture, mark
from ndgrad.autograd.saved import HOOKS as SAVED_HOOKS
from ndgrad.autograd.saved import SavedOutput, pack_saved
from ndgrad.ops._broadcast import broadcast_error

__all__ = [
    "Op", "OP_TABLE", "UNARY", "BINARY", "TERNARY", "REDUCTION", "SCAN", "SHAPE", "JOINING", "INDEXING", "MATMUL",
    "REAL", "POSITIVE", "NONZERO", "UNIT", "ABOVE_ONE",
]

# Families pick the test samples for an op; domains say where an op is smooth, so tests sample inside.
UNARY, BINARY, TERNARY, MATMUL = "unary", "binary", "ternary", "matmul"
REDUCTION, SCAN, SHAPE, JOINING, INDEXING = "reduction", "scan", "shape", "joining", "indexing"
REAL, POSITIVE, NONZERO, UNIT, ABOVE_ONE = "real", "positive", "nonzero", "unit", "above_one"  # UNIT: (-1, 1)

OP_TABLE = []  # every Op subclass with a name, for listing by tests and docs; nothing dispatches through it

_Tensor = None  # ndgrad._tensor.Tensor, bound on first use (the tensor module imports the ops)
_new_node = NodeFields.__new__  # object.__new__ as Python; the C struct's allocator when compiled


class Op:
    """Base of every primitive op. Subclasses set the class attributes below and define forward and vjp.

    Defining a subclass with a ``name`` adds it to OP_TABLE, and so to the op tests.
    """

    name = None  # PyTorch's function name; the tests call torch's function of this name as the oracle
    family = None  # which sampler the tests use
    domain = REAL  # where inputs are sampled
    saves = ()  # forward parameter names or output names the vjp reads from ctx.saved_tensors
    saved_for = {}  # saved name -> the input whose gradient alone needs it: saved (else None) only if that input
    #                 requires grad, as PyTorch saves ``self`` of a product only when ``other`` needs a gradient
    outputs = ("result",)  # names of forward's outputs; integer outputs never require grad
    node_name = None  # the grad_fn's class name; default f"{ClassName}Backward0", as PyTorch names most
    node_qualname = None  # what grad_fn.name() says, where PyTorch reports a C++ name instead of the class name
    float_only = False  # integer inputs are computed in the default float dtype (exp, sqrt, true division)
    differentiable = True  # False: results never require grad (comparisons)
    complex_autograd = True  # False: recording a complex result raises, as for PyTorch's ops without complex rules
    is_view = False  # the result shares memory, and so the version counter, with the first input
    zero_grad_in_place = False  # a non-differentiable op that, in place, records a node giving zero gradients
    idempotent = False  # writing it twice changes nothing (fill_): PyTorch lets it write memory whose elements repeat
    replayed_view = False  # a view PyTorch cannot write as strides of its input (a new dtype): rebuilt views replay it
    # An elementwise op whose forward is this NumPy ufunc of its inputs when its keyword parameters are ufunc_params
    # (add: alpha=1): apply_ lets the ufunc write straight into the tensor when nothing records (see _writes_in_place)
    ufunc, ufunc_params = None, {}
    takes_sparse = False  # forward takes sparse storages (ndgrad.ops.sparse); other ops run their sparse kernels

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "vjp" in cls.__dict__ and "vjp_arrays" not in cls.__dict__:
            cls.vjp_arrays = None  # an inherited array rule would not be this vjp's: the vjp runs instead
        node_name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward0"
        namespace = {"op": cls, "__module__": "ndgrad.autograd.graph"}
        if cls.__dict__.get("node_qualname"):
            namespace["name"] = lambda node, qualname=cls.node_qualname: qualname
        cls._node_class = type(node_name, (OpNode,), namespace)
        parameters = list(inspect.signature(cls.forward).parameters)[1:]  # drop xp
        cls._save_plan = tuple(
            (False, parameters.index(n)) if n in parameters else (True, cls.outputs.index(n)) for n in cls.saves
        )
        cls._save_needed_by = tuple(
            parameters.index(cls.saved_for[n]) if n in cls.saved_for else None for n in cls.saves
        )
        cls._saves_first_input = (False, 0) in cls._save_plan
        cls._save_steps = tuple((*plan, needed_by) for plan, needed_by in zip(cls._save_plan, cls._save_needed_by))
        if cls.__dict__.get("name"):
            OP_TABLE.append(cls)

    @staticmethod
    def forward(xp, *arrays, **params):
        raise NotImplementedError

    @staticmethod
    def vjp(ctx, *grads):
        raise NotImplementedError

    # vjp_arrays(ctx, *grads): the vjp on raw arrays (ctx.saved_arrays), which the engine runs when it builds no graph
    # (see Note [array rules] in ndgrad.autograd.engine), or NotImplemented for the cases it leaves to the vjp; the
    # tests check it against the vjp for every sample.
    vjp_arrays = None
    jvp = staticmethod(_no_jvp)  # forward mode: an op declares jvp(ctx, *tangents) beside its vjp
    formula = None  # the vjp in one line of derivatives.yaml names ("grad_self = grad * other"), for autograd.trace

    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on Tensors (and Python numbers) and record a backward node if a gradient is needed."""
        Tensor = _Tensor or _bind_tensor()
        try:
            arrays, needs_grad, target = _unwrap(inputs, Tensor, cls.float_only)
        except AttributeError:  # a number or other object where a unary op needs a Tensor
            raise _not_a_tensor(cls, inputs, Tensor) from None
        if type(arrays[0]) is np.ndarray:
            xp = np
        elif type(arrays[0]) is SparseCOO and not cls.takes_sparse:
            return _sparse_kernels().run_sparse(cls, inputs, params)
        else:
            xp, arrays = _on_one_device(arrays)
        fp_state = silence()  # inf and nan without NumPy's warnings (see Note [floating-point error state])
        try:
            if target is not None:  # a cast may overflow too (100000 to float16 is inf)
                arrays = [a.astype(target) if hasattr(a, "dtype") and a.dtype != target else a for a in arrays]
            if xp is not np:
                result = _forward_placed(cls, xp, arrays, params)
            elif params:
                result = cls.forward(xp, *arrays, **params)
            else:  # no keywords: nothing to unpack into a new dict (most elementwise ops)
                result = cls.forward(xp, *arrays)
        except ValueError as error:
            raise _translate(error, arrays) from None
        except MemoryError as error:
            raise allocation_error(error) or error from None
        except TypeError:  # an array library refused another device's array (see _on_one_device), or a sparse one
            if not cls.takes_sparse and any(type(a) is SparseCOO for a in arrays):
                return _sparse_kernels().run_sparse(cls, inputs, params)
            _check_parameter_devices(arrays, params)
            if xp is not np or all(type(a) is np.ndarray or not hasattr(a, "shape") for a in arrays):
                raise
            xp, arrays = _on_one_device(arrays)
            result = _forward_placed(cls, xp, arrays, params)
        finally:
            restore(fp_state)

        view_of = inputs[0] if cls.is_view else None
        grad_enabled = STATE.grad_enabled
        record = needs_grad and cls.differentiable and grad_enabled
        counter = None if grad_enabled or not STATE.inference else NO_VERSION  # see Note [inference tensors]
        if type(result) is not tuple:
            if type(result) is np.ndarray and view_of is None:  # the common case of _wrap, inlined
                out = new_tensor(Tensor, result, False, None, 0, counter)
            else:
                out = _wrap(result, Tensor, view_of, counter)
            if needs_grad and not grad_enabled and _Provenance.enabled and not _BACKWARD.depth:
                mark(out, "no_grad" if counter is None else "inference_mode")  # a cut (see explain())
            if record and (kind := out._data.dtype.kind) in "fcV":
                if kind == "c" and not cls.complex_autograd:
                    raise _no_complex_autograd(cls)
                out._requires_grad, out.grad_fn = True, _record(cls, inputs, params, (out,))
            if view_of is not None:
                _mark_views(cls, params, view_of, (out,), "")
            if _ForwardState.active:
                push_tangents(cls, inputs, params, (out,), Tensor)
            return out
        outs = tuple(_wrap(r, Tensor, view_of, counter) for r in result)
        if record:
            if not cls.complex_autograd and any(out._data.dtype.kind == "c" for out in outs):
                raise _no_complex_autograd(cls)
            node = _record(cls, inputs, params, outs)
            for output_nr, out in enumerate(outs):
                if out._data.dtype.kind in "fcV":
                    out._requires_grad, out.grad_fn, out._output_nr = True, node, output_nr
        if view_of is not None:
            _mark_views(cls, params, view_of, outs, "multi")
        if _ForwardState.active:
            push_tangents(cls, inputs, params, outs, Tensor)
        return outs

    @classmethod
    def apply_(cls, self, *others, **params):
        """The in-place form (``add_``): compute out of place, write the values into ``self``, move its grad_fn.
        An op with a ufunc that records nothing has NumPy write into ``self`` directly (see _writes_in_place)."""
        self._check_inplace()
        if cls.ufunc is not None and _writes_in_place(cls, self, others, params):  # no call for the other ops
            _check_overlap(self, others, cls.idempotent)
            fp_state = silence()
            try:
                cls.ufunc(self._data, *[x if type(x) is float else x._data for x in others], out=self._data)
            finally:
                restore(fp_state)
            self._bump_version()
            return self
        source = self
        forward = _ForwardState.active and _active()  # this thread pushes tangents (see ndgrad.autograd.forward_ad)
        if STATE.grad_enabled and cls._saves_first_input and _any_requires_grad((self, *others)):
            source = self._snapshot()  # the vjp needs the old values, which the write below overwrites
            if forward and _tangent(self) is not None:
                _set_tangent(source, _tangent(self))
        out = cls.apply(source, *others, **params)  # first, as PyTorch reads the inputs' histories before their memory
        _check_overlap(self, others, cls.idempotent)
        if out._data.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(out.shape)}"
            )
        if not can_cast(out.dtype, self.dtype):
            raise RuntimeError(
                f"result type {out.dtype.title} can't be cast to the desired output type {self.dtype.title}"
            )
        self._write(out._data)
        tangents = forward and _tangent(out) is not None
        if tangents:
            _set_tangent(self, _tangent(out))  # the written tensor carries the result's tangent
        elif forward and not cls.differentiable and _tangent(self) is not None:
            _set_tangent(self, _tangent(self) * 0)  # written with values that carry none (x.eq_(0))
        views = _views_module or _bind_views_module()
        if not STATE.grad_enabled:  # nothing is recorded: no history changes, but tangents move with the values
            if tangents and self._base is not None:
                views.rebase_tangents(self, out)
            elif tangents and self._views:
                views.refresh_view_tangents(self)
            return self
        if out.grad_fn is not None:
            out.grad_fn._rebind_saved_output(self)
            warn_if_carried(self)  # `total += loss` across optimizer steps (see ndgrad.autograd.leaks)
        elif cls.zero_grad_in_place and _any_requires_grad((self, *others)):
            out._requires_grad, out.grad_fn = True, _record(cls, (source, *others), params, (self,))
        if self._base is not None and (out.grad_fn is not None or self._base._requires_grad):
            views.rebase(self, out)  # see Note [views and in-place]
        elif out.grad_fn is not None:
            self.grad_fn, self._requires_grad, self._output_nr = out.grad_fn, True, out._output_nr
            if self._views:
                views.refresh_views(self)
        elif tangents and self._base is not None:
            views.rebase_tangents(self, out)
        elif tangents and self._views:
            views.refresh_view_tangents(self)
        return self


def _writes_in_place(cls, self, others, params):
    """Whether apply_ may let the op's ufunc write into ``self`` (``p -= lr * p.grad`` in an optimizer step): nothing
    records and no tangent moves, and the inputs are ``self``'s shape and dtype or Python floats, so the result is
    what the out-of-place op computes, written where it would be copied to (without the copy, and without a new
    array whose pages the system must first map)."""
    if _ForwardState.active or params != cls.ufunc_params:
        return False
    target = self._data
    if type(target) is not np.ndarray or target.dtype.kind not in "fcV" or not target.flags.writeable:
        return False
    recording = STATE.grad_enabled  # then a tensor that requires grad, or a view of one, would record
    if recording and (self._requires_grad or (self._base is not None and self._base._requires_grad)):
        return False
    for other in others:
        if type(other) is float:
            continue
        if not isinstance(other, _Tensor) or (recording and other._requires_grad):
            return False
        source = other._data
        if type(source) is not np.ndarray or source.dtype != target.dtype or source.shape != target.shape:
            return False
    return True


def _check_overlap(self, others, idempotent):
    """PyTorch's refusals of an in-place write: into memory where elements repeat (an expand; fine for an idempotent
    write), or from an input that shares part, but not all, of the written memory. Like PyTorch, only inputs whose
    elements fill their memory without gaps (in any order of dims) are judged for that: interleaved views are too hard
    to call."""
    target = self._data
    if not idempotent and repeats_elements(target):
        raise repeated_elements_error()
    if type(target) is not np.ndarray:
        return
    for other in others:
        source = getattr(other, "_data", None)
        if type(source) is not np.ndarray or not np.may_share_memory(source, target) or source is target:
            continue
        if not (_is_dense(source) and _is_dense(target)):
            continue
        same_start = source.__array_interface__["data"][0] == target.__array_interface__["data"][0]
        if not (same_start and source.nbytes == target.nbytes and source.strides == target.strides):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation."
            )


def inplace_refusal(tensor, error):
    """The error PyTorch gives first for an in-place method that failed with ``error`` before writing: autograd's
    refusal (a leaf, or a view of one, that requires grad), then, for a dtype or shape error (which PyTorch's
    TensorIterator finds only after looking at the written memory), repeated elements in ``tensor``; else ``error``."""
    try:
        tensor._check_inplace()
    except RuntimeError as refusal:
        return refusal
    iterator_error = isinstance(error, NotImplementedError) or str(error).startswith(_ITERATOR_ERRORS)
    if iterator_error and repeats_elements(tensor._data):
        return repeated_elements_error()
    return error


_ITERATOR_ERRORS = ("result type ", "The size of tensor a ", "output with shape ")


def repeated_elements_error():
    return RuntimeError(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
        "Please clone() the tensor before performing the operation."
    )


def repeats_elements(array):
    """PyTorch's test for a written tensor whose elements share memory: a dim of size > 1 with stride 0."""
    return 0 in array.strides and array.size and any(size > 1 and not stride for size, stride in
                                                      zip(array.shape, array.strides))


def _is_dense(array):
    """PyTorch's is_non_overlapping_and_dense: the elements fill their memory exactly, dims in some order."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return True
    expected = array.itemsize
    for stride, size in sorted((stride, size) for size, stride in zip(array.shape, array.strides) if size > 1):
        if stride != expected:
            return False
        expected *= size
    return True


class FloatUnary(Op):
    """Base of the elementwise functions of one tensor that integer inputs compute in the default float dtype."""

    family = UNARY
    float_only = True


class WithoutDerivative(Op):
    """An op PyTorch records but defines no derivative for (its subclasses name their node NotImplemented, as
    PyTorch's): backward or forward AD through it raises PyTorch's error naming ``aten`` (the op's ATen name)."""

    aten = None

    @classmethod
    def vjp(cls, ctx, grad):
        raise RuntimeError(f"derivative for aten::{cls.aten} is not implemented")

    @classmethod
    def jvp(cls, ctx, *tangents):
        raise NotImplementedError(f"Trying to use forward AD with aten::{cls.aten} that does not support it.")


def _any_requires_grad(inputs):
    return any(getattr(x, "requires_grad", False) for x in inputs)


def _mark_views(cls, params, view_of, outs, origin):
    """Record how each output views its base, and register it with the base so in-place writes can rebuild
    its history (see Note [views and in-place]). ``origin``: "multi" for the views of an op that returns several
    (even if this time it returns one), which PyTorch refuses to write in place."""
    base = view_of._base if view_of._base is not None else view_of
    steps = view_of._view_steps or ()
    recording = STATE.grad_enabled
    if not recording:  # made where nothing records: writing it in place where something does is refused
        origin = "inference_mode" if STATE.inference else "no_grad"  # (Tensor._check_inplace)
    for output_nr, out in enumerate(outs):
        out._view_steps = steps + ((cls, params, output_nr, origin),)
        if recording:
            if base._views is None:
                base._views = WeakSet()
            base._views.add(out)


def operand(other):
    """The other side of an operator as ops accept it: a Tensor or a Python number; None if unsupported."""
    if type(other) in _OPERANDS:  # the common cases, at the cost of one set lookup
        return other
    Tensor = _Tensor or _bind_tensor()
    if isinstance(other, np.generic):  # first: np.float64 is also a float, but must not reach NumPy's promotion
        return other.item()
    if isinstance(other, (Tensor, int, float, complex)):
        return other
    if isinstance(other, np.ndarray):
        return Tensor._wrap(other)
    return None


def operand_or_raise(other):
    """``operand`` for methods such as ``add_``, where an unsupported type is an error rather than NotImplemented."""
    result = operand(other)
    if result is None:
        raise TypeError(f"expected Tensor or number, but got {type(other).__name__}")
    return result


# ndgrad.ops.views, bound on first use (it imports this module): an import statement in apply_ would cost more per
# in-place call (1.3 us) than many writes
_views_module = None


def _sparse_kernels():
    """ndgrad.ops._sparse_kernels, imported when a sparse tensor first meets a dense op (it imports the ops)."""
    from ndgrad.ops import _sparse_kernels

    return _sparse_kernels


def _bind_views_module():
    global _views_module
    from ndgrad.ops import views

    _views_module = views
    return views


_OPERANDS = {float, int, complex}  # and Tensor, once bound: the types an operator takes as they are


def _bind_tensor():
    global _Tensor
    from ndgrad._tensor import Tensor

    _Tensor = Tensor
    _OPERANDS.add(Tensor)
    return Tensor


def _unwrap(inputs, Tensor, float_only):
    """Arrays for forward, whether any input requires grad, and the NumPy dtype to cast to (None: no cast).

    The common cases (one dtype, Python numbers of no higher category) need no cast and skip the promotion table.
    """
    if len(inputs) == 1:  # unary ops: always one Tensor
        data = inputs[0]._data
        if float_only and data.dtype.kind not in "fcV":
            return [data], inputs[0]._requires_grad, get_default_dtype().numpy
        return [data], inputs[0]._requires_grad, None
    if len(inputs) == 2 and isinstance(inputs[0], Tensor):
        x, y = inputs
        if type(y) is float and x._data.dtype.kind in "fcV":  # a float tensor and a Python float: no promotion
            return [x._data, y], x._requires_grad, None
        if isinstance(y, Tensor):  # binary, one dtype
            a, b = x._data, y._data
            if a.dtype == b.dtype and (not float_only or a.dtype.kind in "fcV"):
                return [a, b], x._requires_grad or y._requires_grad, None
    arrays, needs_grad, common, numbers = [], False, None, False
    for x in inputs:
        if isinstance(x, Tensor):
            data = x._data
            needs_grad = needs_grad or x._requires_grad
            if common is None:
                common = data.dtype
            elif data.dtype != common:
                common = False
            arrays.append(data)
        else:
            numbers = True
            arrays.append(x)
    if common is not False and (not numbers or _numbers_fit(inputs, common)):
        if not float_only or common.kind in "fcV":
            return arrays, needs_grad, None
        return arrays, needs_grad, get_default_dtype().numpy
    dtype = result_type(inputs)  # PyTorch's OverflowError for an int beyond 64 bits
    if float_only and dtype._category < 2:
        dtype = get_default_dtype()
    elif numbers and dtype._category == 1:  # an int operand wraps into an integer dtype, as C casts it (u8 - 300)
        arrays = [wrapped_int(x, dtype) if type(x) is int else x for x in arrays]
    return arrays, needs_grad, dtype.numpy


_NO_INTS = (1, 0)  # bool tensors: an int promotes them


def _numbers_fit(inputs, dtype):
    """True if every Python number in ``inputs`` leaves a tensor of this NumPy dtype unpromoted, and is computed
    with as it is (an int within the dtype's range)."""
    kind = dtype.kind
    for x in inputs:
        number_type = type(x)
        if number_type is float:
            fits = kind in "fcV"
        elif number_type is int:
            low, high = INT_RANGES.get(dtype, _NO_INTS)
            fits = low <= x <= high
        elif number_type is complex:
            fits = kind == "c"
        else:
            continue  # a tensor, or a bool (which never promotes)
        if not fits:
            return False
    return True


def _wrap(array, Tensor, view_of, counter):
    """A new Tensor for a forward result, with ``counter`` (None, or NO_VERSION under inference_mode); a view shares
    its input's version counter and base instead."""
    if type(array) is not np.ndarray:  # NumPy returns scalars, not 0-d arrays, from ops on 0-d arrays
        if isinstance(array, np.generic):
            array = np.asarray(array)
        elif type(array) is not SparseCOO:  # a sparse tensor's storage stands as it is
            array = namespace_of(array).asarray(array)
    if view_of is None:
        return Tensor._from_parts(array, False, None, 0, counter)
    base = view_of._base if view_of._base is not None else view_of
    view = Tensor._from_parts(array, False, None, 0, view_of._shared_counter(), base)
    if getattr(view_of, "_conj_bit", False):  # a view of a conj() result is conjugated too (see Conj)
        view._conj_bit = True
    return view


_NO_EDGE = (None, 0)
_METAS, _VERSIONS = {}, {}  # what nodes share (see Note [shared records] in ndgrad._shared)


def _edge_of(x):
    """The edge a new node points along for one input: its producer and output number, its leaf's AccumulateGrad,
    or _NO_EDGE for a number or a tensor that needs no gradient."""
    if isinstance(x, _Tensor):
        tensor = x  # typed in the compiled core (ops/_op.pxd), as are other tensors and nodes named so here
        if tensor._requires_grad:
            grad_fn = x.grad_fn  # read once: not a typed field (see ndgrad._fields)
            return (grad_fn, tensor._output_nr) if grad_fn is not None else x._edge()
    return _NO_EDGE


def _record(cls, inputs, params, outs):
    """Create the backward node: edges to the inputs' nodes, output shapes and dtypes, what the vjp saves.

    This runs for every recorded op, so one- and two-input ops (nearly all of them) build their edges without a
    loop, and a node with no keyword parameters keeps no dict until someone sets an attribute.
    """
    node = _new_node(cls._node_class)
    if params:
        node.__dict__ = params  # the op's keyword parameters, which rules read as ctx.dim, ctx.keepdim, ...
    node._sequence_nr = next(_sequence)
    if len(inputs) == 1:
        node._edges = edges = (_edge_of(inputs[0]),)
    elif len(inputs) == 2:
        node._edges = edges = (_edge_of(inputs[0]), _edge_of(inputs[1]))
    else:
        node._edges = edges = tuple([_edge_of(x) for x in inputs])
    if len(outs) == 1:
        out = outs[0]
        data = out._data
        meta = ((data.shape, data.dtype),)
        node._output_meta = _METAS.get(meta) or keep(_METAS, meta)  # see Note [shared records]
    else:
        node._output_meta = tuple([(out._data.shape, out._data.dtype) for out in outs])
    steps = cls._save_steps
    if steps:
        _save(node, steps, edges, inputs, outs)
    else:  # nothing to save (add, views): no list either
        node._saved = node._saved_versions = ()
    if _AnomalyState.enabled:
        remember_forward(node, inputs, outs)  # with check_forward, stops at the first NaN made
    if _Provenance.enabled:
        node._site = capture(3)  # the user's file and line (see ndgrad.autograd.provenance)
    return node


def _save(node, steps, edges, inputs, outs):
    """What the vjp reads, by the op's save steps, and each saved input's version, to check at unpacking."""
    saved, versions = [], []  # versions: an input tensor's version when saved; None for outputs and numbers
    for is_output, index, needed_by in steps:
        if needed_by is not None and edges[needed_by] is _NO_EDGE:
            item = version = None  # only another input's gradient reads it, and that input needs none
        elif is_output:
            out = outs[index]
            out._output_nr = index
            item, version = SavedOutput(out), None
        else:
            item = inputs[index]
            if isinstance(item, _Tensor):
                tensor = item
                counter = tensor._version_counter  # inlined Tensor._version: this runs for every saved input
                version = counter[0] if counter is not None else 0
            else:
                version = None
        saved.append(item)
        versions.append(version)
    versions = tuple(versions)
    node._saved, node._saved_versions = saved, _VERSIONS.get(versions) or keep(_VERSIONS, versions)
    if SAVED_HOOKS.stack:  # saved_tensors_hooks active in this thread
        pack_saved(node)


def _on_one_device(arrays):
    """The array library for arrays not all on the host, and the arrays with 0-d host arrays moved to the GPU
    (PyTorch lets a 0-d cpu tensor join a cuda op); PyTorch's error if the devices still differ."""
    if len(arrays) == 1:
        return namespace_of(arrays[0]), arrays
    devices = [device_of_array(a) if hasattr(a, "shape") else None for a in arrays]
    common = next((d for d in devices if d is not None and d.type != "cpu"), None)
    if common is None:  # numbers and host arrays only (a number came first)
        return np, arrays
    for index, (array, where) in enumerate(zip(arrays, devices)):
        if where is None or where == common:
            continue
        if where.type != "cpu" or array.ndim != 0:
            raise _mixed_devices(common, where)
        arrays = [*arrays[:index], to_device(array, common), *arrays[index + 1:]]
    return array_namespace(common), arrays


def _forward_placed(cls, xp, arrays, params):
    """Forward on GPU arrays, with the array library allocating on their GPU (where a constant the op makes must
    land), which is not the current one when the arrays live on another GPU."""
    device = device_of_array(next(a for a in arrays if hasattr(a, "shape")))
    if device.index == xp.cuda.runtime.getDevice():
        return cls.forward(xp, *arrays, **params)
    with placement(device):
        return cls.forward(xp, *arrays, **params)


def _mixed_devices(common, other):
    return RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, {common} and {other}!"
    )


def _check_parameter_devices(arrays, params):
    """PyTorch's error when an array parameter (where's condition, index_select's index) is on another device than
    the inputs."""
    devices = [device_of_array(a) for a in (*arrays, *params.values()) if hasattr(a, "shape") and a.ndim]
    common = next((d for d in devices if d.type != "cpu"), None)
    other = next((d for d in devices if d != common), None)
    if common is not None and other is not None:
        raise _mixed_devices(common, other)


def _no_complex_autograd(cls):
    return RuntimeError(f"{cls.name} does not support automatic differentiation for outputs with complex dtype.")


def _not_a_tensor(cls, inputs, Tensor):
    position = next(i for i, x in enumerate(inputs) if not isinstance(x, Tensor))
    argument = ("input", "other")[position] if position < 2 else f"tensors[{position}]"
    name, given = cls.name or cls.__name__.lower(), type(inputs[position]).__name__
    return TypeError(f"{name}(): argument '{argument}' (position {position + 1}) must be Tensor, not {given}")


def _translate(error, arrays):
    """Turn a NumPy broadcasting ValueError into PyTorch's message (its operands in the op's order); leave other
    errors alone."""
    if "broadcast" in str(error):
        translated = broadcast_error(*(a.shape for a in arrays if hasattr(a, "shape")))
        if translated is not None:
            return translated
    return error
