"""ndgrad.backends.mps: Apple's Metal GPUs, which ndgrad has no array library for (see torch.backends.mps)."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
