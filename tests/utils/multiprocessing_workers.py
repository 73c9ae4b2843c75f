"""What the child processes of tests/utils/test_multiprocessing.py run. A module of its own, which imports ndgrad
only, so that a spawned child (which imports the module its function lives in) starts in a second, not three."""

import sys

import ndgrad


def hogwild(rank, model, steps):
    """``steps`` SGD steps of lr 1 on -sum(weight): each adds 1 to every weight, in the memory the model shares."""
    optimizer = ndgrad.optim.SGD(model.parameters(), lr=1.0)
    for _ in range(steps):
        optimizer.zero_grad()
        (-model.weight.sum()).backward()
        optimizer.step()


def add_rank(rank, tensor):
    tensor[rank] += rank + 1


def raise_on_last(rank, nprocs):
    if rank == nprocs - 1:
        raise ValueError(f"boom in {rank}")


def exit_with(rank, code):
    sys.exit(code)


def increment_received(queue, done):
    """Add 1 in place to the tensor that arrives on ``queue``, then say so."""
    tensor = queue.get()
    tensor.add_(1)
    done.set()
