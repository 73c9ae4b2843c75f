"""On the stand-in GPU: gather, scatter, index_select and the other ops that take an index tensor refuse one on
another device than the input, with torch's error (they never move it silently); indexing, ``x[index]``, takes a
cpu index as torch does. Random fills draw on the host and land on the device."""

import numpy as np
import pytest

import ndgrad

CALLS = {
    "gather": lambda x, i: ndgrad.gather(x, 0, i),
    "Tensor.gather": lambda x, i: x.gather(0, i),
    "scatter": lambda x, i: ndgrad.scatter(x, 0, i, x),
    "scatter value": lambda x, i: ndgrad.scatter(x, 0, i, 2.0),
    "scatter_": lambda x, i: x.clone().scatter_(0, i, x),
    "scatter_add": lambda x, i: ndgrad.scatter_add(x, 0, i, x),
    "scatter_reduce": lambda x, i: ndgrad.scatter_reduce(x, 0, i, x, "amax"),
    "index_select": lambda x, i: ndgrad.index_select(x, 0, i),
    "index_add": lambda x, i: ndgrad.index_add(x, 0, i, x),
    "index_copy": lambda x, i: ndgrad.index_copy(x, 0, i, x),
    "index_fill": lambda x, i: ndgrad.index_fill(x, 0, i, 1.0),
    "take_along_dim": lambda x, i: ndgrad.take_along_dim(x, i, 0),
    "take_along_dim flat": lambda x, i: ndgrad.take_along_dim(x, i),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("where", [("cuda", "cpu"), ("cpu", "cuda")])
def test_index_on_another_device_is_refused(stand_in_gpu, name, where):
    x = ndgrad.tensor([1.0, 2.0, 3.0], device=where[0])
    index = ndgrad.tensor([2, 0, 1], device=where[1])
    with pytest.raises(RuntimeError) as error:
        CALLS[name](x, index)
    assert str(error.value) == (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )


@pytest.mark.parametrize("name", CALLS)
def test_index_on_the_same_device_works(stand_in_gpu, name):
    x = ndgrad.tensor([1.0, 2.0, 3.0])
    index = ndgrad.tensor([2, 0, 1])
    on_device = CALLS[name](x, index)
    on_host = CALLS[name](x.cpu(), index.cpu())
    assert on_device.device.type == "cuda"
    np.testing.assert_array_equal(on_device.cpu().numpy(), on_host.numpy())


def test_indexing_with_a_cpu_index_is_allowed(stand_in_gpu):
    x = ndgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    picked = x[ndgrad.tensor([2, 0], device="cpu")]
    picked.sum().backward()
    assert picked.device.type == "cuda" and picked.tolist() == [3.0, 1.0]
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    y = ndgrad.zeros(3)
    y[ndgrad.tensor([True, False, True], device="cpu")] = 5.0
    y[ndgrad.tensor([1], device="cpu")] += 1.0
    assert y.device.type == "cuda" and y.tolist() == [5.0, 1.0, 5.0]
