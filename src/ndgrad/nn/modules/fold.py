"""Fold and Unfold (see torch.nn.modules.fold): sliding local blocks to columns and back."""

from ndgrad.nn import functional as F
from ndgrad.nn.modules.module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum columns of sliding blocks back into a (N, C, *output_size) tensor (see torch.nn.Fold)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Each sliding block of a (N, C, H, W) tensor as one column (see torch.nn.Unfold)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
