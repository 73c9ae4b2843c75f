"""Weight normalisation by a forward pre-hook, torch's older API (see torch.nn.utils.weight_norm): the weight is
recomputed as g * v / ||v|| from the parameters ``<name>_g`` and ``<name>_v`` before every forward. Also the two
functions torch computes it with, ``norm_except_dim`` and ``_weight_norm``."""

from ndgrad._warnings import warn
from ndgrad.linalg import vector_norm
from ndgrad.nn.parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, kept as size-1 dims; dim=-1 means over all of ``v``
    (torch.norm_except_dim's convention, not the last dim)."""
    if dim == -1:
        return vector_norm(v, pow)
    other_dims = [d for d in range(v.dim()) if d != dim]
    if not other_dims:  # an empty dim list would mean all dims to vector_norm
        return v.abs()
    return vector_norm(v, pow, dim=other_dims, keepdim=True)


def _weight_norm(v, g, dim=0):
    """v scaled to the norm g along ``dim`` (see torch._weight_norm)."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warn("`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
             FutureWarning)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if type(weight).__name__ == "UninitializedParameter":
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to run "
                             "the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as g * v / ||v|| by a forward pre-hook (see torch.nn.utils.weight_norm)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: ``module.<name>`` becomes a plain parameter again (see torch.nn.utils.remove_weight_norm)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
