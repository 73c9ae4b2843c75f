"""DataLoader: batches of a dataset, in the order a sampler gives (see torch.utils.data.DataLoader).

Loading always runs in this process: ``num_workers > 0`` is accepted and loads exactly as ``num_workers=0`` does
(``worker_init_fn`` is not called and get_worker_info() returns None); ``pin_memory`` pins nothing.
"""

import itertools
import math

from ndgrad import cuda
from ndgrad._warnings import warn
from ndgrad.utils.data._utils.collate import default_collate, default_convert
from ndgrad.utils.data.dataset import IterableDataset
from ndgrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]

# Attributes that fix how indices become batches; PyTorch refuses to change them after construction.
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info():
    """None: ndgrad loads in the calling process, which is what PyTorch reports outside a worker."""
    return None


class _InfiniteConstantSampler(Sampler):
    """None forever: an iterable dataset's "indices", which only count how many samples make a batch."""

    def __iter__(self):
        return itertools.repeat(None)


class DataLoader:
    """Iterate over ``dataset`` in batches (see torch.utils.data.DataLoader)."""

    __initialized = False

    def __init__(
        self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0, collate_fn=None,
        pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None, multiprocessing_context=None,
        generator=None, *, prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True,
    ):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context)
        self.dataset, self.num_workers, self.prefetch_factor = dataset, num_workers, prefetch_factor
        self.pin_memory, self.pin_memory_device, self.timeout = pin_memory, pin_memory_device, timeout
        self.worker_init_fn, self.multiprocessing_context, self.in_order = (
            worker_init_fn, multiprocessing_context, in_order
        )
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.generator, self.persistent_workers = generator, persistent_workers
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.__initialized = True

    def __setattr__(self, attr, value):
        if self.__initialized and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.pin_memory and not cuda.is_available():
            warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't "
                "be used.",
            )
        return _DataLoaderIter(self)

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        return length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
            "multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
            f"num_workers={num_workers}"
        )


def _check_iterable_options(shuffle, sampler, batch_sampler):
    """An iterable dataset decides its own order: no shuffle, sampler or batch_sampler."""
    if shuffle not in {False, None}:
        raise ValueError(
            f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
        )
    if sampler is not None:
        raise ValueError(
            f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
        )
    if batch_sampler is not None:
        raise ValueError(
            "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
            f"batch_sampler={batch_sampler}"
        )


class _DataLoaderIter:
    """One pass over a DataLoader: next index (or batch of indices) from the sampler -> samples -> collate_fn."""

    def __init__(self, loader):
        self._dataset, self._collate_fn, self._drop_last = loader.dataset, loader.collate_fn, loader.drop_last
        self._auto_collation, self._index_sampler = loader._auto_collation, loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        self._samples = iter(self._dataset) if loader._iterable else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)
        if self._samples is not None:
            return self._collate_fn(self._next_from_stream(index))
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        getitems = getattr(self._dataset, "__getitems__", None)
        return self._collate_fn(getitems(index) if callable(getitems) else [self._dataset[i] for i in index])

    def _next_from_stream(self, index):
        """The next sample (or batch's worth of samples) of an iterable dataset."""
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return next(self._samples)
        batch = list(itertools.islice(self._samples, len(index)))
        self._ended = len(batch) < len(index)
        if not batch or (self._drop_last and self._ended):
            raise StopIteration
        return batch
