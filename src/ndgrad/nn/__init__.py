"""ndgrad.nn: neural-network building blocks (see torch.nn): Module, Parameter, the layers, init, functional."""

from ndgrad.nn import functional, init, modules, parallel, parameter, utils
from ndgrad.nn.modules import *  # noqa: F403  (Module and every layer)
from ndgrad.nn.modules import __all__ as _modules_all
from ndgrad.nn.modules.module import (
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from ndgrad.nn.parallel import DataParallel
from ndgrad.nn.parameter import Parameter

__all__ = [
    "functional", "init", "modules", "parallel", "parameter", "utils", "DataParallel", "Parameter",
    "register_module_forward_hook", "register_module_forward_pre_hook", "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    *_modules_all,
]
