"""``x[index]`` and ``x[index] = value`` with wrong and edge indices and values, against torch: how the index is
read (the dims it names, each Ellipsis, lists as index tensors, overflowing ints), and how the value is converted
and fitted (checked into the dtype, expanded to the indexed view)."""

import pytest

SETUP = """
x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
m = torch.arange(24.).reshape(2, 3, 4)
s = torch.tensor(2.5)
u = torch.tensor([[0, 1, 2], [3, 4, 5]], dtype=torch.uint8)
i = torch.tensor([[0, 1, 2], [2, 1, 0]])
mask = torch.tensor([[True, False, True], [False, True, False]])
"""


def snippet(code):
    return SETUP + code


READS = [
    "m[1, 5]", "m[0, 1, 9]", "m[None, 1, 5]", "m[..., 7]", "m[0, ..., 9]", "m[:, :, 4]", "m[:, None, 3]",
    "m[..., ..., 1]", "m[..., 0, ...]", "m[0, ..., ..., 1]", "m[1, 1, 1, 1]", "m[0, 0, 0, None, 0]",
    "m['b']", "m[0, b'c']", "m[['a']]", "m[1, 2.5]", "m[[1, 'x']]", "m[{0}]", "m[1j]", "m[x.t]", "m[x.backward]",
    "s['a']", "s[2.5]", "s[0]", "s[-1]", "s[3]", "s[:]", "s[(0,)]", "s[None, 1]", "s[torch.tensor(0)]", "s[...]",
    "s[None]", "s[False]", "m[::0]", "m[:, ::0]", "m[::-2]", "m[::'a']", "m[1.5:]", "m[:torch.tensor(1)]",
    "m[2**63]", "m[-2**63 - 1]", "m[0, 2**64]", "m[[2**63]]", "m[[0, 2**70]]", "m[2**63 - 1]",
    "m[[0.0, 1.0]]", "m[[1.9]]", "m[[0.5, 1]]", "m[:, [2.0, 0.0]]", "m[[True, False]]", "m[[[]]]", "m[[[], []]]",
    "m[[]]", "m[[0, [1]]]", "m[[[0], [1]]]", "m[[[0, 1], [1, 0]]]", "m[np.array([1.5, 0.2])]", "m[[1, 5]]",
    "m[:, [0, 3]]", "m[0, :, [4]]", "x[mask[0]]", "x[mask[:, :2]]", "x[torch.ones(2, 3, 1, dtype=torch.bool)]",
]


@pytest.mark.parametrize("index", READS)
def test_reading(same, index):
    same(snippet(f"print({index})"))


WRITES = [
    "u[0] = 256", "u[0] = -1", "u[0] = -256", "u[0, 1] = 255 + 45", "u[...] = 300", "u[:, 1] = 2.9", "u[[0]] = 257",
    "u[mask] = -3", "u[[0, 1], [1, 2]] = 999", "i[0] = 2**63", "i[0] = -2**63", "x[1] = 2**64", "x[0] = 1e39",
    "x[0] = 3j", "x[0] = float('nan')", "x[0] = np.float64(1.5)", "x[0] = np.float32(1.5)", "x[0] = np.int16(3)",
    "x[0] = np.bool_(True)", "x[0] = np.ones(3)", "x[0] = [1.0, 2.0, 3.0]", "x[0] = (1, 2, 3)", "x[0] = None",
    "x[0] = 'abc'", "x[0] = True", "u[0] = torch.tensor(300)", "x[0] = torch.ones(3, dtype=torch.int64)",
    "x[[0]] = torch.ones(3, dtype=torch.int64)", "x[0] = torch.ones(4)", "x[0] = torch.ones(2, 3)",
    "x[0] = torch.ones(1, 1, 3)", "x[:, 1] = torch.ones(3)", "x[:, 1] = torch.ones(2, 1)", "x[0, 0] = torch.ones(3)",
    "x[...] = x.t()", "x[:] = x", "x[:1] = x[1:]", "x[0] = x[1]", "x[:, :2] = x[:, 1:]", "x[::2] = x[1::2]",
    "x[i[0]] = 1.0", "x[i] = 2.0", "x[i.float()] = 1.0", "x[x > 0.25] = 0.0", "x[mask] = torch.ones(4)",
    "x[mask] = torch.ones(3)", "x[[0, 1]] = torch.ones(2, 2)", "x['a'] = 1", "x[::0] = 1", "x[2**63] = 1",
    "x[0, 3] = 1", "x[..., ..., 0] = 1", "s[0] = 1", "s[1] = 1", "s['a'] = 1", "s[...] = 7", "s[None] = 8",
    "s[:] = 1", "s[False] = 9", "x[False] = 9", "x[True] = 9", "x[None] = 9",
    "m2 = m.clone(); m2[i] = m2[0]",
    "del x[0]", "del x[0, 1]",
]


@pytest.mark.parametrize("statement", WRITES)
def test_writing(same, statement):
    same(snippet(f"{statement}\nfor t in (x, s, u, i):\n    print(t)"))


@pytest.mark.parametrize("code", [
    "w = torch.ones(2, 3, requires_grad=True)\ny = w * 1\ny[0] = torch.arange(3.)\ny.sum().backward()\nprint(w.grad)",
    "w = torch.ones(3, requires_grad=True)\ny = torch.zeros(2, 3)\ny[1] = w\n(y * 2).sum().backward()\nprint(w.grad)",
    "w = torch.ones(3, requires_grad=True)\ny = torch.zeros(2, 3)\ny[:, 1:] = w[:2]\ny.sum().backward()\n"
    "print(w.grad, y.grad_fn.name())",
])
def test_written_values_keep_their_gradients(same, code):
    same(code)
