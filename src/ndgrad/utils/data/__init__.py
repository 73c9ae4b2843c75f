"""ndgrad.utils.data: datasets, samplers and the DataLoader (see torch.utils.data)."""

from ndgrad.utils.data._utils.collate import default_collate, default_convert
from ndgrad.utils.data.dataloader import DataLoader, get_worker_info
from ndgrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ndgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler",
    "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
    "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split",
]
