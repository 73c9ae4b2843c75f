"""Speed of ndgrad against torch (CPU, one thread) and against hand-written NumPy, on autograd workloads.

    python bench/run.py                      # 7 timed rounds, scaling up to 1M ops
    python bench/run.py --quick              # 3 short rounds, scaling up to 100k ops
    python bench/run.py --rounds 15
    python bench/run.py --only tiny,scaling  # selected workloads

The workloads (bench/workloads.py) are written once as functions of a module ``lib`` (``ndgrad`` or ``torch``),
so both libraries run the very same code:

  chain      1,000 elementwise ops (mul, add, tanh, sin, repeated) on a (16,) float64 tensor, sum, backward.
  mlp        one SGD training step of a 784-512-512-10 ReLU MLP, batch 128, float32, cross-entropy.
  tiny       20,000 scalar ops (alternately * 1.0001 and + 0.0001) on a 0-d float64 tensor, backward.
  cnn        one SGD training step of a small CNN (conv 8 3x3, relu, max_pool2d 2, conv 16 3x3, relu, linear 10),
             batch 32, 1x28x28 float32 inputs, cross-entropy.
  broadcast  broadcasting add and mul, tanh, a broadcast bias, a keepdim sum, a mean and a sum on (64, 48, 256)
             float32, backward to the three inputs; the target ratio is against a hand-written NumPy forward and
             backward (the floor of any NumPy engine), ndgrad/torch is printed for reading.
  scaling    the tiny chain at 1k, 10k, 100k and 1M ops, one timing per size: time per op should not grow with
             the size of the graph; also ndgrad's peak memory at the largest size.

Before timing, the results of the libraries are compared (gradients, and for the training steps the loss and the
updated weights); the run aborts if they differ. The timings then alternate ndgrad and torch round by round.
Nothing is asserted about speed: this is a measurement, the targets are printed for reading only. See
bench/README.md.
"""

import os

# Single-threaded BLAS / OpenMP for both libraries. Must happen before numpy or torch is imported, and must
# override any value already set in the environment.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import workloads  # noqa: E402

try:
    import ndgrad  # noqa: E402
except ImportError:  # not installed: use the source tree next to this file
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    import ndgrad  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

GC_OFF = "ndgrad, gc off"
PROVENANCE_OFF = "ndgrad, provenance off"
NUMPY_REFERENCE = "numpy reference"
# Ratios to meet, ndgrad over the baseline named in the summary; for "scaling", ndgrad's time per op at the
# largest graph over its time per op at the smallest (1.0 is exactly linear).
TARGETS = {"chain": 1.0, "mlp": 0.9, "tiny": 1.0, "cnn": 1.3, "broadcast": 1.1, "scaling": 1.3}


@dataclass(frozen=True)
class Settings:
    """How long to measure, as the command line chose (--quick, --rounds)."""

    rounds: int  # timed rounds per workload
    budget: float  # seconds per timing of one contender in one round
    scaling_sizes: tuple  # graph sizes (ops) of the scaling measurement
    scaling_ops_per_timing: int  # each scaling timing repeats the chain until it has run about this many ops


# ----------------------------------------------------------------------------------------------------------------
# Correctness checks: abort before timing if the libraries disagree.
# ----------------------------------------------------------------------------------------------------------------

def to_numpy(value):
    """An ndarray of a tensor of either library, or of a NumPy reference's array or scalar."""
    return np.asarray(value) if isinstance(value, (np.ndarray, np.generic)) else value.detach().numpy()


def assert_close(what, got, want, rtol, reference="torch"):
    """Exit with a message unless ndgrad's `got` matches the reference's `want`; return the max difference relative
    to max |want| (tolerance: rtol elementwise, plus rtol * max |want| absolute)."""
    got, want = to_numpy(got), to_numpy(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        sys.exit(f"CHECK FAILED: {what}: ndgrad gives {got.dtype}{list(got.shape)}, "
                 f"{reference} gives {want.dtype}{list(want.shape)}")
    scale = max(float(np.abs(want).max(initial=0.0)), np.finfo(np.float64).tiny)
    diff = float(np.abs(got.astype(np.float64) - want).max(initial=0.0))
    if not np.allclose(got, want, rtol=rtol, atol=rtol * scale):
        sys.exit(f"CHECK FAILED: {what}: ndgrad and {reference} differ, max abs diff {diff:.3g}, "
                 f"max |{reference}| {scale:.3g} (rtol {rtol:g})")
    return diff / scale


def check_chain(data):
    g_nd = workloads.chain(ndgrad, *workloads.chain_inputs(ndgrad, data))
    g_th = workloads.chain(torch, *workloads.chain_inputs(torch, data))
    return assert_close("chain: x.grad", g_nd, g_th, rtol=1e-10)


def check_tiny():
    g_nd = workloads.tiny(ndgrad, *workloads.tiny_inputs(ndgrad))
    g_th = workloads.tiny(torch, *workloads.tiny_inputs(torch))
    return assert_close("tiny: x.grad", g_nd, g_th, rtol=1e-10)


def check_step(name, step, data):
    """A training step (mlp or cnn): loss, gradients, updated weights, and that `W.grad = None` took."""
    (p_nd, x_nd, y_nd), (p_th, x_th, y_th) = workloads.step_inputs(ndgrad, data), workloads.step_inputs(torch, data)
    loss_nd, grads_nd = step(ndgrad, p_nd, x_nd, y_nd)
    loss_th, grads_th = step(torch, p_th, x_th, y_th)
    worst = assert_close(f"{name}: loss", loss_nd, loss_th, rtol=1e-5)
    for i, (gn, gt, pn, pt) in enumerate(zip(grads_nd, grads_th, p_nd, p_th)):
        param = ("W", "b")[i % 2] + str(i // 2 + 1)
        worst = max(worst, assert_close(f"{name}: {param}.grad", gn, gt, rtol=1e-4))
        worst = max(worst, assert_close(f"{name}: updated {param}", pn, pt, rtol=1e-5))
        if pn.grad is not None:
            sys.exit(f"CHECK FAILED: {name}: {param}.grad is not None after `{param}.grad = None` (ndgrad)")
    return worst


def check_broadcast(data):
    """The loss and the three gradients against torch and against the hand-written NumPy reference."""
    ours = workloads.broadcast(ndgrad, *workloads.broadcast_inputs(ndgrad, data))
    theirs = workloads.broadcast(torch, *workloads.broadcast_inputs(torch, data))
    by_hand = workloads.numpy_broadcast(*(data[name] for name in workloads.BROADCAST_SHAPES))
    worst = 0.0
    for what, got, want_torch, want_numpy in zip(("loss", "a.grad", "b.grad", "bias.grad"), ours, theirs, by_hand):
        worst = max(worst, assert_close(f"broadcast: {what}", got, want_torch, rtol=1e-4))
        worst = max(worst, assert_close(f"broadcast: {what}", got, want_numpy, rtol=1e-4, reference="numpy"))
    return worst


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


def measure(contenders, settings):
    """Time each contender once per round, in alternating order; return {name: [seconds per call, ...]} and the
    calls per timing. An "ndgrad, gc off" contender is added after "ndgrad" and "torch"."""
    first = {"ndgrad": contenders["ndgrad"], "torch": contenders["torch"], GC_OFF: gc_off(contenders["ndgrad"])}
    contenders = {**first, **contenders}
    calls = {name: calls_for(fn, settings.budget) for name, fn in contenders.items()}
    times = {name: [] for name in contenders}
    order = list(contenders)
    for r in range(settings.rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            times[name].append(seconds_per_call(contenders[name], calls[name]))
    return times, calls


def median_ratio(times, over, under):
    """Median of the per-round ratios times[over] / times[under] (robust to one round disturbed by other load)."""
    return statistics.median(a / b for a, b in zip(times[over], times[under]))


def fmt_time(seconds):
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} us"


def report(name, title, times, calls, n_ops, baseline="torch"):
    """Print the timings and the ratio ndgrad/`baseline` against the workload's target; return that ratio."""
    ratios = [a / b for a, b in zip(times["ndgrad"], times[baseline])]
    ratio, target = statistics.median(ratios), TARGETS[name]
    print(f"\n== {name}: {title} ==")
    header = f"  {'':<28}{'median/call':>12}{'calls/round':>13}"
    print(header + (f"{'per op':>12}" if n_ops else ""))
    for label in times:
        med = statistics.median(times[label])
        line = f"  {label:<28}{fmt_time(med):>12}{calls[label]:>13}"
        print(line + (f"{med / n_ops * 1e6:>9.2f} us" if n_ops else ""))
    verdict = "met" if ratio <= target else "not met"
    print(f"  ratio ndgrad/{baseline} (median of rounds): {ratio:.2f}x   target <= {target:.1f}x: {verdict}")
    print("  per-round ratios: " + " ".join(f"{r:.2f}" for r in ratios))
    if baseline != "torch":
        print(f"  ratio ndgrad/torch (for reading): {median_ratio(times, 'ndgrad', 'torch'):.2f}x")
    print(f"  ratio with ndgrad's gc off (for diagnosis only): {median_ratio(times, GC_OFF, baseline):.2f}x")
    if PROVENANCE_OFF in times:
        cost = median_ratio(times, "ndgrad", PROVENANCE_OFF) - 1
        print(f"  cost of provenance (creation sites), ndgrad vs {PROVENANCE_OFF!r}: {cost:+.1%}")
    return ratio, f"ndgrad/{baseline}"


# ----------------------------------------------------------------------------------------------------------------
# The workloads' runs: check, time, report. Each returns (ratio, what the ratio compares) for the summary, and
# seeds its own inputs so that --only measures the same inputs as a full run.
# ----------------------------------------------------------------------------------------------------------------

def run_chain(settings):
    data = workloads.chain_data(np.random.default_rng(0))
    print(f"\n[check] chain: gradients agree (max rel diff {check_chain(data):.2g})")
    nd_args, th_args = workloads.chain_inputs(ndgrad, data), workloads.chain_inputs(torch, data)
    contenders = {
        "ndgrad": lambda: workloads.chain(ndgrad, *nd_args),
        "torch": lambda: workloads.chain(torch, *th_args),
        PROVENANCE_OFF: provenance_off(lambda: workloads.chain(ndgrad, *nd_args)),
        "numpy, forward only": lambda: workloads.numpy_chain(data["x"], data["c"]),
    }
    times, calls = measure(contenders, settings)
    title = f"{workloads.CHAIN_OPS:,} elementwise ops on (16,) float64, forward + backward"
    return report("chain", title, times, calls, workloads.CHAIN_OPS)


def run_mlp(settings):
    rng = np.random.default_rng(1)
    data = workloads.mlp_data(rng)
    print(f"\n[check] mlp: loss, gradients and updated weights agree "
          f"(max rel diff {check_step('mlp', workloads.mlp_step, data):.2g})")
    nd_args, th_args = workloads.step_inputs(ndgrad, data), workloads.step_inputs(torch, data)
    weights = data["params"][0::2]
    acts = [rng.standard_normal((workloads.MLP_BATCH, n)).astype(np.float32) for n in workloads.MLP_SIZES[1:]]
    deltas = acts  # same shapes: (batch, fan_out) per layer
    contenders = {
        "ndgrad": lambda: workloads.mlp_step(ndgrad, *nd_args),
        "torch": lambda: workloads.mlp_step(torch, *th_args),
        "numpy, the 8 matmuls only": lambda: workloads.numpy_mlp_matmuls(data["x"], weights, acts[:-1], deltas),
    }
    times, calls = measure(contenders, settings)
    sizes = "-".join(map(str, workloads.MLP_SIZES))
    title = f"SGD step, {sizes} ReLU MLP, batch {workloads.MLP_BATCH}, float32, cross-entropy"
    return report("mlp", title, times, calls, None)


def run_tiny(settings):
    print(f"\n[check] tiny: gradients agree (max rel diff {check_tiny():.2g})")
    nd_args, th_args = workloads.tiny_inputs(ndgrad), workloads.tiny_inputs(torch)
    contenders = {
        "ndgrad": lambda: workloads.tiny(ndgrad, *nd_args),
        "torch": lambda: workloads.tiny(torch, *th_args),
        PROVENANCE_OFF: provenance_off(lambda: workloads.tiny(ndgrad, *nd_args)),
        "numpy 0-d arrays, fwd only": lambda: workloads.numpy_tiny_arrays(np.array(1.0)),
        "numpy scalars, fwd only": lambda: workloads.numpy_tiny(np.array(1.0)),
    }
    times, calls = measure(contenders, settings)
    title = f"{workloads.TINY_OPS:,} scalar ops on a 0-d float64 tensor, forward + backward"
    return report("tiny", title, times, calls, workloads.TINY_OPS)


def run_cnn(settings):
    data = workloads.cnn_data(np.random.default_rng(2))
    print(f"\n[check] cnn: loss, gradients and updated weights agree "
          f"(max rel diff {check_step('cnn', workloads.cnn_step, data):.2g})")
    nd_args, th_args = workloads.step_inputs(ndgrad, data), workloads.step_inputs(torch, data)
    contenders = {
        "ndgrad": lambda: workloads.cnn_step(ndgrad, *nd_args),
        "torch": lambda: workloads.cnn_step(torch, *th_args),
    }
    times, calls = measure(contenders, settings)
    title = f"SGD step, conv8-maxpool-conv16-linear10 CNN, batch {workloads.CNN_BATCH}, 1x28x28 float32, cross-entropy"
    return report("cnn", title, times, calls, None)


def run_broadcast(settings):
    data = workloads.broadcast_data(np.random.default_rng(3))
    print(f"\n[check] broadcast: loss and gradients agree with torch and with the NumPy reference "
          f"(max rel diff {check_broadcast(data):.2g})")
    nd_args, th_args = workloads.broadcast_inputs(ndgrad, data), workloads.broadcast_inputs(torch, data)
    arrays = [data[name] for name in workloads.BROADCAST_SHAPES]
    contenders = {
        "ndgrad": lambda: workloads.broadcast(ndgrad, *nd_args),
        "torch": lambda: workloads.broadcast(torch, *th_args),
        NUMPY_REFERENCE: lambda: workloads.numpy_broadcast(*arrays),
    }
    times, calls = measure(contenders, settings)
    shapes = ", ".join(map(str, workloads.BROADCAST_SHAPES.values()))
    title = f"broadcasting ops and reductions on float32 {shapes}, forward + backward"
    return report("broadcast", title, times, calls, None, baseline=NUMPY_REFERENCE)


def peak_rss_mb():
    """The process's peak resident memory so far (ru_maxrss counts kilobytes on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 2**10)


def rss_mb():
    """The process's resident memory now (Linux's /proc/self/statm); elsewhere its peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return peak_rss_mb()


def ops_label(n_ops):
    """1,000 -> "1k", 1,000,000 -> "1M": graph sizes in the scaling's headings."""
    return f"{n_ops // 10**6}M" if n_ops % 10**6 == 0 else f"{n_ops // 10**3}k"


def tiny_chain(lib, n_ops):
    """A call of the tiny chain of `n_ops` ops on fresh inputs of `lib`."""
    args = workloads.tiny_inputs(lib)
    return lambda: workloads.tiny(lib, *args, n_ops=n_ops)


def run_scaling(settings):
    """The tiny chain at growing sizes, one timing per size per library, gc on. A timing repeats the chain until
    it has run about `scaling_ops_per_timing` ops (once at the largest sizes). The process's peak memory after
    ndgrad's largest run (before torch's) over its memory just before it is what ndgrad's largest graph takes."""
    sizes, largest = settings.scaling_sizes, settings.scaling_sizes[-1]
    libs = {"ndgrad": ndgrad, "torch": torch}
    for lib in libs.values():
        tiny_chain(lib, sizes[0])()  # warm-up
    print(f"\n== scaling: the tiny chain at {', '.join(map(ops_label, sizes))} ops, forward + backward, gc on, "
          f"one timing per size ==")
    print(f"  {'ops':>11}{'calls':>7}{'ndgrad/op':>12}{'torch/op':>12}{'ndgrad/torch':>14}")
    per_op = {name: {} for name in libs}
    for n in sizes:
        calls = max(1, settings.scaling_ops_per_timing // n)
        rss_before = rss_mb()  # after the loop, these two are the largest size's
        per_op["ndgrad"][n] = seconds_per_call(tiny_chain(ndgrad, n), calls) / n
        rss_after = peak_rss_mb()
        per_op["torch"][n] = seconds_per_call(tiny_chain(torch, n), calls) / n
        nd_us, th_us = per_op["ndgrad"][n] * 1e6, per_op["torch"][n] * 1e6
        print(f"  {n:>11,}{calls:>7}{nd_us:>9.2f} us{th_us:>9.2f} us{nd_us / th_us:>13.2f}x")
    span = f"{ops_label(largest)} / {ops_label(sizes[0])} ops"
    growth = {name: per_op[name][largest] / per_op[name][sizes[0]] for name in libs}
    target = TARGETS["scaling"]
    verdict = "met" if growth["ndgrad"] <= target else "not met"
    print(f"  per op, {span}: ndgrad {growth['ndgrad']:.2f}x, torch {growth['torch']:.2f}x   "
          f"target (ndgrad) <= {target:.1f}x, linear: {verdict}")
    added = rss_after - rss_before
    print(f"  peak RSS of this process: {rss_after:,.0f} MB after the {largest:,}-op ndgrad run, {rss_before:,.0f} MB "
          f"resident before it: +{added:,.0f} MB, {added * 2**20 / largest:,.0f} bytes per op")
    return growth["ndgrad"], f"ndgrad per op, {span}"


WORKLOADS = {"chain": run_chain, "mlp": run_mlp, "tiny": run_tiny, "cnn": run_cnn, "broadcast": run_broadcast,
             "scaling": run_scaling}


# ----------------------------------------------------------------------------------------------------------------
# Driver.
# ----------------------------------------------------------------------------------------------------------------

def print_machine():
    threads = ", ".join(f"{v}={os.environ[v]}" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"))
    print("== machine ==")
    print(f"  python {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}, "
          f"torch {torch.__version__}, ndgrad {ndgrad.__version__} ({ndgrad.__config__.CORE} core)")
    print(f"  {platform.platform()}, {platform.machine()}, {os.cpu_count()} logical CPUs")
    print(f"  threads: {threads}, torch.get_num_threads()={torch.get_num_threads()}, "
          f"torch.get_num_interop_threads()={torch.get_num_interop_threads()}")


def workload_names(text):
    """Parse --only: comma-separated workload names, each known."""
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in WORKLOADS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown workload {', '.join(unknown) or repr(text)}; "
                                         f"choose from {', '.join(WORKLOADS)}")
    return names


def parse_settings(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per workload (default 7, quick 3)")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds; scaling up to 100k ops")
    parser.add_argument("--only", type=workload_names, default=list(WORKLOADS), metavar="NAME[,NAME]",
                        help=f"run only these workloads, in this order ({', '.join(WORKLOADS)})")
    args = parser.parse_args(argv)
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    settings = Settings(
        rounds=args.rounds or (3 if args.quick else 7),
        budget=0.1 if args.quick else 0.25,
        scaling_sizes=(1_000, 10_000, 100_000) if args.quick else (1_000, 10_000, 100_000, 1_000_000),
        scaling_ops_per_timing=20_000 if args.quick else 100_000,
    )
    return settings, args.only


def main(argv=None):
    settings, names = parse_settings(argv)
    start = time.perf_counter()
    # Move everything alive now (mostly torch's and numpy's modules) out of the collector's reach, so that a full
    # collection triggered by ndgrad's graph does not pay for scanning torch's import-time heap.
    gc.collect()
    gc.freeze()
    print_machine()
    print(f"  {settings.rounds} timed rounds after warm-up, ~{settings.budget:g} s per timing, ndgrad/torch order "
          f"alternating, gc on ({gc.get_freeze_count():,} import-time objects frozen)")
    results = {name: WORKLOADS[name](settings) for name in names}
    print("\n== summary (lower is better; the targets are for reading, nothing is asserted) ==")
    for name, (ratio, what) in results.items():
        verdict = "met" if ratio <= TARGETS[name] else "not met"
        print(f"  {name:<10} {ratio:6.2f}x  {what:<30} target <= {TARGETS[name]:.1f}x  {verdict}")
    print(f"\n  total wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
