"""The benchmark workloads, each written once as a function of a module ``lib`` (ndgrad or torch), their raw NumPy
references, and their inputs (made with NumPy, handed to each library with ``lib.tensor``). Public API only, so
the same code runs on both libraries; bench/run.py checks and times them.
"""

import numpy as np

CHAIN_OPS = 1_000
TINY_OPS = 20_000
MLP_SIZES = (784, 512, 512, 10)
MLP_BATCH = 128
CNN_BATCH = 32
BROADCAST_SHAPES = {"a": (64, 1, 256), "b": (1, 48, 256), "bias": (48, 256)}
LR = 0.01


# ----------------------------------------------------------------------------------------------------------------
# The workloads: one function each, run unchanged on ndgrad and on torch.
# ----------------------------------------------------------------------------------------------------------------

def chain(lib, x, c):
    """Forward and backward through CHAIN_OPS elementwise ops; returns d(sum)/dx."""
    x.grad = None
    y = x
    for _ in range(CHAIN_OPS // 4):
        y = y * c
        y = y + c
        y = y.tanh()
        y = y.sin()
    y.sum().backward()
    return x.grad


def tiny(lib, x, n_ops=TINY_OPS):
    """Forward and backward through `n_ops` scalar ops; returns dy/dx."""
    x.grad = None
    y = x
    for _ in range(n_ops // 2):
        y = y * 1.0001
        y = y + 0.0001
    y.backward()
    return x.grad


def mlp_step(lib, params, x, onehot):
    """One SGD step of the MLP; returns the loss and the gradients (taken before the update)."""
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    return backward_and_update(lib, params, cross_entropy(h, onehot))


def cnn_step(lib, params, x, onehot):
    """One SGD step of the CNN; returns the loss and the gradients (taken before the update)."""
    w1, b1, w2, b2, w3, b3 = params
    h = lib.nn.functional.conv2d(x, w1, b1).relu()  # (N, 8, 26, 26)
    h = lib.nn.functional.max_pool2d(h, 2)  # (N, 8, 13, 13)
    h = lib.nn.functional.conv2d(h, w2, b2).relu()  # (N, 16, 11, 11)
    logits = h.reshape(h.shape[0], -1) @ w3.T + b3
    return backward_and_update(lib, params, cross_entropy(logits, onehot))


def cross_entropy(logits, onehot):
    """Mean cross-entropy written with core ops (max-shifted log-softmax, one-hot mask), the same on both sides."""
    shifted = logits - logits.max(dim=1, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    return -(log_probs * onehot).sum(dim=1).mean()


def backward_and_update(lib, params, loss):
    """Backward from `loss`, then an in-place SGD update under no_grad; returns the loss and the gradients."""
    loss.backward()
    grads = []
    with lib.no_grad():
        for p in params:
            grads.append(p.grad)
            p -= LR * p.grad
            p.grad = None
    return loss, grads


def broadcast(lib, a, b, bias):
    """Forward and backward through broadcasting binary ops and reductions on medium arrays; returns the loss and
    the gradients of the three inputs, each of which the backward has to sum back to its own shape."""
    a.grad = b.grad = bias.grad = None
    z = ((a + b) * b).tanh() + bias  # (64, 48, 256): a, b and bias each broadcast
    r = z.sum(dim=1, keepdim=True)  # (64, 1, 256)
    loss = (z * r).mean(dim=0).sum()
    loss.backward()
    return loss, a.grad, b.grad, bias.grad


# ----------------------------------------------------------------------------------------------------------------
# Raw NumPy references: the floor that any NumPy-based implementation pays.
# ----------------------------------------------------------------------------------------------------------------

def numpy_chain(x, c):
    """Forward only, same chain as `chain`."""
    y = x
    for _ in range(CHAIN_OPS // 4):
        y = y * c
        y = y + c
        y = np.tanh(y)
        y = np.sin(y)
    return y.sum()


def numpy_tiny(x):
    """Forward only, same chain as `tiny`. On a 0-d array NumPy returns np.float64 scalars from the first op on."""
    y = x
    for _ in range(TINY_OPS // 2):
        y = y * 1.0001
        y = y + 0.0001
    return y


def numpy_tiny_arrays(x):
    """Forward only, same chain as `tiny`, but every result stays a 0-d ndarray (as a tensor library keeps it)."""
    y = x
    for _ in range(TINY_OPS // 2):
        y = np.multiply(y, 1.0001, out=np.empty((), y.dtype))
        y = np.add(y, 0.0001, out=np.empty((), y.dtype))
    return y


def numpy_mlp_matmuls(x, weights, acts, deltas):
    """The 3 forward and 5 backward matmuls of the MLP step (no input gradient), nothing else."""
    inputs = [x] + acts  # the input of each layer
    out = [a @ w for a, w in zip(inputs, weights)]
    for i in reversed(range(len(weights))):
        out.append(inputs[i].T @ deltas[i])  # weight gradient
        if i > 0:
            out.append(deltas[i] @ weights[i].T)  # gradient of the layer input
    return out


def numpy_broadcast(a, b, bias):
    """`broadcast` by hand: the same forward, then each op's gradient in reverse order, every term summed back to
    the shape of the input it belongs to, as an engine does (no algebra across ops); returns the loss and the
    three gradients."""
    s = a + b
    p = s * b
    t = np.tanh(p)
    z = t + bias
    r = z.sum(axis=1, keepdims=True)
    m = (z * r).mean(axis=0)
    loss = m.sum()
    grad_q = np.broadcast_to(np.ones_like(m) / z.shape[0], z.shape)  # through sum, then mean over dim 0
    grad_z = grad_q * r + (grad_q * z).sum(axis=1, keepdims=True)  # through z * r, and r = z.sum(dim=1)
    grad_bias = grad_z.sum(axis=0)
    grad_p = grad_z * (1 - t * t)
    grad_s = grad_p * b
    grad_a = grad_s.sum(axis=1, keepdims=True)
    grad_b = (grad_p * s).sum(axis=0, keepdims=True) + grad_s.sum(axis=0, keepdims=True)
    return loss, grad_a, grad_b, grad_bias


# ----------------------------------------------------------------------------------------------------------------
# Inputs: made once with NumPy, then handed to each library with lib.tensor(...).
# ----------------------------------------------------------------------------------------------------------------

def chain_data(rng):
    return {"x": rng.standard_normal(16), "c": rng.uniform(0.5, 1.5, 16)}


def chain_inputs(lib, data):
    return lib.tensor(data["x"], requires_grad=True), lib.tensor(data["c"])


def tiny_inputs(lib):
    return (lib.tensor(1.0, dtype=lib.float64, requires_grad=True),)


def mlp_data(rng):
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append((rng.standard_normal(fan_out) * 0.01).astype(np.float32))
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    onehot = np.eye(MLP_SIZES[-1], dtype=np.float32)[rng.integers(0, MLP_SIZES[-1], MLP_BATCH)]
    return {"params": params, "x": x, "onehot": onehot}


def cnn_data(rng):
    shapes = [(8, 1, 3, 3), (8,), (16, 8, 3, 3), (16,), (10, 16 * 11 * 11), (10,)]
    params = []
    for shape in shapes:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = np.sqrt(2.0 / fan_in) if len(shape) > 1 else 0.01
        params.append((rng.standard_normal(shape) * scale).astype(np.float32))
    x = rng.standard_normal((CNN_BATCH, 1, 28, 28)).astype(np.float32)
    onehot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, CNN_BATCH)]
    return {"params": params, "x": x, "onehot": onehot}


def step_inputs(lib, data):
    """Inputs of `mlp_step` and `cnn_step`: fresh parameter leaves (the step updates them), the batch, its labels."""
    params = [lib.tensor(p.copy(), requires_grad=True) for p in data["params"]]
    return params, lib.tensor(data["x"]), lib.tensor(data["onehot"])


def broadcast_data(rng):
    return {name: rng.standard_normal(shape).astype(np.float32) for name, shape in BROADCAST_SHAPES.items()}


def broadcast_inputs(lib, data):
    return tuple(lib.tensor(data[name], requires_grad=True) for name in BROADCAST_SHAPES)
