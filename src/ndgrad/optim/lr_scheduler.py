"""Learning-rate schedules (see torch.optim.lr_scheduler): closed-form decays here, cyclic and metric-driven ones in
``_lr_cycles``, the shared base in ``_lr_base``.

Each ``get_lr`` is the chainable form: it updates the learning rate the optimizer holds now, so schedules compose.
"""

import math
import types
from bisect import bisect_right
from collections import Counter

from ndgrad.optim._lr_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    group_values,
    set_group_value,
    warn_unless_in_step,
)
from ndgrad.optim._lr_cycles import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR, ReduceLROnPlateau

__all__ = [
    "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "SequentialLR",
    "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts",
    "OneCycleLR", "PolynomialLR", "LRScheduler", "EPOCH_DEPRECATION_WARNING",
]


class _LRScheduler(LRScheduler):
    """The base's former name, kept for code that still subclasses it."""


class _LambdaSchedule(LRScheduler):
    """A schedule driven by one user function per parameter group; state_dict keeps callable objects' attributes."""

    def _set_lambdas(self, optimizer, lr_lambda):
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)

    def state_dict(self):
        state_dict = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        # Plain functions cannot be saved; a callable object's attributes can.
        state_dict["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in self.lr_lambdas
        ]
        return state_dict

    def load_state_dict(self, state_dict):
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaSchedule):
    """lr = initial lr * lr_lambda(epoch) (see torch.optim.lr_scheduler.LambdaLR)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaSchedule):
    """lr <- lr * lr_lambda(epoch) at each step (see torch.optim.lr_scheduler.MultiplicativeLR)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        groups = self.optimizer.param_groups
        return [group["lr"] * lmbda(self.last_epoch) for lmbda, group in zip(self.lr_lambdas, groups, strict=True)]


class StepLR(LRScheduler):
    """Multiply lr by gamma every step_size epochs (see torch.optim.lr_scheduler.StepLR)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply lr by gamma at each milestone epoch (see torch.optim.lr_scheduler.MultiStepLR)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)  # a milestone listed twice decays twice
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor for the first total_iters epochs, then lr (see torch.optim.lr_scheduler.ConstantLR)."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """lr * a factor going linearly from start_factor to end_factor over total_iters epochs
    (see torch.optim.lr_scheduler.LinearLR)."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        # The ratio of this epoch's factor to the previous one's.
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            base_lr
            * (self.start_factor
               + (self.end_factor - self.start_factor) * min(self.total_iters, self.last_epoch) / self.total_iters)
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply lr by gamma every epoch (see torch.optim.lr_scheduler.ExponentialLR)."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr * (1 - epoch / total_iters) ** power, then constant (see torch.optim.lr_scheduler.PolynomialLR)."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer, "lr")
        decay_factor = (
            (1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [
            base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base_lr in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    """lr follows a half cosine from the initial lr to eta_min over T_max epochs, and back up after
    (see torch.optim.lr_scheduler.CosineAnnealingLR)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_unless_in_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:  # resumed: no previous lr to update from
            return [
                self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                for base_lr in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:  # the trough: the ratio below would be 0/0
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups, strict=True)
            ]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (
            1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)
        )
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [
            self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


def _check_schedulers(owner, schedulers, optimizer):
    """The schedulers SequentialLR and ChainedScheduler combine: all of one optimizer, none metric-driven."""
    name = type(owner).__name__
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {index} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {index} has {scheduler.optimizer}, which is different from "
                f"{type(optimizer).__name__}."
            )


class _CombinedSchedule(LRScheduler):
    """A schedule made of other schedulers; its state_dict nests theirs."""

    def state_dict(self):
        state_dict = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state_dict["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state_dict

    def load_state_dict(self, state_dict):
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = schedulers
        for scheduler, saved in zip(self._schedulers, schedulers):
            scheduler.load_state_dict(saved)


class SequentialLR(_CombinedSchedule):
    """Run one scheduler after another, switching at the milestones (see torch.optim.lr_scheduler.SequentialLR)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(self, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones to "
                f"be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each scheduler's construction already stepped once: undo that, then start the first one afresh.
        for group in self.optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        index = bisect_right(self._milestones, 0)
        self._schedulers[index]._initial_step()
        self._last_lr = schedulers[index].get_last_lr()

    def recursive_undo(self, sched=None):
        """Take back the initial step of every (nested) scheduler."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for scheduler in scheds._schedulers:
                self.recursive_undo(scheduler)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # a new scheduler starts at its epoch 0 (closed form where it has one)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_CombinedSchedule):
    """Step every scheduler in turn, each updating the lr the one before set
    (see torch.optim.lr_scheduler.ChainedScheduler)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")
