"""Names PyTorch keeps in its compiled core that user code reaches directly (torch._C._LinAlgError, and
torch._C.TensorBase: here Tensor itself, which Tensor's methods name as their owner, as PyTorch's C methods do)."""


class _LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input (singular, not positive-definite); torch.linalg.LinAlgError."""


def __getattr__(name):
    if name == "TensorBase":
        from ndgrad._tensor import Tensor

        return Tensor
    raise AttributeError(f"module 'ndgrad._C' has no attribute '{name}'")
