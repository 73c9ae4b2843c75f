"""Samplers: the order in which a DataLoader visits a dataset's indices (see torch.utils.data.Sampler).

Random samplers draw from an ``ndgrad.Generator`` (NumPy's PCG64): a seed reproduces ndgrad's order on every run,
but not PyTorch's, whose generator is a different algorithm.
"""

import itertools
from typing import Generic, TypeVar

import ndgrad
from ndgrad._random import _stream
from ndgrad.ops.random import multinomial_indices

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)
_REPLACEMENT_CHUNK = 32  # with replacement, indices are drawn this many at a time, as needed


class Sampler(Generic[T_co]):
    """Base class of samplers: subclasses define __iter__ and usually __len__ (see torch.utils.data.Sampler)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1 (see torch.utils.data.SequentialSampler)."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A fresh permutation per pass, or ``num_samples`` draws with replacement (see torch.utils.data.RandomSampler).
    Without a generator, each pass seeds a new one from the global generator, so ndgrad.manual_seed fixes it."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples, self.generator = (
            data_source, replacement, num_samples, generator
        )
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, count = len(self.data_source), self.num_samples
        generator = self.generator
        if generator is None:
            generator = ndgrad.Generator().manual_seed(int(_stream(None).integers(2**63)))
        if self.replacement:
            for start in range(0, count, _REPLACEMENT_CHUNK):
                yield from ndgrad.randint(n, (min(_REPLACEMENT_CHUNK, count - start),), generator=generator).tolist()
        else:
            for _ in range(count // n):
                yield from ndgrad.randperm(n, generator=generator).tolist()
            yield from ndgrad.randperm(n, generator=generator).tolist()[: count % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order, a new one per pass (see torch.utils.data.SubsetRandomSampler)."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in ndgrad.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (see
    torch.utils.data.WeightedRandomSampler)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = ndgrad.as_tensor(weights, dtype=ndgrad.float64)
        if weights.dim() != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}"
            )
        self.weights, self.num_samples, self.replacement, self.generator = weights, num_samples, replacement, generator

    def __iter__(self):
        yield from multinomial_indices(self.weights.cpu().numpy(), self.num_samples, self.replacement, self.generator)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of ``batch_size`` (see torch.utils.data.BatchSampler)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
