"""Random numbers: the Generator (one NumPy PCG64 stream each, the default one behind manual_seed) and the random
factories rand, randn, normal, randint and randperm, with PyTorch's checks in PyTorch's order (the tensor is
allocated first, then the kernel refuses its dtype or its bounds)."""

import numbers

import numpy as np

from ndgrad._argument_parser import parses, parses_method
from ndgrad._device import CPU, has_cuda_backend
from ndgrad._device import device as as_device
from ndgrad._dtype import float16, float32, float64, from_numpy_dtype, get_default_dtype, int64, real_scalar, uint8
from ndgrad._factory import FACTORY_KEYWORDS, LIKE_KEYWORDS, made, new_size, placed
from ndgrad._fpstate import silenced
from ndgrad._tensor import Tensor
from ndgrad.ops._broadcast import broadcast_error

__all__ = [
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "rand",
    "randn", "normal", "randint", "randperm", "rand_like", "randn_like", "randint_like",
]

_SEED_RANGE = (-(2**63), 2**64)  # what torch accepts; negative seeds wrap around modulo 2**64
_NEW_GENERATOR_SEED = 67280421310721  # the seed a new torch.Generator starts from
# get_state's layout: PCG64's 128-bit state and increment, its cached half-word (flag, value), the initial seed.
_STATE_LAYOUT = ((16, "state"), (16, "inc"), (1, "has_uint32"), (4, "uinteger"), (8, "seed"))
_STATE_SIZE = sum(width for width, _ in _STATE_LAYOUT)
_NO_CUDA_GENERATOR = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but "
    "the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
    "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by using ldd on your binary to see if "
    "there is a dependency on *_cuda.so library."
)


class Generator:
    """A random-number stream with torch.Generator's API (see torch.Generator); NumPy's PCG64 draws the numbers,
    so a seed gives other values than in PyTorch, but the same values on every run."""

    __module__ = "ndgrad"

    @parses_method("Generator(Device device=None)")
    def __init__(self, device=None):
        self.device = _generator_device(device)
        self._rng = np.random.default_rng(_NEW_GENERATOR_SEED)
        self._seed = _NEW_GENERATOR_SEED

    def manual_seed(self, seed):
        if isinstance(seed, np.integer):  # sic: PyTorch unpacks only Python ints here
            raise TypeError("an integer is required")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not _SEED_RANGE[0] <= seed < _SEED_RANGE[1]:
            raise ValueError("Overflow when unpacking long long")
        self._seed = int(seed) % 2**64
        self._rng.bit_generator.state = np.random.PCG64(self._seed).state  # in place: the stream object stays
        return self

    def seed(self):
        """Reseed from the operating system's entropy and return the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % 2**63))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The stream's position as a uint8 tensor that set_state restores (its layout is ndgrad's own)."""
        pcg = self._rng.bit_generator.state
        fields = {**pcg["state"], "has_uint32": pcg["has_uint32"], "uinteger": pcg["uinteger"], "seed": self._seed}
        raw = b"".join(int(fields[name]).to_bytes(width, "little") for width, name in _STATE_LAYOUT)
        return Tensor._wrap(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a ndgrad.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not uint8:
            raise TypeError("RNG state must be a ndgrad.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a PCG64 state of size {_STATE_SIZE} but found the input RNG state size to be "
                f"{new_state.numel()}"
            )
        raw, fields, start = new_state.cpu()._data.tobytes(), {}, 0
        for width, name in _STATE_LAYOUT:
            fields[name], start = int.from_bytes(raw[start:start + width], "little"), start + width
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": fields["state"], "inc": fields["inc"]},
            "has_uint32": fields["has_uint32"], "uinteger": fields["uinteger"],
        }
        self._seed = fields["seed"]
        return self


def _generator_device(device):
    """A generator's device: the cpu, or a GPU where there is one; PyTorch's error for other device types."""
    device = CPU if device is None else as_device(device)
    if device.type == "cuda" and not has_cuda_backend():
        raise RuntimeError(_NO_CUDA_GENERATOR)
    if device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"{device.type.upper()} device type not an accelerator.")
    return device


class _RandomState:
    """The stream of the default generator, which rand, randn, dropout and the other samplers draw from."""

    generator = np.random.default_rng(0)


default_generator = object.__new__(Generator)  # on the cpu, drawing from the default stream (reseeded in place)
default_generator.device, default_generator._rng, default_generator._seed = CPU, _RandomState.generator, 0


def get_rng_state():
    """The default generator's state (see torch.get_rng_state)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def manual_seed(seed):
    """Reseed the generator behind rand/randn/randint/normal (values differ from PyTorch's generator)."""
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def _stream(generator):
    """The NumPy generator to draw from: the given ndgrad Generator's, else the default one."""
    return _RandomState.generator if generator is None else generator._rng


# ---- the factories -------------------------------------------------------------------------------------------------
def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype.title}\'')


def _allocated(size, dtype):
    """The host array a random tensor of ``dtype`` (None: the default) is drawn into, allocated (after PyTorch's
    size checks) before anything else is looked at, as PyTorch's empty() is before its kernel runs: an allocation
    that fails names the tensor's own bytes."""
    dtype = dtype or get_default_dtype()
    return np.empty(new_size(size, dtype), dtype.numpy)


@silenced
def _drawn(draw, out, generator, kernel, complex_scale=1.0):
    """``out`` (allocated, see _allocated) filled with ``draw(rng, shape)``, real and imaginary parts drawn apart
    for complex dtypes and scaled as PyTorch scales them; ``kernel``: PyTorch's name for the sampler, in its error
    for a dtype it has no kernel for."""
    if out.dtype.kind not in "fcV":
        raise _not_implemented(kernel, from_numpy_dtype(out.dtype))
    rng, shape = _stream(generator), out.shape
    real = out.dtype.kind in "fV"
    out[...] = draw(rng, shape) if real else (draw(rng, shape) + 1j * draw(rng, shape)) * complex_scale
    return out


def _uniform(rng, shape):
    return rng.random(shape)


def _standard_normal(rng, shape):
    return rng.standard_normal(shape)




@parses(f"rand(SymInt[] size, *, Generator? generator, Tensor out=None, {FACTORY_KEYWORDS})",
        f"rand(SymInt[] size, *, Tensor out=None, {FACTORY_KEYWORDS})")
def rand(size, *, dtype=None, device=None, requires_grad=False, generator=None):
    out = _drawn(_uniform, _allocated(size, dtype), generator, "check_uniform_bounds")
    return made(placed(out, device), requires_grad)


@parses(f"randn(SymInt[] size, *, Generator? generator, Tensor out=None, {FACTORY_KEYWORDS})",
        f"randn(SymInt[] size, *, Tensor out=None, {FACTORY_KEYWORDS})")
def randn(size, *, dtype=None, device=None, requires_grad=False, generator=None):
    return made(placed(_normal_samples(_allocated(size, dtype), generator), device), requires_grad)


def _normal_samples(out, generator):
    """Standard normal samples; a complex one has variance 1 in all, 1/2 for each part, as in PyTorch."""
    return _drawn(_standard_normal, out, generator, "normal_kernel_cpu", complex_scale=0.5**0.5)


@parses("normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
        "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor out=None)",
        "normal(float mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
        f"normal(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor out=None, "
        f"{FACTORY_KEYWORDS})")
def normal(mean, std, size=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    """Samples N(mean, std^2); mean and std are numbers or tensors that broadcast (see torch.normal)."""
    if size is not None:  # normal(mean, std, size) is PyTorch's empty(size).normal_(mean, std)
        out = _allocated(size, dtype)
        _check_std(std)
        mean_array, std_array = mean, std
    else:  # the result takes the broadcast shape, and the dtype and device of mean (else of std)
        std_array = _check_std(std)
        mean_array = mean.detach().cpu()._data if isinstance(mean, Tensor) else mean
        error = broadcast_error(np.shape(mean_array), np.shape(std_array))
        if error is not None:
            raise error
        like = mean if isinstance(mean, Tensor) else std
        shape, device = np.broadcast_shapes(np.shape(mean_array), np.shape(std_array)), like.device
        out = _allocated(shape, like.dtype)
    samples = _normal_samples(out, generator)
    with np.errstate(all="ignore"):
        samples[...] = mean_array + std_array * samples
    return made(placed(samples, device), requires_grad)


def _check_std(std):
    """``std`` (on the host) after PyTorch's checks: real, and not negative (nor nan)."""
    if not isinstance(std, Tensor):
        if not std >= 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        return std
    if std.dtype.is_complex:
        raise RuntimeError("normal expects standard deviation to be non-complex")
    values = std.detach().cpu()._data
    if values.size and not values.min() >= 0:  # nan fails too
        raise RuntimeError("normal expects all elements of std >= 0.0")
    return values


@parses(*(f"randint({bounds}, SymInt[] size, *, {generator}Tensor out=None, {FACTORY_KEYWORDS})"
          for bounds in ("SymInt high", "SymInt low, SymInt high") for generator in ("Generator? generator, ", "")))
def randint(low=0, high=None, size=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    """Integers drawn uniformly from [low, high) (see torch.randint): PyTorch's random_ on a new tensor."""
    from ndgrad.ops.random import checked_random_range

    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=size)
        low, high = 0, low
    dtype = dtype or int64
    out = _allocated(size, dtype)
    low, high = checked_random_range(low, high, dtype)
    if out.size:
        out[...] = _stream(generator).integers(low, high, size=out.shape, endpoint=True)
    return made(placed(out, device), requires_grad)


@parses(*(f"randint_like(Tensor input, {bounds}, *, {generator}{LIKE_KEYWORDS})"
          for bounds in ("SymInt low, SymInt high", "Tensor high", "SymInt high")
          for generator in ("Generator? generator, ", "")))
def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, generator=None):
    """randint with the shape, dtype and device of ``input`` (see torch.randint_like)."""
    if high is None:
        low, high = 0, low
    high = int(high) if isinstance(high, Tensor) else high
    return randint(low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device,
                   requires_grad=requires_grad, generator=generator)


# n above which a floating dtype no longer holds every integer below n, and PyTorch's words for it
_PERMUTATION_LIMITS = {float16: (2**11 + 1, "2049"), float32: (2**24 + 1, "2^24+1"), float64: (2**53 + 1, "2^53+1")}


@parses(f"randperm(SymInt n, *, Generator? generator, Tensor out=None, {FACTORY_KEYWORDS})",
        f"randperm(SymInt n, *, Tensor out=None, {FACTORY_KEYWORDS})")
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1 (see torch.randperm)."""
    dtype = dtype or int64
    out = _allocated((n,), dtype)
    real_scalar(n - 1 if n > 0 else n, dtype)  # the largest value must fit the dtype
    limit = _PERMUTATION_LIMITS.get(dtype)
    if limit is not None and n > limit[0]:
        raise RuntimeError(f"n cannot be greater than {limit[1]} for {dtype.title} type.")
    if dtype.is_complex or dtype.numpy.kind == "b":
        raise _not_implemented("randperm", dtype)
    out[...] = _stream(generator).permutation(n)
    return made(placed(out, device), requires_grad)


@parses(f"rand_like(Tensor input, *, Generator? generator, {LIKE_KEYWORDS})", f"rand_like(Tensor input, *, "
                                                                                 f"{LIKE_KEYWORDS})")
def rand_like(input, *, dtype=None, device=None, requires_grad=False, generator=None):
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad,
                generator=generator)


@parses(f"randn_like(Tensor input, *, Generator? generator, {LIKE_KEYWORDS})",
        f"randn_like(Tensor input, *, {LIKE_KEYWORDS})")
def randn_like(input, *, dtype=None, device=None, requires_grad=False, generator=None):
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad,
                 generator=generator)
