"""The probe's corpus: every function group's calls, generated from valid calls by ``variations.vary``."""

from ..variations import unique
from . import (
    autograd,
    creation,
    data,
    elementwise,
    functional,
    indexing,
    linear_algebra,
    modules,
    optimizers,
    reductions,
    shapes,
    tensor,
)

MODULES = (
    creation,
    elementwise,
    reductions,
    shapes,
    indexing,
    linear_algebra,
    functional,
    modules,
    optimizers,
    autograd,
    tensor,
    data,
)


# Calls whose torch outcome depends on what ran before (``python -m tests.probe --check-torch`` finds them):
# torch's first out-of-range embedding_bag index says "Expected i < index_size", later ones name the index.
UNSTABLE_IN_TORCH = {
    "F.embedding_bag(i, h, mode='sum')",
    "nn.EmbeddingBag(ti, 2, mode='sum')(i)",
}


def build():
    """Every call of every group, each source once (the first group that generates it keeps it)."""
    calls = [call for module in MODULES for call in module.entries() if call.source not in UNSTABLE_IN_TORCH]
    return unique(calls)


CORPUS = build()
