"""ndgrad.optim: optimizers that update parameters from their .grad, and learning-rate schedules (see torch.optim)."""

from ndgrad.optim import lr_scheduler, swa_utils
from ndgrad.optim.adadelta import Adadelta
from ndgrad.optim.adafactor import Adafactor
from ndgrad.optim.adagrad import Adagrad
from ndgrad.optim.adam import Adam
from ndgrad.optim.adamax import Adamax
from ndgrad.optim.adamw import AdamW
from ndgrad.optim.asgd import ASGD
from ndgrad.optim.lbfgs import LBFGS
from ndgrad.optim.nadam import NAdam
from ndgrad.optim.optimizer import Optimizer
from ndgrad.optim.radam import RAdam
from ndgrad.optim.rmsprop import RMSprop
from ndgrad.optim.rprop import Rprop
from ndgrad.optim.sgd import SGD

__all__ = [
    "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "NAdam",
    "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "swa_utils",
]
