"""Statistics of samples: quantile and nanquantile, cov and corrcoef (composites, differentiable through the ops they
are built of), and the counts bincount and histc (which torch does not differentiate)."""

import warnings

from ndgrad._argument_parser import parses, tensor_method
from ndgrad._dtype import float32, float64, get_default_dtype
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.ops._checks import is_tensor, require_kind
from ndgrad.ops._op import WithoutDerivative
from ndgrad.ops.comparison import isnan, logical_not, where
from ndgrad.ops.shape import wrap_dim

__all__ = ["quantile", "nanquantile", "cov", "corrcoef", "bincount", "histc"]

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


# ---- quantiles -------------------------------------------------------------------------------------------------------
def _checked_q(input, q, name):
    """q as a 1-d tensor of input's dtype, after PyTorch's checks, in PyTorch's order."""
    if not is_tensor(q):
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        from ndgrad._creation import tensor

        return tensor([q], dtype=input.dtype, device=input.device)
    if q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if q.dtype is not input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if bool(((q < 0) | (q > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return q.reshape(-1)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    """The q-th quantiles along dim (all elements if None), q's dim first: the sorted values at rank q * (n - 1),
    interpolated between the neighbouring ranks. NaN sorts last: quantile's result is NaN for a slice with one,
    nanquantile ranks among the others (NaN if there are none)."""
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if input.dtype not in (float32, float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not is_tensor(q) or q.ndim == 0
    q = _checked_q(input, q, name)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                           f"{interpolation}")
    if dim is None:
        values, kept_shape = input.reshape(-1), [1] * input.ndim
    else:
        dim = wrap_dim(dim, input.ndim)
        values = input.unsqueeze(0) if input.ndim == 0 else input
        values = values.movedim(dim if input.ndim else 0, -1)
        kept_shape = list(input.shape)
        if input.ndim:
            kept_shape[dim] = 1
    ordered = values.sort(-1).values  # (..., n), NaN last
    last = ordered.shape[-1] - 1
    with no_grad():  # the ranks are constants: the gradient flows to the values picked
        if ignore_nan:
            count = logical_not(isnan(ordered)).sum(-1, keepdim=True)
            ranks = q * (count - 1).to(input.dtype)
            ranks = where(count == 0, last, ranks)  # all NaN: the last element, NaN
        else:
            ranks = where(isnan(ordered[..., -1:]), last, q * last)
        below, above = ranks.floor(), ranks.ceil()
        if interpolation == "lower":
            above = below
        elif interpolation == "higher":
            below = above
        elif interpolation == "nearest":
            below = above = ranks.round()  # half to even, as PyTorch's round
        weights = ranks - below if interpolation == "linear" else where(above > below, 0.5, 0.0).to(input.dtype)
        below, above = below.long(), above.long()
    result = ordered.gather(-1, below.expand(*ordered.shape[:-1], -1))
    if interpolation in ("linear", "midpoint"):
        upper = ordered.gather(-1, above.expand(*ordered.shape[:-1], -1))
        result = result.lerp(upper, weights.expand_as(upper))
    result = result.movedim(-1, 0)  # (q, ...)
    if keepdim:
        result = result.reshape(q.shape[0], *kept_shape)
    elif dim is None:
        result = result.reshape(q.shape[0])
    return result.squeeze(0) if scalar_q else result


@parses("quantile(Tensor input, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\", "
        "Tensor out=None)",
        "quantile(Tensor input, float q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\", "
        "Tensor out=None)")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of input's values along dim, or of all of them (see torch.quantile)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@parses("nanquantile(Tensor input, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\", "
        "Tensor out=None)",
        "nanquantile(Tensor input, float q, int? dim=None, bool keepdim=False, *, str interpolation=\"linear\", "
        "Tensor out=None)")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaN values (see torch.nanquantile)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ---- covariance ------------------------------------------------------------------------------------------------------
def _checked_weights(weights, label, observations, kinds):
    if weights is None:
        return None
    if weights.ndim > 1:
        raise RuntimeError(f"cov(): expected {label} to have one or fewer dimensions but got {label} with "
                           f"{weights.ndim} dimensions")
    if weights.dtype.numpy.kind not in kinds:
        kind = "integral" if kinds == "iu" else "floating point"
        raise RuntimeError(f"cov(): expected {label} to have {kind} dtype but got {label} with {weights.dtype.title} "
                           "dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {label} to have the same numel as there are observations in the input but "
                           f"got {weights.numel()} != {observations}")
    if bool((weights < 0).any()):
        raise RuntimeError(f"cov(): {label} cannot be negative")
    return weights


@parses("cov(Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows, observed in its columns (see torch.cov)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} "
                           "dimensions")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if x.dtype.numpy.kind not in "fc":
        x = x.to(get_default_dtype())
    observations = x.shape[1]
    fweights = _checked_weights(fweights, "fweights", observations, "iu")
    aweights = _checked_weights(aweights, "aweights", observations, "f")
    weights = fweights if aweights is None else aweights if fweights is None else fweights * aweights
    if weights is None:
        total, mean = observations, x.mean(1, keepdim=True)
        norm = total - correction
    else:
        total = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total
        norm = total - correction * ((weights * aweights).sum() / total if aweights is not None else 1)
    if float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=3)
        norm = norm * 0 if is_tensor(norm) else 0
    centred = x - mean
    product = centred.mm((centred if weights is None else centred * weights).t().conj())
    return (product / norm).squeeze()


@parses("corrcoef(Tensor input)")
def corrcoef(input):
    """Pearson's correlation coefficients of the variables in input's rows (see torch.corrcoef)."""
    c = cov(input)
    if c.ndim == 0:  # one variable: its correlation with itself (NaN for a constant)
        return c / c
    deviation = (c.diagonal().real if c.is_complex() else c.diagonal()).sqrt()
    c = c / deviation.unsqueeze(1) / deviation.unsqueeze(0)
    return c if c.is_complex() else c.clip(-1, 1)  # rounding can leave |c| just above 1


# ---- counts ----------------------------------------------------------------------------------------------------------
class Bincount(WithoutDerivative):
    """torch.bincount with weights: the sum of the weights of each value's occurrences. PyTorch records it without a
    derivative."""

    node_name, aten = "NotImplemented", "bincount"

    @staticmethod
    def forward(xp, weights, input, minlength):
        return xp.bincount(input, weights, minlength).astype(weights.dtype if weights.dtype.kind == "f" and
                                                              weights.itemsize == 4 else xp.float64)


@parses("bincount(Tensor input, Tensor? weights=None, SymInt minlength=0)")
def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-d tensor of non-negative integers (see torch.bincount)."""
    require_kind(input.dtype, "bincount_cpu", "iu")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim != 1 or (input.numel() and int(input.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        from ndgrad._device import array_namespace

        counts = array_namespace(input.device).bincount(input._data, minlength=minlength)
        return input._wrap(counts.astype("int64"))
    return Bincount.apply(weights, input=input._data, minlength=minlength)


@parses("histc(Tensor input, int bins=100, Scalar min=0, Scalar max=0, *, Tensor out=None)")
def histc(input, bins=100, min=0, max=0):
    """Counts of input's values in ``bins`` equal bins between min and max (input's extremes if both are 0); values
    outside are not counted (see torch.histc)."""
    if input.dtype.numpy.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype.title}'")
    if bins <= 0:
        raise RuntimeError(f"ndgrad.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low, high = float(min), float(max)
    if low == high and input.numel():
        low, high = float(input.min()), float(input.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError("ndgrad.histc: max must be larger than min")
    from ndgrad._device import array_namespace

    xp = array_namespace(input.device)
    data = input._data.reshape(-1).astype(float64.numpy)
    counts, _ = xp.histogram(data[(data >= low) & (data <= high)], bins=bins, range=(low, high))
    return input._wrap(counts.astype(input._data.dtype))


class StatisticsMethods:
    """The Tensor methods of this module's functions (Tensor inherits them)."""

    __slots__ = ()

    quantile = tensor_method(quantile)
    nanquantile = tensor_method(nanquantile)
    cov = tensor_method(cov)
    def corrcoef(self):
        return corrcoef.__wrapped__(self)
    bincount = tensor_method(bincount)
    histc = tensor_method(histc)
