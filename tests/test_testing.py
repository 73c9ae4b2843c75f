"""ndgrad.testing.assert_close and assert_allclose against torch.testing: passing cases, and the class and text of
each failure (mismatch counts, greatest differences and their indices, attributes, nesting, msg)."""

import pytest

SETUP = """
import torch
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
T = torch.testing
"""


@pytest.mark.parametrize("code", [
    "T.assert_close(a, a.clone()); T.assert_close(a, a + 1e-6); print('ok')",
    "T.assert_close(a, a + torch.tensor([[0.0, 0.5, 0.0], [0.0, 0.0, -2.0]]))",
    "T.assert_close(a.double(), a.double() + 1e-6)",
    "T.assert_close(a.double() + 1e-8, a.double()); print('ok')",
    "T.assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))",
    "T.assert_close(torch.tensor(1.5), torch.tensor(1.0))",
    "T.assert_close(a, a[0])",
    "T.assert_close(a, a.double())",
    "T.assert_close(a, a.double(), check_dtype=False); print('ok')",
    "T.assert_close(a, a.double() + 0.1, check_dtype=False)",
    "T.assert_close(a, a + 0.1, rtol=0.0, atol=0.2); print('ok')",
    "T.assert_close(a, a, rtol=0.1)",
    "T.assert_close(torch.tensor([float('nan'), 1.0]), torch.tensor([float('nan'), 1.0]))",
    "T.assert_close(torch.tensor([float('nan'), 1.0]), torch.tensor([float('nan'), 1.0]), equal_nan=True); print('ok')",
    "T.assert_close(1.0, 1.1)",
    "T.assert_close(1, 1.0)",
    "T.assert_close(1.0, 1.0 + 1e-9); T.assert_close(None, None); T.assert_close(True, True); print('ok')",
    "T.assert_close(None, 1)",
    "T.assert_close(True, False)",
    "T.assert_close([a, {'x': 1.0}], [a, {'x': 2.0}])",
    "T.assert_close([a, a], [a])",
    "T.assert_close({'x': a}, {'y': a})",
    "T.assert_close(a, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
    "T.assert_close(a, a + 1, msg='custom')",
    "T.assert_close(a, a + 1, msg=lambda m: m.upper())",
    "T.assert_close(a, 'a')",
    "T.assert_allclose(a, a + 1e-5); T.assert_allclose([1.0, 2.0], [1.0, 2.0]); print('ok')",
    "T.assert_allclose(a, a + 1e-3)",
])
def test_assert_close(same, code):
    same(SETUP + code)
