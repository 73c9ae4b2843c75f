"""Fixtures for running ndgrad on a GPU: the stand-in GPU of ndgrad.testing (always there), or a real one."""

import pytest

import ndgrad
from ndgrad.testing import fake_cuda


@pytest.fixture
def stand_in_gpu():
    """The stand-in GPU as ndgrad's "cuda", and "cuda" as the default device, for one test."""
    with fake_cuda():
        ndgrad.set_default_device("cuda")
        try:
            yield
        finally:
            ndgrad.set_default_device(None)


def pytest_collection_modifyitems(items):
    """Tests imported from elsewhere to run again on the device: their torch-only cases have nothing new to say."""
    items[:] = [
        item for item in items
        if not (item.module.__name__.endswith("_on_device") and "[torch" in item.name)
    ]
