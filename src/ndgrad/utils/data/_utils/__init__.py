"""Helpers behind the DataLoader (torch.utils.data._utils): the collate functions."""

from ndgrad.utils.data._utils import collate

__all__ = ["collate"]
