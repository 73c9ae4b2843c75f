"""A hyperparameter of the wrong type or range, in the constructor or a param group, fails at step time with
torch's error: the one the op torch runs there raises (a str or a many-element tensor where a number goes, an int
beyond 64 bits, a complex number for a real parameter), or the Python arithmetic before it."""

import pytest
import torch

import ndgrad

BASES = {
    "SGD": {"lr": 0.1, "momentum": 0.9, "dampening": 0.2, "weight_decay": 0.05},
    "Adam": {"lr": 0.02, "eps": 1e-6, "weight_decay": 0.05},
    "AdamW": {"lr": 0.02, "weight_decay": 0.02},
    "RMSprop": {"lr": 0.02, "alpha": 0.9, "eps": 1e-6, "momentum": 0.3, "weight_decay": 0.05},
    "Adagrad": {"lr": 0.02, "lr_decay": 0.05, "eps": 1e-9},
    "Adadelta": {"lr": 0.5, "rho": 0.8, "eps": 1e-5},
    "Adamax": {"lr": 0.01, "eps": 1e-7},
    "NAdam": {"lr": 0.01, "momentum_decay": 0.01},
    "RAdam": {"lr": 0.01, "eps": 1e-7},
    "ASGD": {"lr": 0.02, "lambd": 0.001, "t0": 10.0},
}
# each one in a param group: most pass the constructor's range checks, so the step is where torch fails
WRONG = ["'lr'", "None", "10 ** 25", "-(10 ** 24)", "1.5j", "lib.ones(3, 2)", "lib.tensor([0.5])"]
CASES = [
    (name, key, wrong)
    for name, options in BASES.items() for key in options for wrong in WRONG
]


def _outcome(lib, name, key, wrong):
    """What two steps do with the hyperparameter ``key`` set to ``wrong`` in the param group: the error, or the
    parameter after them."""
    param = lib.tensor([[0.3, -1.2], [2.0, 0.7], [-0.4, 1.1]], requires_grad=True)
    group = {"params": [param], key: eval(wrong, {"lib": lib})}
    optimizer = getattr(lib.optim, name)([group], **BASES[name])
    try:
        for _ in range(2):
            optimizer.zero_grad()
            (param * param * param).sum().backward()
            optimizer.step()
    except Exception as error:  # noqa: BLE001 - whatever each library raises is the thing compared
        return type(error).__name__, str(error).replace("torch.", "ndgrad.")
    return param.detach().reshape(-1).tolist()


@pytest.mark.filterwarnings("ignore:Casting complex values to real discards the imaginary part")
@pytest.mark.parametrize(("name", "key", "wrong"), CASES)
def test_step_fails_as_torchs(name, key, wrong):
    theirs, ours = _outcome(torch, name, key, wrong), _outcome(ndgrad, name, key, wrong)
    if isinstance(theirs, list) and isinstance(ours, list):
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-5, nan_ok=True)
    else:
        assert ours == theirs
