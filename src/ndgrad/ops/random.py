"""Random sampling into tensors: the in-place fills (uniform_, normal_, random_, bernoulli_, ...) and bernoulli,
poisson, multinomial. Numbers are drawn on the host by ndgrad's generator (manual_seed and ``generator=`` apply) and
moved to the tensor's device; PyTorch's dtype and argument checks come first, with its messages.
"""

import math

import numpy as np

from ndgrad._argument_parser import check_fits, parses, parses_method, tensor_method
from ndgrad._device import to_device
from ndgrad._dtype import bool_, float16, float32, float64
from ndgrad._fpstate import silenced
from ndgrad._warnings import warn
from ndgrad.ops._op import Op

__all__ = ["bernoulli", "poisson", "multinomial"]


# ---- ops: the sample replaces the values; the old values get a zero gradient (as PyTorch's UniformBackward0) --------
class Sample(Op):
    """Base of the random results: forward returns the drawn ``sample``; nothing flows back to the input."""

    @staticmethod
    def forward(xp, x, sample):
        return sample

    formula = "grad_self = zeros_like(grad)"

    @staticmethod
    def vjp(ctx, grad):
        return (grad * 0,) * len(ctx.input_shapes)  # the engine sums each back to its input's shape

    @staticmethod
    def jvp(ctx, x_t, *others_t):
        return x_t * 0


class Uniform(Sample):
    pass


class Normal(Sample):
    pass


class Exponential(Sample):
    pass


class Geometric(Sample):
    pass


class Cauchy(Sample):
    pass


class LogNormal(Sample):
    pass


class RandomFromTo(Sample):
    node_name = "RandomBackward0"


class RandomTo(Sample):
    node_name = "RandomBackward1"


class RandomFull(Sample):
    node_name = "RandomBackward2"


class Bernoulli(Sample):
    """torch.bernoulli(input): the input holds the probabilities."""


class BernoulliTensor(Sample):
    """Tensor.bernoulli_(p) with a tensor p, which is an input of the node (with a zero gradient) as in PyTorch."""

    node_name = "BernoulliBackward1"

    @staticmethod
    def forward(xp, x, p, sample):
        return sample


class BernoulliScalar(Sample):
    node_name = "BernoulliBackward2"


class Poisson(Sample):
    pass


# ---- drawing ----------------------------------------------------------------------------------------------------
def _stream(generator):
    from ndgrad._random import _stream  # the random module imports the tensor, which imports the ops

    return _stream(generator)


@silenced  # draws beyond the dtype's range become inf, as in PyTorch (see Note [floating-point error state])
def _fill(op, tensor, draw, generator, complex_parts=False, others=()):
    """Write ``draw(rng, shape)`` into ``tensor`` through ``op``; a complex tensor gets real and imaginary parts
    drawn apart, as PyTorch fills view_as_real of it."""
    rng, shape, dtype = _stream(generator), tuple(tensor.shape), tensor.dtype
    sample = draw(rng, shape)
    if complex_parts and dtype.is_complex:
        sample = sample + 1j * draw(rng, shape)
    sample = to_device(np.asarray(sample).astype(dtype.numpy), tensor.device)
    return op.apply_(tensor, *others, sample=sample)


def _not_implemented(kernel, dtype):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.title}'")


def _continuous_only(name, dtype, spelled):
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a floating point but you "
            f"specified {spelled}"
        )


def _float_limits(dtype):
    info = np.finfo(dtype.numpy)
    return float(info.min), float(info.max)


def _check_float_bound(value, which, dtype):
    low, high = _float_limits(dtype)
    if not low <= value <= high:  # NaN fails too, as in PyTorch
        raise RuntimeError(f"{which} is out of bounds for {dtype.cpp_name}")


def uniform_(tensor, low=0, high=1, *, generator=None):
    tensor._check_inplace()
    dtype = tensor.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise _not_implemented("check_uniform_bounds", dtype)
    real = {"complex64": float32, "complex128": float64}.get(dtype.name, dtype)
    _check_float_bound(low, "from", real)
    _check_float_bound(high, "to", real)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    if high - low > _float_limits(real)[1]:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{real.title}>::max(), but found to={high:g} and "
            f"from={low:g} which result in to-from to exceed the limit"
        )
    return _fill(Uniform, tensor, lambda rng, shape: rng.uniform(low, high, shape), generator, complex_parts=True)


def normal_(tensor, mean=0, std=1, *, generator=None):
    tensor._check_inplace()
    dtype = tensor.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise _not_implemented("normal_kernel_cpu", dtype)
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if dtype.is_complex:  # each part gets half the variance
        std = std / math.sqrt(2)
    return _fill(Normal, tensor, lambda rng, shape: rng.normal(mean, std, shape), generator, complex_parts=True)


def exponential_(tensor, lambd=1, *, generator=None):
    tensor._check_inplace()
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _continuous_only("Exponential", tensor.dtype, tensor.dtype.title)
    return _fill(Exponential, tensor, lambda rng, shape: rng.exponential(1 / lambd, shape), generator)


def geometric_(tensor, p, *, generator=None):
    tensor._check_inplace()
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if tensor.dtype is bool_ or tensor.dtype.is_complex:
        raise _not_implemented("geometric_cpu", tensor.dtype)
    return _fill(Geometric, tensor, lambda rng, shape: rng.geometric(p, shape), generator)


def cauchy_(tensor, median=0, sigma=1, *, generator=None):
    tensor._check_inplace()
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _continuous_only("Cauchy", tensor.dtype, tensor.dtype.cpp_name)
    return _fill(Cauchy, tensor, lambda rng, shape: median + sigma * rng.standard_cauchy(shape), generator)


def log_normal_(tensor, mean=1, std=2, *, generator=None):
    tensor._check_inplace()
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not tensor.dtype.is_floating_point:
        raise _not_implemented("log_normal_cpu", tensor.dtype)
    return _fill(LogNormal, tensor, lambda rng, shape: rng.lognormal(mean, std, shape), generator)


# ---- random_: integers in [from, to), within what the dtype holds exactly ------------------------------------------
_MANTISSA_DIGITS = {float16: 11, float32: 24, float64: 53}


def _largest(dtype):
    """random_()'s default inclusive upper bound: the dtype's maximum, or 2^digits for floats."""
    if dtype is bool_:
        return 1
    if dtype.is_floating_point:
        return 2 ** _MANTISSA_DIGITS[dtype]
    return int(np.iinfo(dtype.numpy).max)


def _check_in_range(value, which, dtype):
    if dtype is bool_:
        low, high = 0, 1
    elif dtype.is_floating_point:
        low, high = _float_limits(dtype)
    else:
        low, high = int(np.iinfo(dtype.numpy).min), int(np.iinfo(dtype.numpy).max)
    if not low <= value <= high:
        raise RuntimeError(f"{which} is out of bounds for {dtype.cpp_name}")
    if dtype.is_floating_point and abs(value) > 2 ** _MANTISSA_DIGITS[dtype]:
        digits = _MANTISSA_DIGITS[dtype]
        warn(
            f"{which} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {dtype.cpp_name} can "
            "support discrete uniform distribution only within this range. This warning will become an error in "
            "version 1.7 release, please fix the code in advance",
            UserWarning,
        )


def random_(tensor, *args, generator=None, **kwargs):
    """Tensor.random_(), random_(to) or random_(from, to): integers drawn uniformly (see torch.Tensor.random_)."""
    tensor._check_inplace()
    dtype = tensor.dtype
    bounds = _random_bounds(args, kwargs)
    if bounds is None:
        if dtype.is_complex:
            raise _not_implemented("random_kernel_cpu", dtype)
        op, low, high = RandomFull, 0, _largest(dtype)
    elif bounds[1] is None:  # from up to the dtype's largest value
        if dtype.is_complex:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
        op, low, high = RandomFromTo, bounds[0], _largest(dtype)
        _check_in_range(low, "from", dtype)
    else:
        op = RandomTo if len(args) + len(kwargs) == 1 else RandomFromTo
        low, high = checked_random_range(*bounds, dtype)
    return _fill(op, tensor, lambda rng, shape: rng.integers(low, high, shape, endpoint=True), generator)


def checked_random_range(low, to, dtype):
    """The inclusive range [from, to - 1] random_(from, to) draws from, after PyTorch's checks, in its order."""
    for bound in (low, to):
        check_fits("int", bound)
    if low >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}")
    if dtype.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    _check_in_range(low, "from", dtype)
    _check_in_range(to - 1, "to - 1", dtype)
    return low, to - 1


def _random_bounds(args, kwargs):
    """(from, to) of random_'s three overloads, random_(), random_(to), random_(from, to); None for random_()."""
    if len(args) == 1 and not kwargs:
        return 0, args[0]
    named = _named("random_", args, kwargs)
    if "from" in named and "to" not in named:
        raise TypeError("random_() received an invalid combination of arguments - got (from=int, )")
    return (named.get("from", 0), named["to"]) if named else None


# ---- Bernoulli, Poisson, multinomial -----------------------------------------------------------------------------
def _probabilities(p, kernel="bernoulli_tensor_cpu_p_"):
    if not p.dtype.is_floating_point:
        raise _not_implemented(kernel, p.dtype)
    values = p.detach().cpu().numpy()
    if not ((values >= 0) & (values <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If "
            "so, please report an enhancement request to PyTorch.)"
        )
    return values


def bernoulli_(tensor, p=0.5, *, generator=None):
    """Fill with 1 (probability p, a number or a tensor broadcast to self) or 0 (see torch.Tensor.bernoulli_)."""
    tensor._check_inplace()
    if hasattr(p, "dtype"):
        values = _probabilities(p.expand(tensor.shape))
        return _fill(BernoulliTensor, tensor, lambda rng, shape: rng.random(shape) < values, generator, others=(p,))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return _fill(BernoulliScalar, tensor, lambda rng, shape: rng.random(shape) < p, generator)


@parses("bernoulli(Tensor input, *, Generator? generator=None, Tensor out=None)",
        "bernoulli(Tensor input, float p, *, Generator? generator=None)")
def bernoulli(input, p=None, *, generator=None):
    """0 or 1 per element, 1 with the probability ``input`` holds, or ``p`` if given (see torch.bernoulli)."""
    if p is not None:
        from ndgrad._creation import empty_like

        return bernoulli_(empty_like(input), p, generator=generator)
    values = _probabilities(input)
    return _sample(Bernoulli, input, _stream(generator).random(values.shape) < values)


@parses("poisson(Tensor input, Generator? generator=None)")
def poisson(input, generator=None):
    """Counts drawn from Poisson distributions with the rates in ``input`` (see torch.poisson)."""
    if not input.dtype.is_floating_point:
        raise _not_implemented("poisson_cpu", input.dtype)
    rates = input.detach().cpu().numpy()
    if not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _sample(Poisson, input, _stream(generator).poisson(rates))


@silenced
def _sample(op, input, sample):
    """A new tensor of input's dtype and device holding ``sample``, recorded as ``op`` of input."""
    return op.apply(input, sample=to_device(np.asarray(sample).astype(input.dtype.numpy), input.device))


def multinomial_indices(weights, count, replacement, generator):
    """torch.multinomial(weights, count, replacement).tolist() for one row of weights (an array), with its checks and
    their messages; WeightedRandomSampler draws its indices with it too."""
    valid = np.isfinite(weights) & (weights >= 0)
    if not replacement and count > weights.size:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not valid.all():
        # NOTE: PyTorch words this differently on its two code paths; the per-element one names the first bad entry.
        if not replacement or count == 1:
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        first_bad = weights[np.argmin(valid)]
        problem = "= infinity or NaN" if np.isinf(first_bad) else "< 0"
        raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {problem})")
    total = weights.sum()
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _stream(generator)
    if replacement:
        return rng.choice(weights.size, size=count, p=weights / total).tolist()
    # Without replacement: sort exponential clocks scaled by the weights; zero weights come last, in index order.
    with np.errstate(divide="ignore"):
        keys = rng.exponential(size=weights.size) / weights
    return np.argsort(keys, kind="stable")[:count].tolist()


@parses("multinomial(Tensor input, SymInt num_samples, bool replacement=False, *, Generator? generator=None, "
        "Tensor out=None)")
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the (unnormalised) distributions in the rows of ``input`` (see torch.multinomial)."""
    from ndgrad._creation import tensor

    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.title}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = input.detach().cpu().numpy().astype(np.float64).reshape(-1, input.shape[-1])
    drawn = [multinomial_indices(row, num_samples, replacement, generator) for row in rows]
    return tensor(drawn[0] if input.ndim == 1 else drawn, device=input.device)


class RandomMethods:
    """The Tensor methods of this module: one line each."""

    __slots__ = ()

    @parses_method("uniform_(float from=0, float to=1, *, Generator? generator=None)")
    def uniform_(self, *args, generator=None, **kwargs):  # ``from`` is a Python keyword: only ``**kwargs`` take it
        bounds = _named("uniform_", args, kwargs)
        return uniform_(self, bounds.get("from", 0), bounds.get("to", 1), generator=generator)
    @parses_method("normal_(float mean=0, float std=1, *, Generator? generator=None)")
    def normal_(self, mean=0, std=1, *, generator=None):
        return normal_(self, mean, std, generator=generator)
    @parses_method("exponential_(float lambd=1, *, Generator? generator=None)")
    def exponential_(self, lambd=1, *, generator=None):
        return exponential_(self, lambd, generator=generator)
    @parses_method("geometric_(float p, *, Generator? generator=None)")
    def geometric_(self, p, *, generator=None):
        return geometric_(self, p, generator=generator)
    @parses_method("cauchy_(float median=0, float sigma=1, *, Generator? generator=None)")
    def cauchy_(self, median=0, sigma=1, *, generator=None):
        return cauchy_(self, median, sigma, generator=generator)
    @parses_method("log_normal_(float mean=1, float std=2, *, Generator? generator=None)")
    def log_normal_(self, mean=1, std=2, *, generator=None):
        return log_normal_(self, mean, std, generator=generator)
    @parses_method("random_(*, Generator? generator=None)",
                   "random_(int from, int? to, *, Generator? generator=None)",
                   "random_(int to, *, Generator? generator=None)")
    def random_(self, *args, generator=None, **kwargs):
        return random_(self, *args, generator=generator, **kwargs)
    @parses_method("bernoulli_(Tensor p, *, Generator? generator=None)",
                   "bernoulli_(float p=0.5, *, Generator? generator=None)")
    def bernoulli_(self, p=0.5, *, generator=None):
        return bernoulli_(self, p, generator=generator)
    bernoulli = tensor_method(bernoulli)
    multinomial = tensor_method(multinomial)


def _named(name, args, kwargs):
    """``from`` and ``to`` given by position or by name, as a dict."""
    if len(args) > 2:
        raise TypeError(f"{name}() takes from 0 to 2 positional arguments but {len(args)} were given")
    named = dict(zip(("from", "to"), args))
    for key, value in kwargs.items():
        if key not in ("from", "to") or key in named:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        named[key] = value
    return named
