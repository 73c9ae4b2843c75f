"""Argument helpers of the layers (see torch.nn.modules.utils): a number or an iterable -> an n-tuple."""

from collections.abc import Iterable
from itertools import repeat

__all__ = []


def _ntuple(n, name="parse"):
    def parse(x):
        return tuple(x) if isinstance(x, Iterable) else tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """Each element of ``t`` n times, in reverse order: conv padding per dim -> F.pad's last-dim-first form."""
    return tuple(x for x in reversed(t) for _ in range(n))
