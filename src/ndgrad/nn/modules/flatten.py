"""Flatten and Unflatten (see torch.nn.modules.flatten)."""

from ndgrad.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dims start_dim..end_dim into one (see torch.nn.Flatten)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (see torch.nn.Unflatten)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}"
            )
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(
                    f"unflattened_size must be tuple of ints, but found element of type {type(size).__name__} at "
                    f"pos {position}"
                )
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
