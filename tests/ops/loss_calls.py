"""How the loss builders call a loss: F.name(x, y, **kwargs) on either library, with weight-like keywords made
tensors of the inputs' dtype; and probabilities away from 0 and 1."""

from .samples import C, Call, Input, T

REDUCTIONS = ("mean", "sum", "none")


def nn_call(name, **kwargs):
    """F.name(x, y, **kwargs); a keyword given as ("tensor", values) becomes lib.tensor(values) of x's dtype."""

    def arguments(lib, x):
        return {k: lib.tensor(v[1], dtype=x.dtype) if isinstance(v, tuple) else v for k, v in kwargs.items()}

    text = f"F.{name}({', '.join(['$'] + [f'{k}={v!r}' for k, v in kwargs.items()])})"
    return Call(text, lambda lib, x, *rest: getattr(lib.nn.functional, name)(x, *rest, **arguments(lib, x)))


def unit(rng, shape, layout=C):
    """Values in (0.1, 0.9): probabilities away from 0 and 1."""
    return Input(rng.uniform(0.1, 0.9, shape if layout == C else shape[::-1] if layout == T else
                             shape[:-1] + (2 * shape[-1],)), layout)
