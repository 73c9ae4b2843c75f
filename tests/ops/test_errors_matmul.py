"""matmul of operands whose batch dims do not broadcast: torch's error names the clashing sizes and dimension
(counted in the broadcast batch shape); shapes that do broadcast give torch's values."""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad

from .errors import assert_raises_like_torch, raised


@settings(max_examples=60, deadline=None)
@given(left=st.lists(st.integers(1, 4), min_size=0, max_size=3),
       right=st.lists(st.integers(1, 4), min_size=0, max_size=3), vector=st.sampled_from(["", "left", "right"]))
def test_batch_mismatch_names_the_dimension(left, right, vector):
    a = "(3,)" if vector == "left" else f"({', '.join(map(str, left))}{', ' if left else ''}2, 3)"
    b = "(3,)" if vector == "right" else f"({', '.join(map(str, right))}{', ' if right else ''}3, 2)"
    call = f"lib.matmul(lib.ones{a}, lib.ones{b})"
    if raised(call, torch) is not None:
        assert_raises_like_torch(call)
    else:
        np.testing.assert_array_equal(eval(call, {"lib": ndgrad}).numpy(), eval(call, {"lib": torch}).numpy())
