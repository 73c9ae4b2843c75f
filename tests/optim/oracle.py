"""Run an optimizer in torch and in ndgrad from the same weights on the same gradients, and record the weights."""

import copy

import numpy as np
import torch

import ndgrad

SHAPES = ((3, 4), (5,), ())  # a matrix, a vector and a 0-d parameter
STEPS = 50

# float64 weights after many steps, compared to 1e-6: each step carries the rounding of the steps before it, and the
# adaptive rules divide by running averages of small numbers, which amplifies it (to ~6e-8 after 50 steps of ASGD or
# Adafactor, measured on other CPU kernels). A wrong update rule moves the weights by far more within a step or two.
TRAJECTORY = {"rtol": 0.0, "atol": 1e-6}


def gradient_sequence(steps=STEPS, seed=0):
    """Initial weights and one gradient per parameter per step; the 0-d parameter gets none every fifth step."""
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(shape) for shape in SHAPES]
    grads = [
        [None if (index == 2 and step % 5 == 3) else rng.standard_normal(shape) for index, shape in enumerate(SHAPES)]
        for step in range(steps)
    ]
    return inits, grads


def param_groups(params, groups):
    """``groups`` as [(parameter indices, options), ...] -> torch's param-group dicts; None -> the plain list."""
    if groups is None:
        return params
    return [{"params": [params[i] for i in indices], **options} for indices, options in groups]


def build(lib, name, params, kwargs, groups=None):
    kwargs = dict(kwargs)
    if "tensor_lr" in kwargs:  # a learning rate given as a 0-d tensor
        kwargs["lr"] = lib.tensor(kwargs.pop("tensor_lr"))
    return getattr(lib.optim, name)(param_groups(params, groups), **kwargs)


def trajectory(lib, name, kwargs, groups=None, dtype="float64", reload_at=None, steps=STEPS, seed=0):
    """The flattened weights after each step. ``reload_at``: after that step, move the state (deep-copied, as a
    checkpoint would) into a freshly built optimizer and go on with that one."""
    inits, grads = gradient_sequence(steps, seed)
    lib_dtype = getattr(lib, dtype)
    params = [lib.tensor(value, dtype=lib_dtype, requires_grad=True) for value in inits]
    optimizer = build(lib, name, params, kwargs, groups)
    weights = []
    for step, step_grads in enumerate(grads):
        for param, grad in zip(params, step_grads):
            param.grad = None if grad is None else lib.tensor(grad, dtype=lib_dtype)
        optimizer.step()
        weights.append(np.concatenate([param.detach().numpy().ravel() for param in params]))
        if step == reload_at:
            saved = copy.deepcopy(optimizer.state_dict())
            optimizer = build(lib, name, params, kwargs, groups)
            optimizer.load_state_dict(saved)
    return np.array(weights), optimizer


def both(name, kwargs, **options):
    """(torch's weights, ndgrad's weights, torch's optimizer, ndgrad's optimizer)."""
    expected, torch_optimizer = trajectory(torch, name, kwargs, **options)
    actual, ndgrad_optimizer = trajectory(ndgrad, name, kwargs, **options)
    return expected, actual, torch_optimizer, ndgrad_optimizer


def plain(value):
    """A state or param-group value as plain Python/NumPy, to compare torch's with ndgrad's."""
    if isinstance(value, (torch.Tensor, ndgrad.Tensor)):
        return (str(value.dtype).rsplit(".", 1)[-1], value.detach().numpy().tolist())
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(item) for item in value)
    return value


def assert_same_structure(actual, expected, tolerance=1e-6):
    """ndgrad's state / state_dict value equals torch's: same keys, types and dtypes; numbers to ``tolerance``,
    absolute or relative."""
    _compare(plain(actual), plain(expected), tolerance, "root")


def _compare(actual, expected, tolerance, where):
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), where
        for key in expected:
            _compare(actual[key], expected[key], tolerance, f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected), where
        for index, (ours, theirs) in enumerate(zip(actual, expected)):
            _compare(ours, theirs, tolerance, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert type(actual) is float, where
        assert actual == expected or abs(actual - expected) <= tolerance * max(1.0, abs(expected)), where
    else:
        assert type(actual) is type(expected) and actual == expected, where


def case_id(case):
    """A test id for an (optimizer name, options) case."""
    name, options = case
    return name + "-" + "-".join(f"{key}={value}" for key, value in options.items())
