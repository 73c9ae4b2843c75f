"""Stochastic weight averaging (see torch.optim.swa_utils): AveragedModel keeps a running (or exponential) average of
a model's parameters, SWALR anneals the learning rate to a constant, update_bn recomputes batch-norm statistics."""

import itertools
import math
from copy import deepcopy

from ndgrad._creation import tensor
from ndgrad._dtype import int64
from ndgrad._tensor import Tensor
from ndgrad.autograd.grad_mode import no_grad
from ndgrad.nn.modules.batchnorm import _BatchNorm
from ndgrad.nn.modules.module import Module
from ndgrad.optim._lr_base import LRScheduler, format_param, warn_unless_in_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes."
)


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place exponential moving average of lists of tensors (see torch.optim.swa_utils.get_ema_multi_avg_fn)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if p_ema.is_floating_point() or p_ema.is_complex():
                p_ema.lerp_(p_model, 1 - decay)
            else:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running mean of lists of tensors (see torch.optim.swa_utils.get_swa_multi_avg_fn)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        for p_averaged, p_model in zip(averaged_param_list, current_param_list):
            if p_averaged.is_floating_point() or p_averaged.is_complex():
                p_averaged.lerp_(p_model, float(1 / (num_averaged + 1)))
            elif isinstance(num_averaged, Tensor):  # torch divides by the tensor count with addcdiv, which refuses
                raise RuntimeError(_INTEGER_ADDCDIV)
            else:
                p_averaged.add_(p_model - p_averaged, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average of one tensor (see torch.optim.swa_utils.get_ema_avg_fn)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean of one tensor (see torch.optim.swa_utils.get_swa_avg_fn)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with use_buffers, buffers) are the average of those passed to
    update_parameters (see torch.optim.swa_utils.AveragedModel)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        """(ours, model's) pairs of the tensors that are averaged."""
        if self.use_buffers:
            return zip(itertools.chain(self.module.parameters(), self.module.buffers()),
                       itertools.chain(model.parameters(), model.buffers()))
        return zip(self.parameters(), model.parameters())

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies them)."""
        pairs = [(mine.detach(), theirs.detach().to(mine.device)) for mine, theirs in self._averaged(model)]
        if self.n_averaged == 0:
            for mine, theirs in pairs:
                mine.copy_(theirs)
        elif self.avg_fn is not None:
            for mine, theirs in pairs:
                mine.copy_(self.avg_fn(mine, theirs, self.n_averaged.to(mine.device)))
        else:  # a list function, called once per (device, dtype) group as torch's foreach kernels take them
            multi_avg_fn = self.multi_avg_fn or get_swa_multi_avg_fn()
            groups = {}
            for mine, theirs in pairs:
                groups.setdefault((mine.device, mine.dtype), ([], []))
                groups[mine.device, mine.dtype][0].append(mine)
                groups[mine.device, mine.dtype][1].append(theirs)
            for (device, _), (mine, theirs) in groups.items():
                multi_avg_fn(mine, theirs, self.n_averaged.to(device))
        if not self.use_buffers:  # buffers (batch-norm statistics) follow the model's, unaveraged
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the batch-norm running statistics of ``model`` in one pass over ``loader`` (see
    torch.optim.swa_utils.update_bn)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average: every batch counts the same
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs``, then hold it (see
    torch.optim.swa_utils.SWALR)."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for value, group in zip(format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The rate the annealing started from, given this step's rate ``lr`` reached at fraction ``alpha``."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        warn_unless_in_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
