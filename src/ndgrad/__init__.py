"""ndgrad: PyTorch's autograd, rebuilt in Python on NumPy. ``import ndgrad as torch`` and go."""

import math

# __config__ first: its import of ndgrad._core picks the compiled or the pure-Python core before either is imported
from ndgrad import (
    __config__,
    accelerator,
    amp,
    autograd,
    backends,
    cpu,
    cuda,
    distributed,
    fft,
    linalg,
    multiprocessing,
    nn,
    onnx,
    ops,
    optim,
    random,
    return_types,
    sparse,
    special,
    testing,
    utils,
    viz,
)
from ndgrad._argument_parser import parses
from ndgrad._autocast import (
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from ndgrad._compile import compile
from ndgrad._creation import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    frombuffer,
    full,
    full_like,
    get_default_device,
    ones,
    ones_like,
    scalar_tensor,
    set_default_device,
    tensor,
    zeros,
    zeros_like,
)
from ndgrad._determinism import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    use_deterministic_algorithms,
)
from ndgrad._device import device
from ndgrad._dlpack import from_dlpack
from ndgrad._dtype import (
    bfloat16,
    can_cast,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from ndgrad._dtype import (
    bool_ as bool,
)
from ndgrad._memory import empty_strided, resize_as_
from ndgrad._metadata import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_coo,
    strided,
)
from ndgrad._printing import set_printoptions, typename
from ndgrad._random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from ndgrad._ranges import arange, linspace, logspace, tril_indices, triu_indices
from ndgrad._ranges import deprecated_range as range  # torch.range, under the builtin's name
from ndgrad._tensor import Size, Tensor
from ndgrad._threads import get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads
from ndgrad._type_info import finfo, iinfo
from ndgrad._windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window
from ndgrad.amp import autocast
from ndgrad.autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from ndgrad.autograd.explain import explain  # ndgrad's own: why is .grad None?
from ndgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ndgrad.autograd.hints import set_hint_language, set_hints_enabled  # ndgrad's own: hints after errors
from ndgrad.backends.cuda import get_float32_matmul_precision, set_float32_matmul_precision
from ndgrad.ops import *  # noqa: F403  (every op family's public functions: ndgrad.add, ndgrad.sum, ...)
from ndgrad.serialization import load, save

half, float, double = float16, float32, float64
pi, e, inf, nan, newaxis = math.pi, math.e, math.inf, math.nan, None
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128


@parses("result_type(Tensor tensor, Tensor other)",
        "result_type(Scalar scalar, Tensor tensor)",
        "result_type(Tensor tensor, Scalar other)",
        "result_type(Scalar scalar1, Scalar scalar2)")
def result_type(tensor1, tensor2):
    """The dtype an op on these two operands computes in (see torch.result_type)."""
    from ndgrad._dtype import result_type as promote_operands

    return promote_operands((tensor1, tensor2))


def is_tensor(obj):
    return isinstance(obj, Tensor)


@parses("numel(Tensor input)")
def numel(input):
    return input.numel()


@parses("is_floating_point(Tensor input)")
def is_floating_point(input):
    return input.is_floating_point()


@parses("is_signed(Tensor input)")
def is_signed(input):
    return input.is_signed()


@parses("is_same_size(Tensor input, Tensor other)")
def is_same_size(input, other):
    return input.is_same_size(other)


@parses("is_nonzero(Tensor input)")
def is_nonzero(input):
    """The truth of a one-element tensor (see torch.is_nonzero)."""
    return input.is_nonzero()


@parses("detach(Tensor input)")
def detach(input):
    """A tensor sharing input's data, cut out of the graph (see torch.detach)."""
    return input.detach()


@parses("detach_(Tensor input)")
def detach_(input):
    """Cut input itself out of the graph (see torch.detach_)."""
    return input.detach_()


@parses("is_inference(Tensor input)")
def is_inference(input):
    """True for a tensor made under inference_mode, or a view of one (see torch.is_inference)."""
    return input.is_inference()


__version__ = "0.1.0"
