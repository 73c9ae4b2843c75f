"""Dropout modules (see torch.nn.modules.dropout): active in training mode, the identity in eval mode."""

from ndgrad.nn import functional as F
from ndgrad.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability p, scale the rest by 1 / (1 - p) (see torch.nn.Dropout)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) inputs (see torch.nn.Dropout1d)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) inputs (see torch.nn.Dropout2d)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs (see torch.nn.Dropout3d)."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalising mean and variance (see torch.nn.AlphaDropout)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels (see torch.nn.FeatureAlphaDropout)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
