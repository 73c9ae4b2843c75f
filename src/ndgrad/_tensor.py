"""Tensor: an array plus the autograd fields (requires_grad, grad, grad_fn, version counter).

The math is not here: operators and methods are one-line delegations to ``ndgrad.ops``.
"""

import weakref

import numpy as np

from ndgrad import ops
from ndgrad._argument_parser import check_fits, parses_method, type_name
from ndgrad._device import device as Device
from ndgrad._device import parse_to, to_device
from ndgrad._dtype import (
    INT_RANGES,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from ndgrad._fields import TensorFields, new_tensor
from ndgrad._fpstate import restore, silence
from ndgrad._memory import MemoryMethods
from ndgrad._metadata import MetadataMethods, Size
from ndgrad._operators import OperatorMethods
from ndgrad._python_methods import PythonMethods
from ndgrad._tensor_surface import present_as_torch
from ndgrad._warnings import warn
from ndgrad.autograd.grad_mode import (
    INFERENCE_REQUIRES_GRAD,
    INFERENCE_VERSION,
    NO_VERSION,
    STATE,
    check_inference_write,
)
from ndgrad.autograd.graph import BOOKKEEPING, accumulator_of, hooks_of, note_retaining
from ndgrad.autograd.provenance import mark, note_cut, note_write
from ndgrad.ops._op import repeated_elements_error
from ndgrad.ops.activation import ActivationMethods
from ndgrad.ops.arithmetic import ArithmeticMethods
from ndgrad.ops.assembling import AssemblingMethods
from ndgrad.ops.comparison import ComparisonMethods
from ndgrad.ops.complex_numbers import ComplexMethods
from ndgrad.ops.convolutions import ConvolutionMethods
from ndgrad.ops.decompositions import DecompositionsMethods
from ndgrad.ops.gather_scatter import GatherScatterMethods
from ndgrad.ops.indexing import IndexingMethods
from ndgrad.ops.joining import JoiningMethods
from ndgrad.ops.layers import LayersMethods
from ndgrad.ops.linalg import LinalgMethods
from ndgrad.ops.lu import LuMethods
from ndgrad.ops.matrix_functions import MatrixFunctionsMethods
from ndgrad.ops.multiply_add import MultiplyAddMethods
from ndgrad.ops.norm_based import NormBasedMethods
from ndgrad.ops.normalization import NormalizationMethods
from ndgrad.ops.number_parts import NumberPartsMethods
from ndgrad.ops.pooling import PoolingMethods
from ndgrad.ops.products import ProductsMethods
from ndgrad.ops.random import RandomMethods
from ndgrad.ops.reduction import ReductionMethods
from ndgrad.ops.rounding import RoundingMethods
from ndgrad.ops.scan import ScanMethods
from ndgrad.ops.selection import SelectionMethods
from ndgrad.ops.shape import ShapeMethods
from ndgrad.ops.short_time import ShortTimeMethods
from ndgrad.ops.softmaxes import SoftmaxMethods
from ndgrad.ops.solvers import SolversMethods
from ndgrad.ops.sorting import SortingMethods
from ndgrad.ops.sparse import SparseMethods
from ndgrad.ops.special import SpecialMethods
from ndgrad.ops.special_functions import SpecialFunctionsMethods
from ndgrad.ops.splitting import SplittingMethods
from ndgrad.ops.statistics import StatisticsMethods
from ndgrad.ops.transcendental import TranscendentalMethods
from ndgrad.ops.trigonometric import TrigonometricMethods
from ndgrad.ops.views import InplaceViewMethods, creation_origin

__all__ = ["Tensor", "Size"]

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


# The C++ element type names PyTorch's grad-assignment message uses.


_MULTIPLE_VIEWS = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output views "
    "to be modified inplace. You should replace the inplace operation by an out-of-place one."
)


def _requires_grad_leaf_error(requires_grad):
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (
            " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    return message


# A view made where nothing records, written in place where something does: (made in, modified) for the message
_VIEW_MODES = {
    "no_grad": ("no_grad mode", "with grad mode enabled"), "inference_mode": ("inference mode", "in normal mode"),
}



class Tensor(
    TensorFields, ArithmeticMethods, RoundingMethods, TranscendentalMethods, TrigonometricMethods, SpecialMethods,
    SpecialFunctionsMethods, ActivationMethods, ComparisonMethods, ComplexMethods, ReductionMethods, SelectionMethods,
    ScanMethods, ShapeMethods, SplittingMethods, JoiningMethods, IndexingMethods, GatherScatterMethods, SortingMethods,
    LinalgMethods, SoftmaxMethods, LayersMethods, NormalizationMethods, ConvolutionMethods, PoolingMethods,
    ProductsMethods, SolversMethods, LuMethods, DecompositionsMethods, MatrixFunctionsMethods, OperatorMethods,
    RandomMethods, MultiplyAddMethods, StatisticsMethods, NumberPartsMethods, NormBasedMethods, AssemblingMethods,
    InplaceViewMethods, SparseMethods, ShortTimeMethods, MetadataMethods, MemoryMethods, PythonMethods,
):
    """An n-dimensional array that can record the operations applied to it (see torch.Tensor)."""

    # The other fields are TensorFields' (see ndgrad._fields); __dict__ holds a user's own attributes (x.name = ...),
    # as PyTorch allows, made on first use
    __slots__ = ("grad_fn", "__weakref__", "__dict__")
    __array_priority__ = 1000  # NumPy arrays and scalars on the left of an operator defer to Tensor
    __module__ = "ndgrad"  # prints as <class 'ndgrad.Tensor'>, as torch's does

    def __new__(cls, *args, **kwargs):
        """The legacy constructor: ``Tensor([1, 2])`` copies data, ``Tensor(2, 3)`` makes an uninitialised 2x3."""
        from ndgrad._creation import legacy_new

        return legacy_new(None, args, kwargs, cls)  # the default dtype, as set_default_dtype leaves it

    _from_parts = classmethod(new_tensor)  # a tensor made of its parts, without __init__

    @staticmethod
    def _wrap(data):
        """A new tensor of new memory (factories and conversions): an inference tensor under inference_mode."""
        return Tensor._from_parts(data, False, None, 0, NO_VERSION if STATE.inference else None)

    # ---- autograd fields -------------------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:  # PyTorch's first check: 1, None, np.bool_ and tensor(True) are refused
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            raise RuntimeError(_requires_grad_leaf_error(value))
        if value and self._data.dtype.kind not in "fcV":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._version_counter is NO_VERSION and not STATE.inference:
            raise RuntimeError(INFERENCE_REQUIRES_GRAD)
        self._requires_grad = value
        if value:
            mark(self, "leaf")

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")  # PyTorch's setter, given no value

    @parses_method("requires_grad_(bool requires_grad=True)")
    def requires_grad_(self, requires_grad=True):
        """Set requires_grad in place and return self (see torch.Tensor.requires_grad_)."""
        if self.grad_fn is not None and requires_grad:
            return self  # a non-leaf already requires grad: PyTorch allows asking again
        if requires_grad and self._data.dtype.kind not in "fcV":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")  # sic: not the setter's
        self.requires_grad = requires_grad
        return self

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is (see torch.Tensor.output_nr)."""
        return self._output_nr

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def is_inference(self):
        """True for a tensor made under inference_mode, or a view of one (see torch.Tensor.is_inference)."""
        return self._version_counter is NO_VERSION

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warn(_NON_LEAF_GRAD_WARNING, UserWarning)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type_name(value)}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.cpp_name}' to a tensor "
                    f"with grad_dtype '{self.dtype.title}'. The gradient must match the tensor's grad_dtype (defaults "
                    "to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or "
                    "None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None  # as PyTorch: deleting .grad clears it

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep .grad for this non-leaf tensor during backward (see torch.Tensor.retain_grad)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return
        # Keyed by output_nr on the current grad_fn, so asking again is harmless; RETAINING lets backward find
        # the tensor's newer grad_fn after an in-place op.
        hooks_of(self.grad_fn).retains[self._output_nr] = weakref.ref(self)
        self._retains_grad = True
        note_retaining(self)

    def _retain(self, grad):
        """Called by the engine with this tensor's gradient when retain_grad() was asked for."""
        with BOOKKEEPING:  # backward passes in two threads through one graph both add here (see Note [threads])
            if self._grad is None:
                self._grad = grad.clone() if STATE.grad_enabled else grad._detached_copy()
            else:
                self._grad = self._grad + grad

    def _edge(self):
        """The (node, input_nr) pair a new node's next_functions points at for this input."""
        if self.grad_fn is not None:
            return (self.grad_fn, self._output_nr)
        ref = self._accumulator_ref
        accumulator = ref() if ref is not None else None
        return (accumulator if accumulator is not None else accumulator_of(self), 0)

    def detach(self):
        """A tensor sharing this data, cut out of the graph (see torch.Tensor.detach)."""
        detached = Tensor._from_parts(self._data, False, None, 0, self._shared_counter())
        if self._requires_grad:
            mark(detached, "detach")
        return detached

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self.grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    def _detached_copy(self):
        return Tensor._from_parts(self._data.copy(), False, None, 0, None)

    @property
    def data(self):
        """The values without the graph; unlike detach(), in-place changes to it are not tracked."""
        data = Tensor._from_parts(self._data, False, None, 0, NO_VERSION if self.is_inference() else None)
        if self._requires_grad:
            mark(data, "data")
        return data

    @data.setter
    def data(self, value):
        """Swap in another tensor's values (any shape or dtype), keeping this tensor's place in the graph."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(value)}")
        if self._requires_grad and value._data.dtype.kind not in "fcV":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def _version(self):
        counter = self._version_counter
        if counter is NO_VERSION:
            raise RuntimeError(INFERENCE_VERSION)
        return counter[0] if counter is not None else 0

    def _shared_counter(self):
        """The version counter, made on first need.

        It is a one-element list, [number of in-place writes], shared with every view and detached alias of
        this storage (see Note [saved versions]). Most tensors are never written in place or viewed, so they
        never pay for one.
        """
        if self._version_counter is None:
            self._version_counter = [0]
        return self._version_counter

    # ---- in-place support --------------------------------------------------------------------------------
    def _is_view(self):
        """True if this tensor shares its base's memory (see torch.Tensor._is_view)."""
        return self._base is not None

    def _check_inplace(self):
        """PyTorch's refusals of an in-place write that would make gradients wrong or ambiguous."""
        if not STATE.grad_enabled:
            return
        grad_fn = _STORED_GRAD_FN.__get__(self)  # as PyTorch, an unrebuildable view's own node names the refusal
        if self._requires_grad and grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        base = self._base
        if base is None or not (base._requires_grad or self._requires_grad):
            return
        # How the view was made comes first, then whether its base is a leaf, as in PyTorch's check_inplace.
        refused = next((params for _, params, _, origin in self._view_steps if origin == "custom_function"), None)
        if refused is not None:  # a view a custom Function returned: rebuilding history would bypass its backward
            raise RuntimeError(refused["message"])
        origin = creation_origin(self._view_steps)
        if origin == "multi":
            raise RuntimeError(f"Output {self._output_nr} of {grad_fn._short_name()} is a view and is being modified "
                               f"inplace. {_MULTIPLE_VIEWS}")
        if origin in _VIEW_MODES:
            made_in, modified = _VIEW_MODES[origin]
            raise RuntimeError(
                f"A view was created in {made_in} and is being modified inplace {modified}. Given that this use case "
                "is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and "
                f"the inplace either both inside the {origin} block (if you don't want the inplace to be tracked) or "
                "both outside (if you want the inplace to be tracked)."
            )
        if base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")

    def _snapshot(self):
        """Same graph position, a private copy of the values: what a vjp sees after self is overwritten."""
        return Tensor._from_parts(self._data.copy(), self._requires_grad, self.grad_fn, self._output_nr, None)

    def _write(self, array):
        if not getattr(self._data.flags, "writeable", True):  # read-only memory (a loaded broadcast window)
            raise repeated_elements_error()
        fp_state = silence()  # a value beyond self's dtype is written as inf (see Note [floating-point error state])
        try:
            self._data[...] = array
        finally:
            restore(fp_state)
        self._bump_version()

    def apply_(self, callable):
        """Replace each element by ``callable(element)``, one Python call per element, on the CPU only (see
        torch.Tensor.apply_)."""
        if self._requires_grad:
            raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
        if type(self._data) is not np.ndarray:
            raise TypeError("apply_ is only implemented on CPU tensors")
        values = [_element(callable(item), self._data.dtype) for item in self._data.reshape(-1).tolist()]
        self._write(np.array(values).reshape(self._data.shape))  # cast as C casts, as PyTorch's (uint8 takes -1)
        return self

    def _bump_version(self):
        """Count an in-place write, which saved-tensor checks see, and remember the user's line that made it."""
        counter = self._shared_counter()
        if counter is NO_VERSION:  # an inference tensor: after the write, as PyTorch checks (the values changed)
            return check_inference_write()
        counter[0] += 1
        note_write(counter)

    # ---- conversion --------------------------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self._requires_grad:
            note_cut("item")  # a Python number leaves the graph: the hint after "does not require grad" names it
        return self._data.item()

    def tolist(self):
        return _host(self._data).tolist()

    @parses_method("numpy(*, bool force=False)")
    def numpy(self, *, force=False):
        """The NumPy array behind this tensor, sharing memory (see torch.Tensor.numpy)."""
        if type(self._data) is not np.ndarray and self.is_sparse:
            raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")
        if type(self._data) is not np.ndarray and not force:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                "host memory first."
            )
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if getattr(self, "_conj_bit", False) and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead."
            )
        if self.dtype is bfloat16:  # NumPy has no bfloat16 of its own to give
            raise TypeError("Got unsupported ScalarType BFloat16")
        return _host(self._data)

    @parses_method("to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, *, "
                   "MemoryFormat? memory_format=None)",
                   "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
                   "MemoryFormat? memory_format=None)",
                   "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)")
    def to(self, *args, **kwargs):
        """Convert dtype and/or device: ``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``."""
        target_device, dtype, copy = parse_to(args, kwargs)
        dtype, target_device = dtype or self.dtype, target_device or self.device
        if dtype is self.dtype and target_device == self.device and not copy:
            return self
        converted = ops.shape.to_copy(self, dtype=dtype, device=target_device)
        if self._requires_grad and not converted._requires_grad and STATE.grad_enabled:
            mark(converted, "integer cast")
        return converted

    def is_nonzero(self):
        return bool(self)

    @parses_method("is_same_size(Tensor other)")
    def is_same_size(self, other):
        return self.shape == other.shape

    @parses_method("type_as(Tensor other)")
    def type_as(self, other):
        return self.to(other.device, other.dtype)

    @parses_method("cpu(*, MemoryFormat? memory_format=None)")
    def cpu(self):
        return self.to("cpu")

    # ---- new tensors with this one's dtype and device (see torch.Tensor.new_zeros) -------------------------------
    @parses_method("new_tensor(object data, *, ScalarType dtype=None, Device? device=None, bool requires_grad=False)")
    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from ndgrad._creation import copied, warn_copy_construct
        from ndgrad._factory import made

        if isinstance(data, Tensor):
            warn_copy_construct("tensor.new_tensor(sourceTensor)")
        return made(copied(data, dtype or self.dtype, device or self.device), requires_grad)

    @parses_method("new_zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                   "bool? pin_memory=False, bool? requires_grad=False)")
    def new_zeros(self, size, *, dtype=None, device=None, requires_grad=False):
        from ndgrad._creation import fill_zeros, filled

        return filled(fill_zeros, size, dtype or self.dtype, device or self.device, requires_grad)

    @parses_method("new_ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                   "bool? pin_memory=False, bool? requires_grad=False)")
    def new_ones(self, size, *, dtype=None, device=None, requires_grad=False):
        from ndgrad._creation import fill_ones, filled

        return filled(fill_ones, size, dtype or self.dtype, device or self.device, requires_grad)

    @parses_method("new_empty(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                   "bool? pin_memory=False, bool? requires_grad=False)")
    def new_empty(self, size, *, dtype=None, device=None, requires_grad=False):
        from ndgrad._creation import fill_empty, filled

        return filled(fill_empty, size, dtype or self.dtype, device or self.device, requires_grad)

    @parses_method("new_full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
                   "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)")
    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        from ndgrad._creation import filled_with

        return filled_with(size, fill_value, dtype or self.dtype, device or self.device, requires_grad)

    @parses_method("cuda(Device? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None)",
                   "cuda(Device? device=None, bool async=False, *, MemoryFormat? memory_format=None)|deprecated")
    def cuda(self, device=None, non_blocking=False):  # copies to a GPU are synchronous: non_blocking asks nothing
        return self.to("cuda" if device is None else device)

    @parses_method("float(*, MemoryFormat? memory_format=None)")
    def float(self):
        return self.to(float32)

    @parses_method("double(*, MemoryFormat? memory_format=None)")
    def double(self):
        return self.to(float64)

    @parses_method("half(*, MemoryFormat? memory_format=None)")
    def half(self):
        return self.to(float16)

    @parses_method("bfloat16(*, MemoryFormat? memory_format=None)")
    def bfloat16(self):
        return self.to(bfloat16)

    @parses_method("cfloat(*, MemoryFormat? memory_format=None)")
    def cfloat(self):
        return self.to(complex64)

    @parses_method("cdouble(*, MemoryFormat? memory_format=None)")
    def cdouble(self):
        return self.to(complex128)

    @parses_method("short(*, MemoryFormat? memory_format=None)")
    def short(self):
        return self.to(int16)

    @parses_method("byte(*, MemoryFormat? memory_format=None)")
    def byte(self):
        return self.to(uint8)

    @parses_method("char(*, MemoryFormat? memory_format=None)")
    def char(self):
        return self.to(int8)

    @parses_method("long(*, MemoryFormat? memory_format=None)")
    def long(self):
        return self.to(int64)

    @parses_method("int(*, MemoryFormat? memory_format=None)")
    def int(self):
        return self.to(int32)

    @parses_method("bool(*, MemoryFormat? memory_format=None)")
    def bool(self):
        return self.to(bool_)

    @parses_method("clone(*, MemoryFormat? memory_format=None)")
    def clone(self):
        return ops.clone(self)

    @parses_method("contiguous(*, MemoryFormat memory_format=contiguous_format)")
    def contiguous(self):
        return self if self.is_contiguous() else ops.clone(self)

    # ---- Python protocols --------------------------------------------------------------------------------
    __hash__ = object.__hash__  # by identity, as in PyTorch (== is elementwise)

    def __getitem__(self, index):
        return ops.indexing.getitem(self, index)


present_as_torch(Tensor)  # read-only attributes and methods named as PyTorch's, for Python's own errors
_STORED_GRAD_FN = Tensor.grad_fn  # the slot itself, read past UnrebuildableView's refusal


class UnrebuildableView(Tensor):
    """A view whose base was written in place and whose history PyTorch will not rebuild (an output of an op with
    several views): from then on, reading its grad_fn (and so is_leaf, or using it in an op) raises PyTorch's error.
    A view becomes one by a change of class (see ndgrad.ops.views.refresh_views): no other tensor pays a check."""

    __slots__ = ()

    @property
    def grad_fn(self):
        node = _STORED_GRAD_FN.__get__(self)
        raise RuntimeError(f"Output {self._output_nr} of {node._short_name()} is a view and its base or another view "
                           f"of its base has been modified inplace. {_MULTIPLE_VIEWS}")

    @grad_fn.setter
    def grad_fn(self, node):
        _STORED_GRAD_FN.__set__(self, node)


def _element(value, dtype):
    """A value apply_'s callable returned, as PyTorch reads it back: a real number (or a complex one for a complex
    tensor); an int must fit 64 bits, and an integer dtype (an unsigned one takes down to -max, wrapped)."""
    if isinstance(value, complex) and dtype.kind == "c":
        return value
    if not isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        raise TypeError(f"must be real number, not {type_name(value)}")
    if isinstance(value, (int, np.integer)) and dtype.kind in "iu":
        check_fits("int", value)
        low, high = INT_RANGES[dtype]
        if not (-high if low == 0 else low) <= value <= high:
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return value


def _host(array):
    return array if type(array) is np.ndarray else array.get()


def _rebuild(array, requires_grad, device="cpu", attributes=None):
    tensor = Tensor._from_parts(to_device(array, Device(device)), requires_grad, None, 0, None)
    if attributes:
        tensor.__dict__.update(attributes)
    return tensor
