"""ChannelShuffle (see torch.nn.modules.channelshuffle)."""

from ndgrad.nn import functional as F
from ndgrad.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups: (N, g * c, ...) read as (N, c, g, ...) (see
    torch.nn.ChannelShuffle)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
