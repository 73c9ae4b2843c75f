"""Random sampling against torch: the in-place fills (uniform_, normal_, random_, bernoulli_, ...), bernoulli,
poisson and multinomial. Values differ from torch's generator, so distributions are compared by their moments on
large samples; everything else (dtypes, returned object, version counter, graph, errors) must be torch's."""

import math

import numpy as np
import pytest

import ndgrad

N = 200_000


# ---- distributions: mean and variance of a large sample, against the known moments ------------------------------
def _moments(tensor):
    values = tensor.double().numpy()
    return values.mean(), values.var()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "fill, mean, variance",
    [
        ("uniform_(-2, 4)", 1.0, 36 / 12),
        ("uniform_()", 0.5, 1 / 12),
        ("normal_(3, 2)", 3.0, 4.0),
        ("normal_()", 0.0, 1.0),
        ("exponential_(4)", 0.25, 1 / 16),
        ("geometric_(0.25)", 4.0, 0.75 / 0.0625),
        ("log_normal_(0, 0.5)", math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
        ("random_(3, 9)", 5.5, (6**2 - 1) / 12),
        ("random_(5)", 2.0, (5**2 - 1) / 12),
        ("bernoulli_(0.3)", 0.3, 0.21),
        ("bernoulli_()", 0.5, 0.25),
    ],
)
def test_fill_distribution(fill, mean, variance, dtype):
    ndgrad.manual_seed(1)
    tensor = ndgrad.empty(N, dtype=getattr(ndgrad, dtype))
    result = eval(f"tensor.{fill}")
    assert result is tensor and result.dtype is getattr(ndgrad, dtype) and result.shape == (N,)
    got_mean, got_variance = _moments(tensor)
    spread = math.sqrt(variance / N)
    assert abs(got_mean - mean) < 6 * spread
    assert abs(got_variance - variance) < 0.05 * variance


def test_cauchy_quartiles():
    ndgrad.manual_seed(2)
    values = ndgrad.empty(N).cauchy_(1.5, 2.0).numpy()
    assert np.allclose(np.percentile(values, [25, 50, 75]), [-0.5, 1.5, 3.5], atol=0.06)


def test_random_full_range_per_dtype():
    ndgrad.manual_seed(3)
    for dtype, top in [(ndgrad.uint8, 255), (ndgrad.bool, 1), (ndgrad.int8, 127), (ndgrad.float16, 2**11)]:
        values = ndgrad.empty(20_000, dtype=dtype).random_().double().numpy()
        assert values.min() == 0 and values.max() > 0.9 * top and values.max() <= top
    values = ndgrad.empty(20_000, dtype=ndgrad.int64).random_(-5, None).numpy()
    assert values.min() >= -5 and values.max() > 2**62


def test_complex_fills_draw_both_parts():
    ndgrad.manual_seed(4)
    values = ndgrad.empty(N, dtype=ndgrad.complex128).normal_(0, 2).numpy()
    assert abs(values.real.var() - 2) < 0.05 and abs(values.imag.var() - 2) < 0.05  # variance 4 in all
    values = ndgrad.empty(N, dtype=ndgrad.complex64).uniform_(1, 3).numpy()
    assert 1 <= values.real.min() and values.imag.max() < 3 and abs(values.imag.mean() - 2) < 0.01


def test_bernoulli_poisson_multinomial_distributions():
    ndgrad.manual_seed(5)
    probabilities = ndgrad.tensor([0.0, 0.2, 0.9, 1.0], dtype=ndgrad.float64)
    draws = ndgrad.bernoulli(probabilities.expand(N // 4, 4))
    assert draws.dtype is ndgrad.float64
    assert np.allclose(draws.numpy().mean(0), probabilities.numpy(), atol=0.01)
    assert np.allclose(ndgrad.empty(N // 4, 4).bernoulli_(probabilities).numpy().mean(0), [0, 0.2, 0.9, 1], atol=0.01)
    counts = ndgrad.poisson(ndgrad.full((N,), 3.5))
    assert counts.dtype is ndgrad.float32 and np.allclose(_moments(counts), (3.5, 3.5), rtol=0.02)
    picks = ndgrad.multinomial(ndgrad.tensor([1.0, 0.0, 3.0]), N, replacement=True).numpy()
    assert np.allclose(np.bincount(picks, minlength=3) / N, [0.25, 0, 0.75], atol=0.01)
    rows = ndgrad.tensor([[0.0, 5.0, 1.0], [2.0, 0.0, 0.0]]).multinomial(2)
    assert rows.dtype is ndgrad.int64 and rows[:, 0].tolist() in ([1, 0], [2, 0]) and rows[1, 1].item() != 0


# ---- seeds and generators ---------------------------------------------------------------------------------------
FILLS = ["uniform_(0, 3)", "normal_(1, 2)", "exponential_()", "geometric_(0.4)", "cauchy_()", "log_normal_()",
         "random_(0, 10)", "bernoulli_(0.5)"]


@pytest.mark.parametrize("fill", FILLS)
def test_seed_and_generator_repeat_a_draw(fill):
    ndgrad.manual_seed(7)
    first = eval(f"ndgrad.empty(5).{fill}")
    ndgrad.manual_seed(7)
    assert ndgrad.equal(first, eval(f"ndgrad.empty(5).{fill}"))
    generator = ndgrad.Generator().manual_seed(11)
    drawn = eval(f"ndgrad.empty(5).{fill[:-1]}{', ' if fill[-2] != '(' else ''}generator=generator)")
    generator.manual_seed(11)
    again = eval(f"ndgrad.empty(5).{fill[:-1]}{', ' if fill[-2] != '(' else ''}generator=generator)")
    assert ndgrad.equal(drawn, again)


def test_generator_for_bernoulli_poisson_multinomial():
    def draw(generator):
        probabilities = ndgrad.full((50,), 0.5)
        return (ndgrad.bernoulli(probabilities, generator=generator), ndgrad.poisson(probabilities, generator),
                ndgrad.multinomial(probabilities, 10, generator=generator))

    first = draw(ndgrad.Generator().manual_seed(3))
    for ours, again in zip(first, draw(ndgrad.Generator().manual_seed(3))):
        assert ndgrad.equal(ours, again)


# ---- what torch shows: dtypes, versions, graph, leaf rules --------------------------------------------------------
@pytest.mark.parametrize("fill", FILLS + ["random_()", "random_(5)", "random_(2, None)",
                                          "bernoulli_(torch.full((3,), 0.5))", "uniform_(to=5)"])
def test_fill_records_torch_node_and_bumps_version(same, fill):
    same(f"""
x = torch.ones(2, 3, requires_grad=True)
y = x * 1
z = y.{fill}
print(z is y, y.dtype, y.shape, y._version, type(y.grad_fn).__name__, y.requires_grad)
print([type(f).__name__ for f, _ in y.grad_fn.next_functions])
y.sum().backward()
print(x.grad)
""")


@pytest.mark.parametrize("fill", ["uniform_()", "normal_()", "bernoulli_(0.5)", "random_(3)"])
def test_fill_through_a_view_rebases_and_refuses_leaves(same, fill):
    same(f"""
x = torch.ones(2, 3, requires_grad=True)
y = x * 1
v = y[0].{fill}
print(type(v.grad_fn).__name__, type(y.grad_fn).__name__, y._version)
with torch.no_grad():
    x.{fill}
print(x.requires_grad, x.is_leaf, x._version)
x.{fill}
""")


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "int8", "float16", "float64"])
@pytest.mark.parametrize("fill", ["random_(0, 2)", "random_(1)", "geometric_(0.5)", "bernoulli_(0.0)",
                                  "bernoulli_(1)"])
def test_integer_fills_keep_dtype(same, fill, dtype):
    same(f"t = torch.zeros(4, dtype=torch.{dtype}).{fill}; print(t.dtype, (t >= 0).all(), t.shape)")


def test_results_of_bernoulli_and_poisson(same):
    same("""
x = torch.full((2, 2), 0.5, dtype=torch.float64, requires_grad=True)
for y in (torch.bernoulli(x), x.bernoulli(), torch.poisson(x)):
    print(y.dtype, y.shape, type(y.grad_fn).__name__)
    y.sum().backward()
print(x.grad)
print(torch.bernoulli(torch.ones(2), 1.0), torch.bernoulli(torch.zeros(3)), torch.poisson(torch.zeros(2)))
print(torch.multinomial(torch.tensor([0.0, 1.0]), 1), torch.multinomial(torch.tensor([[0.0, 1.0], [1.0, 0]]), 2))
""")


ERRORS = [
    "torch.ones(3).uniform_(2, 1)",
    "torch.ones(3).uniform_(float('nan'), 1)",
    "torch.ones(3).uniform_(0, float('inf'))",
    "torch.ones(3, dtype=torch.float16).uniform_(0, 1e6)",
    "torch.ones(3).uniform_(-3e38, 3e38)",
    "torch.ones(3).uniform_(1, 2, 3)",
    "torch.ones(3, dtype=torch.long).uniform_()",
    "torch.ones(3).normal_(0, -1)",
    "torch.ones(3).normal_(0, float('nan'))",
    "torch.ones(3, dtype=torch.long).normal_()",
    "torch.ones(3).exponential_(0)",
    "torch.ones(3).exponential_(-1.5)",
    "torch.ones(3, dtype=torch.long).exponential_()",
    "torch.ones(3, dtype=torch.complex64).exponential_()",
    "torch.ones(3).geometric_(0)",
    "torch.ones(3).geometric_(1)",
    "torch.ones(3).geometric_(float('nan'))",
    "torch.ones(3, dtype=torch.bool).geometric_(0.5)",
    "torch.ones(3, dtype=torch.complex64).geometric_(0.5)",
    "torch.ones(3).cauchy_(0, 0)",
    "torch.ones(3, dtype=torch.long).cauchy_()",
    "torch.ones(3, dtype=torch.complex64).cauchy_()",
    "torch.ones(3).log_normal_(0, 0)",
    "torch.ones(3, dtype=torch.long).log_normal_()",
    "torch.ones(3, dtype=torch.complex64).log_normal_()",
    "torch.ones(3).random_(5, 2)",
    "torch.ones(3).random_(0)",
    "torch.ones(3).random_(-1)",
    "torch.ones(3, dtype=torch.uint8).random_(-1, 5)",
    "torch.ones(3, dtype=torch.int8).random_(0, 300)",
    "torch.ones(3, dtype=torch.int8).random_(-129, 1)",
    "torch.ones(3, dtype=torch.int16).random_(0, 40000)",
    "torch.ones(3, dtype=torch.int32).random_(-2**40, 1)",
    "torch.ones(3, dtype=torch.bool).random_(0, 3)",
    "torch.ones(3, dtype=torch.float16).random_(0, 70000)",
    "torch.ones(3, dtype=torch.complex64).random_()",
    "torch.ones(3).random_(0, 2**30)",
    "torch.ones(3, dtype=torch.float64).random_(-2**60, 1)",
    "torch.ones(3).bernoulli_(1.5)",
    "torch.ones(3).bernoulli_(float('nan'))",
    "torch.ones(3).bernoulli_(torch.tensor([0.5, 2, 0.1]))",
    "torch.ones(3).bernoulli_(torch.tensor([0, 1, 1]))",
    "torch.ones(3).bernoulli_(torch.tensor([0.5, 0.5]))",
    "torch.bernoulli(torch.tensor([0.5, 2, 0.1]))",
    "torch.bernoulli(torch.tensor([1, 0]))",
    "torch.bernoulli(torch.tensor([0.5, 0.5]), 1.5)",
    "torch.poisson(torch.tensor([-1.0]))",
    "torch.poisson(torch.tensor([1]))",
    "torch.multinomial(torch.tensor([1.0, 2.0]), 3)",
    "torch.multinomial(torch.tensor([1, 2]), 1)",
    "torch.multinomial(torch.tensor(1.0), 1)",
    "torch.multinomial(torch.ones(2, 2, 2), 1)",
    "torch.multinomial(torch.tensor([1.0, 2.0]), 0)",
    "torch.multinomial(torch.tensor([-1.0, 2.0]), 1)",
    "torch.multinomial(torch.tensor([[1.0, 2.0], [0, 0]]), 1)",
    "torch.multinomial(torch.tensor([1.0, float('nan')]), 2, True)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_match_torch(same, code):
    same(code)


# ---- the stand-in GPU: drawn on the host, moved to the device -----------------------------------------------------
def test_fills_on_the_stand_in_gpu():
    from ndgrad.testing import fake_cuda

    with fake_cuda():
        for fill in FILLS:
            tensor = ndgrad.zeros(4, device="cuda")
            assert eval(f"tensor.{fill}") is tensor and tensor.device.type == "cuda" and tensor._version == 1
        probabilities = ndgrad.full((3,), 0.5, device="cuda")
        for result in (ndgrad.bernoulli(probabilities), ndgrad.poisson(probabilities),
                       ndgrad.multinomial(probabilities, 2), probabilities.bernoulli(0.3)):
            assert result.device.type == "cuda"
        ndgrad.manual_seed(9)
        on_device = ndgrad.zeros(6, device="cuda").normal_()
        ndgrad.manual_seed(9)
        assert np.array_equal(on_device.cpu().numpy(), ndgrad.zeros(6).normal_().numpy())

