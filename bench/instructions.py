"""Instructions per op of the chain and tiny workloads, for ndgrad (the core it loads) and torch, under valgrind's
callgrind: a count that does not move with the machine's load, for deciding between two versions of the hot path
on a shared, noisy machine (bench/run.py's times are what users see; see bench/README.md).

Each count runs a workload once and twice in two fresh processes, after the same warm-up, and takes the
difference, so that the imports and the warm-up cancel out. Hash randomisation is fixed (PYTHONHASHSEED=0), as the
order of a dict's probes changes the count by a few per cent from one process to the next. Needs valgrind
(Debian's package); takes a few minutes. ``NDGRAD_PURE_PYTHON=1 python bench/instructions.py`` counts the
pure-Python core.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import workloads

BENCH = Path(__file__).resolve().parent
OPS = {"chain": workloads.CHAIN_OPS, "tiny": workloads.TINY_OPS}

# Runs `calls` calls of a workload after one warm-up call, in the library named (one thread, as bench/run.py)
CHILD = """
import importlib, sys
sys.path.insert(0, {bench!r})
import numpy as np
import workloads
lib = importlib.import_module({library!r})
if {library!r} == "torch":
    lib.set_num_threads(1)
rng = np.random.default_rng(0)
args = workloads.chain_inputs(lib, workloads.chain_data(rng)) if {workload!r} == "chain" else workloads.tiny_inputs(lib)
run = getattr(workloads, {workload!r})
for _ in range(1 + {calls}):
    run(lib, *args)
"""


def instructions(library, workload, calls):
    """What callgrind counts for a whole process that imports the library and runs the workload `calls` times."""
    child = CHILD.format(bench=str(BENCH), library=library, workload=workload, calls=calls)
    environment = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "1"}
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", child],
        capture_output=True, text=True, env=environment, check=True,
    )
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


def per_op(library, workload):
    return (instructions(library, workload, 2) - instructions(library, workload, 1)) / OPS[workload]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="chain,tiny", help="workloads, comma-separated (chain, tiny)")
    names = [name for name in parser.parse_args().only.split(",") if name]
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    import ndgrad

    print(f"instructions per op under callgrind, forward + backward; ndgrad's {ndgrad.__config__.CORE} core")
    print(f"  {'workload':<10}{'ndgrad':>12}{'torch':>12}{'ndgrad/torch':>14}")
    for name in names:
        ours, theirs = per_op("ndgrad", name), per_op("torch", name)
        print(f"  {name:<10}{ours:>12,.0f}{theirs:>12,.0f}{ours / theirs:>13.2f}x")


if __name__ == "__main__":
    main()
