"""Names PyTorch keeps in its compiled core that user code reaches directly (torch._C._LinAlgError)."""


class _LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input (singular, not positive-definite); torch.linalg.LinAlgError."""
