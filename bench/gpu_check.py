"""GPU check: run on a machine with a CUDA GPU and CuPy (``pip install ndgrad[cuda]``).

    python bench/gpu_check.py             # op table, demo CNN (3 epochs), timings (20 steps each)
    python bench/gpu_check.py --quick     # fewer cases, 1 epoch, 5 steps
    python bench/gpu_check.py --stand-in  # the same run on ndgrad's stand-in GPU, torch on the cpu (tests the script)

1. The op table on the GPU against PyTorch on the GPU (on the cpu if torch has no CUDA): each op's first sample
   cases, values and first derivatives, in float64.
2. The digits demo's CNN trained on the GPU (needs the ``demo`` extra): loss and test accuracy per epoch.
3. The MLP and CNN training steps of bench/workloads.py, timed on ndgrad (CuPy) and on PyTorch (CUDA).

Without a GPU it says so and exits 0. Exit status 1 if an op differs from PyTorch.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(ROOT, "src"), ROOT, os.path.join(ROOT, "bench")]

import ndgrad  # noqa: E402


def synchronize(lib, device):
    if device.startswith("cuda"):
        lib.cuda.synchronize()


def on(lib, device, call):
    """``call()`` with ``device`` as the default device of ``lib`` (tensors a sample builds land there too)."""
    lib.set_default_device(device)
    try:
        return call()
    finally:
        lib.set_default_device(None)


# ---- 1. the op table -------------------------------------------------------------------------------------------
def run_case(lib, case, device):
    """Outputs and first derivatives of one sample case on ``device``, as host arrays (None where absent)."""
    from tests.ops.samples import first, random_like

    lib.manual_seed(0)
    inputs = [t.detach().to(device).requires_grad_(t.requires_grad) for t in case.tensors(lib, np.float64)]
    result = on(lib, device, lambda: case.run(lib, inputs))
    results = result if isinstance(result, tuple) else (result,)
    out, grads = first(result), ()
    if out.requires_grad:
        cotangent = lib.from_numpy(np.asarray(random_like(np.random.default_rng(1), tuple(out.shape), str(out.dtype))))
        cotangent = cotangent.to(device=out.device, dtype=out.dtype)
        grads = lib.autograd.grad(out, case.differentiable(inputs), cotangent, allow_unused=True)
    host = [None if t is None else t.detach().cpu().resolve_conj().numpy(force=True) for t in (*results, *grads)]
    return host


def check_op_table(device, torch_device, cases_per_op):
    from tests.ops.samples import samples_for

    from ndgrad.ops import OP_TABLE

    failures, count, start = [], 0, time.perf_counter()
    for op in OP_TABLE:
        for case in samples_for(op)[:cases_per_op]:
            count += 1
            try:
                ours, theirs = run_case(ndgrad, case, device), run_case(torch, case, torch_device)
                assert len(ours) == len(theirs), f"{len(ours)} results, torch {len(theirs)}"
                for a, b in zip(ours, theirs):
                    assert (a is None) == (b is None)
                    if a is not None:
                        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
            except Exception as error:  # noqa: BLE001 - every failure is reported, the run goes on
                first_line = (str(error).strip().splitlines() or [""])[0][:100]
                failures.append(f"{op.__name__} {case}: {type(error).__name__}: {first_line}")
    print(f"op table: {count - len(failures)}/{count} cases match torch ({torch_device}) "
          f"in {time.perf_counter() - start:.0f} s")
    for failure in failures:
        print("  FAIL", failure)
    return not failures


# ---- 2. the demo CNN ---------------------------------------------------------------------------------------------
def train_demo_cnn(device, epochs):
    try:
        from ndgrad.demo.digits import digits_datasets, train
    except ImportError as error:
        print(f"demo CNN: skipped ({error}; install ndgrad[demo])")
        return
    try:
        generator = ndgrad.Generator().manual_seed(0)
        train_set, test_set = digits_datasets(generator)
        start = time.perf_counter()
        losses, accuracies = train("cnn", epochs, device, train_set, test_set, generator, progress=False)
    except ImportError as error:
        print(f"demo CNN: skipped ({error}; install ndgrad[demo])")
        return
    print(f"demo CNN on {device}: {epochs} epochs in {time.perf_counter() - start:.1f} s, last loss "
          f"{losses[-1]:.3f}, test accuracy per epoch {', '.join(f'{a:.3f}' for a in accuracies)}")


# ---- 3. training-step timings ------------------------------------------------------------------------------------
def time_steps(lib, device, step, data, inputs, steps):
    """Median seconds of one training step on ``device``, after two warm-up steps."""
    params, x, onehot = on(lib, device, lambda: inputs(lib, data))
    times = []
    for index in range(steps + 2):
        synchronize(lib, device)
        start = time.perf_counter()
        step(lib, params, x, onehot)
        synchronize(lib, device)
        if index >= 2:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def timing_table(device, torch_device, steps):
    import workloads

    rng = np.random.default_rng(0)
    rows = [("mlp", workloads.mlp_step, workloads.mlp_data(rng), workloads.step_inputs),
            ("cnn", workloads.cnn_step, workloads.cnn_data(rng), workloads.step_inputs)]
    print(f"\n{'step':6}{'ndgrad ' + device:>20}{'torch ' + torch_device:>20}{'ratio':>8}")
    for name, step, data, inputs in rows:
        ours = time_steps(ndgrad, device, step, data, inputs, steps)
        theirs = time_steps(torch, torch_device, step, data, inputs, steps)
        print(f"{name:6}{ours * 1e3:>17.2f} ms{theirs * 1e3:>17.2f} ms{ours / theirs:>7.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer cases, one epoch, fewer timed steps")
    parser.add_argument("--stand-in", action="store_true", help="use ndgrad's stand-in GPU (tests this script)")
    args = parser.parse_args()
    if args.stand_in:
        from ndgrad.testing import fake_cuda

        fake_cuda()  # for the rest of the run
    if not ndgrad.cuda.is_available():
        print("No CUDA GPU for ndgrad (ndgrad.cuda.is_available() is False: no CuPy, or no GPU): nothing to check.")
        return 0
    device = "cuda"
    torch_device = "cuda" if torch.cuda.is_available() and not args.stand_in else "cpu"
    print(f"ndgrad on {ndgrad.cuda.get_device_name()}, torch {torch.__version__} on {torch_device}")
    matched = check_op_table(device, torch_device, cases_per_op=1 if args.quick else 2)
    train_demo_cnn(device, epochs=1 if args.quick else 3)
    timing_table(device, torch_device, steps=5 if args.quick else 20)
    return 0 if matched else 1


if __name__ == "__main__":
    sys.exit(main())
