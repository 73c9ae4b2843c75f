"""Speed of ndgrad against torch (CPU, one thread) on three autograd workloads.

    python bench/run.py               # 7 timed rounds
    python bench/run.py --quick       # 3 short rounds (under 30 s)
    python bench/run.py --rounds 15

Each benchmark is written once as a function of a module ``lib`` (``ndgrad`` or ``torch``), so both
libraries run the very same code:

  chain  1,000 elementwise ops (mul, add, tanh, sin, repeated) on a (16,) float64 tensor, sum, backward.
  mlp    one SGD training step of a 784-512-512-10 ReLU MLP, batch 128, float32, cross-entropy.
  cnn    one SGD training step of a small CNN (conv 8 3x3, relu, 2x2 max pool, conv 16 3x3, relu, linear 10),
         batch 32, 1x28x28 float32 inputs, cross-entropy.
  tiny   20,000 scalar ops (alternately * 1.0001 and + 0.0001) on a 0-d float64 tensor, backward.

Before timing, the gradients (and for the mlp the loss and the updated weights) of the two libraries are
compared; the run aborts if they differ. The timings then alternate ndgrad and torch round by round. Nothing is
asserted about speed: this is a measurement, the targets are printed for reading only. See bench/README.md.
"""

import os

# Single-threaded BLAS / OpenMP for both libraries. Must happen before numpy or torch is imported, and must
# override any value already set in the environment.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

try:
    import ndgrad  # noqa: E402
except ImportError:  # not installed: use the source tree next to this file
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    import ndgrad  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

CHAIN_OPS = 1_000
TINY_OPS = 20_000
MLP_SIZES = (784, 512, 512, 10)
MLP_BATCH = 128
LR = 0.01
GC_OFF = "ndgrad, gc off"
PROVENANCE_OFF = "ndgrad, provenance off"
CNN_BATCH = 32
TARGETS = {"chain": 1.0, "mlp": 1.2, "tiny": 1.0, "cnn": 3.0}


# ----------------------------------------------------------------------------------------------------------------
# The benchmarks: one function each, run unchanged on ndgrad and on torch.
# ----------------------------------------------------------------------------------------------------------------

def chain(lib, x, c):
    """(a) Forward and backward through CHAIN_OPS elementwise ops; returns d(sum)/dx."""
    x.grad = None
    y = x
    for _ in range(CHAIN_OPS // 4):
        y = y * c
        y = y + c
        y = y.tanh()
        y = y.sin()
    y.sum().backward()
    return x.grad


def mlp_step(lib, params, x, onehot):
    """(b) One SGD step of the MLP; returns the loss and the gradients (taken before the update)."""
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    shifted = h - h.max(dim=1, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    loss = -(log_probs * onehot).sum(dim=1).mean()
    loss.backward()
    grads = []
    with lib.no_grad():
        for p in params:
            grads.append(p.grad)
            p -= LR * p.grad
            p.grad = None
    return loss, grads


def cnn_step(lib, params, x, onehot):
    """(d) One SGD step of the CNN; returns the loss and the gradients (taken before the update). Max pooling is
    a reshape and an amax over the window dims, the same on both sides."""
    w1, b1, w2, b2, w3, b3 = params
    h = lib.nn.functional.conv2d(x, w1, b1).relu()  # (N, 8, 26, 26)
    n, c, height, width = h.shape
    h = h.reshape(n, c, height // 2, 2, width // 2, 2).amax(dim=(3, 5))  # (N, 8, 13, 13)
    h = lib.nn.functional.conv2d(h, w2, b2).relu()  # (N, 16, 11, 11)
    h = h.reshape(n, -1) @ w3.T + b3
    shifted = h - h.max(dim=1, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    loss = -(log_probs * onehot).sum(dim=1).mean()
    loss.backward()
    grads = []
    with lib.no_grad():
        for p in params:
            grads.append(p.grad)
            p -= LR * p.grad
            p.grad = None
    return loss, grads


def tiny(lib, x):
    """(c) Forward and backward through TINY_OPS scalar ops; returns dy/dx."""
    x.grad = None
    y = x
    for _ in range(TINY_OPS // 2):
        y = y * 1.0001
        y = y + 0.0001
    y.backward()
    return x.grad


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


# ----------------------------------------------------------------------------------------------------------------
# Inputs: made once with NumPy, then handed to each library with lib.tensor(...).
# ----------------------------------------------------------------------------------------------------------------

def chain_data(rng):
    return {"x": rng.standard_normal(16), "c": rng.uniform(0.5, 1.5, 16)}


def chain_inputs(lib, data):
    return lib.tensor(data["x"], requires_grad=True), lib.tensor(data["c"])


def mlp_data(rng):
    params = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32))
        params.append((rng.standard_normal(fan_out) * 0.01).astype(np.float32))
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    onehot = np.eye(MLP_SIZES[-1], dtype=np.float32)[rng.integers(0, MLP_SIZES[-1], MLP_BATCH)]
    return {"params": params, "x": x, "onehot": onehot}


def mlp_inputs(lib, data):
    params = [lib.tensor(p.copy(), requires_grad=True) for p in data["params"]]
    return params, lib.tensor(data["x"]), lib.tensor(data["onehot"])


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


def tiny_inputs(lib):
    return (lib.tensor(1.0, dtype=lib.float64, requires_grad=True),)


# ----------------------------------------------------------------------------------------------------------------
# Correctness checks: abort before timing if the libraries disagree.
# ----------------------------------------------------------------------------------------------------------------

def to_numpy(t):
    return t.detach().numpy()


def assert_close(what, got, want, rtol):
    """Exit with a message unless ndgrad's `got` matches torch's `want`; return the max difference relative to
    max |want| (tolerance: rtol elementwise, plus rtol * max |want| absolute)."""
    got, want = to_numpy(got), to_numpy(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        sys.exit(f"CHECK FAILED: {what}: ndgrad gives {got.dtype}{list(got.shape)}, "
                 f"torch gives {want.dtype}{list(want.shape)}")
    scale = max(float(np.abs(want).max(initial=0.0)), np.finfo(np.float64).tiny)
    diff = float(np.abs(got.astype(np.float64) - want).max(initial=0.0))
    if not np.allclose(got, want, rtol=rtol, atol=rtol * scale):
        sys.exit(f"CHECK FAILED: {what}: ndgrad and torch differ, max abs diff {diff:.3g}, max |torch| {scale:.3g} "
                 f"(rtol {rtol:g})")
    return diff / scale


def check_chain(data):
    g_nd = chain(ndgrad, *chain_inputs(ndgrad, data))
    g_th = chain(torch, *chain_inputs(torch, data))
    return assert_close("chain: x.grad", g_nd, g_th, rtol=1e-10)


def check_mlp(data):
    (p_nd, x_nd, y_nd), (p_th, x_th, y_th) = mlp_inputs(ndgrad, data), mlp_inputs(torch, data)
    loss_nd, grads_nd = mlp_step(ndgrad, p_nd, x_nd, y_nd)
    loss_th, grads_th = mlp_step(torch, p_th, x_th, y_th)
    worst = assert_close("mlp: loss", loss_nd, loss_th, rtol=1e-5)
    for i, (gn, gt, pn, pt) in enumerate(zip(grads_nd, grads_th, p_nd, p_th)):
        name = ("W", "b")[i % 2] + str(i // 2 + 1)
        worst = max(worst, assert_close(f"mlp: {name}.grad", gn, gt, rtol=1e-4))
        worst = max(worst, assert_close(f"mlp: updated {name}", pn, pt, rtol=1e-5))
        if pn.grad is not None:
            sys.exit(f"CHECK FAILED: mlp: {name}.grad is not None after `{name}.grad = None` (ndgrad)")
    return worst


def check_cnn(data):
    (p_nd, x_nd, y_nd), (p_th, x_th, y_th) = mlp_inputs(ndgrad, data), mlp_inputs(torch, data)
    loss_nd, grads_nd = cnn_step(ndgrad, p_nd, x_nd, y_nd)
    loss_th, grads_th = cnn_step(torch, p_th, x_th, y_th)
    worst = assert_close("cnn: loss", loss_nd, loss_th, rtol=1e-5)
    for i, (gn, gt, pn, pt) in enumerate(zip(grads_nd, grads_th, p_nd, p_th)):
        name = ("W", "b")[i % 2] + str(i // 2 + 1)
        worst = max(worst, assert_close(f"cnn: {name}.grad", gn, gt, rtol=1e-4))
        worst = max(worst, assert_close(f"cnn: updated {name}", pn, pt, rtol=1e-5))
    return worst


def check_tiny():
    g_nd, g_th = tiny(ndgrad, *tiny_inputs(ndgrad)), tiny(torch, *tiny_inputs(torch))
    return assert_close("tiny: x.grad", g_nd, g_th, rtol=1e-10)


# ----------------------------------------------------------------------------------------------------------------
# Timing.
# ----------------------------------------------------------------------------------------------------------------

def seconds_per_call(fn, calls):
    """Mean wall time of `calls` back-to-back calls. Garbage is collected first, then gc runs as usual."""
    gc.collect()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def gc_off(fn):
    """`fn` with Python's cyclic garbage collector paused during each call. torch keeps its graph in C++, out of
    the collector's sight; ndgrad's graph is Python objects, which the collector traverses as they pile up."""
    def call():
        gc.disable()
        try:
            return fn()
        finally:
            gc.enable()
    return call


def provenance_off(fn):
    """`fn` with ndgrad's recording of creation sites off, to measure what provenance costs per op."""
    def call():
        ndgrad.autograd.provenance.set_provenance_enabled(False)
        try:
            return fn()
        finally:
            ndgrad.autograd.provenance.set_provenance_enabled(True)
    return call


def calls_for(fn, budget):
    """Warm up `fn` twice, then pick how many calls make one timing of about `budget` seconds."""
    fn()
    return max(1, round(budget / seconds_per_call(fn, 1)))


def measure(contenders, rounds, budget):
    """Time each contender once per round, in alternating order; return {name: [seconds per call, ...]} and the
    calls per timing. An "ndgrad, gc off" contender is added after "ndgrad" and "torch"."""
    first = {"ndgrad": contenders["ndgrad"], "torch": contenders["torch"], GC_OFF: gc_off(contenders["ndgrad"])}
    contenders = {**first, **contenders}
    calls = {name: calls_for(fn, budget) for name, fn in contenders.items()}
    times = {name: [] for name in contenders}
    order = list(contenders)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            times[name].append(seconds_per_call(contenders[name], calls[name]))
    return times, calls


def fmt_time(seconds):
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} us"


def report(name, title, times, calls, n_ops):
    ratios = [a / b for a, b in zip(times["ndgrad"], times["torch"])]
    ratio_gc_off = statistics.median(a / b for a, b in zip(times[GC_OFF], times["torch"]))
    ratio, target = statistics.median(ratios), TARGETS[name]
    print(f"\n== {name}: {title} ==")
    header = f"  {'':<28}{'median/call':>12}{'calls/round':>13}"
    print(header + (f"{'per op':>12}" if n_ops else ""))
    for label in times:
        med = statistics.median(times[label])
        line = f"  {label:<28}{fmt_time(med):>12}{calls[label]:>13}"
        print(line + (f"{med / n_ops * 1e6:>9.2f} us" if n_ops else ""))
    verdict = "met" if ratio <= target else "not met"
    print(f"  ratio ndgrad/torch (median of rounds): {ratio:.2f}x   target <= {target:.1f}x: {verdict}")
    print("  per-round ratios: " + " ".join(f"{r:.2f}" for r in ratios))
    print(f"  ratio with ndgrad's gc off (for diagnosis only): {ratio_gc_off:.2f}x")
    if PROVENANCE_OFF in times:
        cost = statistics.median(a / b for a, b in zip(times["ndgrad"], times[PROVENANCE_OFF])) - 1
        print(f"  cost of provenance (creation sites), ndgrad vs {PROVENANCE_OFF!r}: {cost:+.1%}")
    return ratio


# ----------------------------------------------------------------------------------------------------------------
# Driver.
# ----------------------------------------------------------------------------------------------------------------

def print_machine():
    threads = ", ".join(f"{v}={os.environ[v]}" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"))
    print("== machine ==")
    print(f"  python {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}, "
          f"torch {torch.__version__}, ndgrad {ndgrad.__version__}")
    print(f"  {platform.platform()}, {platform.machine()}, {os.cpu_count()} logical CPUs")
    print(f"  threads: {threads}, torch.get_num_threads()={torch.get_num_threads()}, "
          f"torch.get_num_interop_threads()={torch.get_num_interop_threads()}")


def run_chain(rng, rounds, budget):
    data = chain_data(rng)
    print(f"\n[check] chain: gradients agree (max rel diff {check_chain(data):.2g})")
    nd_args, th_args = chain_inputs(ndgrad, data), chain_inputs(torch, data)
    contenders = {
        "ndgrad": lambda: chain(ndgrad, *nd_args),
        "torch": lambda: chain(torch, *th_args),
        PROVENANCE_OFF: provenance_off(lambda: chain(ndgrad, *nd_args)),
        "numpy, forward only": lambda: numpy_chain(data["x"], data["c"]),
    }
    times, calls = measure(contenders, rounds, budget)
    title = f"{CHAIN_OPS:,} elementwise ops on (16,) float64, forward + backward"
    return report("chain", title, times, calls, CHAIN_OPS)


def run_mlp(rng, rounds, budget):
    data = mlp_data(rng)
    print(f"[check] mlp: loss, gradients and updated weights agree (max rel diff {check_mlp(data):.2g})")
    nd_args, th_args = mlp_inputs(ndgrad, data), mlp_inputs(torch, data)
    weights = data["params"][0::2]
    acts = [rng.standard_normal((MLP_BATCH, n)).astype(np.float32) for n in MLP_SIZES[1:]]
    deltas = acts  # same shapes: (batch, fan_out) per layer
    contenders = {
        "ndgrad": lambda: mlp_step(ndgrad, *nd_args),
        "torch": lambda: mlp_step(torch, *th_args),
        "numpy, the 8 matmuls only": lambda: numpy_mlp_matmuls(data["x"], weights, acts[:-1], deltas),
    }
    times, calls = measure(contenders, rounds, budget)
    sizes = "-".join(map(str, MLP_SIZES))
    title = f"SGD step, {sizes} ReLU MLP, batch {MLP_BATCH}, float32, cross-entropy"
    return report("mlp", title, times, calls, None)


def run_cnn(rng, rounds, budget):
    data = cnn_data(rng)
    print(f"[check] cnn: loss, gradients and updated weights agree (max rel diff {check_cnn(data):.2g})")
    nd_args, th_args = mlp_inputs(ndgrad, data), mlp_inputs(torch, data)
    contenders = {
        "ndgrad": lambda: cnn_step(ndgrad, *nd_args),
        "torch": lambda: cnn_step(torch, *th_args),
    }
    times, calls = measure(contenders, rounds, budget)
    title = f"SGD step, conv8-pool-conv16-linear10 CNN, batch {CNN_BATCH}, 1x28x28 float32, cross-entropy"
    return report("cnn", title, times, calls, None)


def run_tiny(rounds, budget):
    print(f"[check] tiny: gradients agree (max rel diff {check_tiny():.2g})")
    nd_args, th_args = tiny_inputs(ndgrad), tiny_inputs(torch)
    contenders = {
        "ndgrad": lambda: tiny(ndgrad, *nd_args),
        "torch": lambda: tiny(torch, *th_args),
        PROVENANCE_OFF: provenance_off(lambda: tiny(ndgrad, *nd_args)),
        "numpy 0-d arrays, fwd only": lambda: numpy_tiny_arrays(np.array(1.0)),
        "numpy scalars, fwd only": lambda: numpy_tiny(np.array(1.0)),
    }
    times, calls = measure(contenders, rounds, budget)
    title = f"{TINY_OPS:,} scalar ops on a 0-d float64 tensor, forward + backward"
    return report("tiny", title, times, calls, TINY_OPS)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per benchmark (default 7, quick 3)")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds (under 30 s)")
    args = parser.parse_args(argv)
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rounds = args.rounds or (3 if args.quick else 7)
    budget = 0.1 if args.quick else 0.25  # target seconds per timing of one contender in one round

    start = time.perf_counter()
    # Move everything alive now (mostly torch's and numpy's modules) out of the collector's reach, so that a full
    # collection triggered by ndgrad's graph does not pay for scanning torch's import-time heap.
    gc.collect()
    gc.freeze()
    print_machine()
    print(f"  {rounds} timed rounds after warm-up, ~{budget:g} s per timing, ndgrad/torch order alternating, "
          f"gc on ({gc.get_freeze_count():,} import-time objects frozen)")
    rng = np.random.default_rng(0)
    ratios = {
        "chain": run_chain(rng, rounds, budget),
        "mlp": run_mlp(rng, rounds, budget),
        "tiny": run_tiny(rounds, budget),
        "cnn": run_cnn(rng, rounds, budget),
    }
    print("\n== summary: ndgrad/torch (lower is better) ==")
    for name, ratio in ratios.items():
        print(f"  {name:<6} {ratio:7.2f}x   target <= {TARGETS[name]:.1f}x")
    print(f"\n  total wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
