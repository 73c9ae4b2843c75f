"""The engine tests (tests/autograd/test_engine.py) a second time, on the stand-in GPU: "cuda" is the default
device, so every tensor the snippets make with a factory lives there, and the torch snippets' printed output
must still match (a tensor on the default device prints no device, in PyTorch as here). Their torch-only runs
are left out (see conftest.py). The helper that reads values through NumPy copies to the host first; tests that
call ``.numpy()`` themselves are HOST_BOUND: on a GPU that call raises, in PyTorch as here."""

import numpy as np
import pytest
from tests.autograd import test_engine

HOST_BOUND = {
    "test_detach_shares_numpy_memory", "test_chain_of_100000_ops_backpropagates_without_recursion",
    "test_wide_and_deep_graph_with_shared_nodes", "test_saved_tensor_released_by_backward",
    "test_saved_tensor_kept_with_retain_graph", "test_saved_tensor_released_while_backward_is_still_running",
}


@pytest.fixture(autouse=True)
def on_the_device(stand_in_gpu, monkeypatch):
    monkeypatch.setattr(test_engine, "as_numpy", lambda t: None if t is None else np.asarray(t.detach().cpu().numpy()))


globals().update(
    {name: test for name, test in vars(test_engine).items() if name.startswith("test_") and name not in HOST_BOUND}
)
