"""ndgrad.Generator: torch.Generator's API and errors; its states restore the stream exactly (the numbers
themselves come from NumPy's PCG64, not torch's Mersenne twister)."""

import pytest

import ndgrad

SNIPPETS = {
    "defaults": """
g = torch.Generator()
print(g.initial_seed(), g.device, torch.Generator('cpu').device, torch.Generator(torch.device('cpu')).device)
print(g.manual_seed(5) is g, g.initial_seed(), g.manual_seed(-1).initial_seed())
print(g.manual_seed(2**64 - 1).initial_seed())
print(torch.manual_seed(3) is torch.default_generator, torch.initial_seed(), torch.manual_seed(-5).initial_seed())
print(torch.manual_seed(7.9).initial_seed(), type(g.seed()).__name__, g.get_state().dtype)
state = g.get_state()
print(g.set_state(state) is g)
""",
    "seed_float": "torch.Generator().manual_seed(1.5)",
    "seed_bool": "torch.Generator().manual_seed(True)",
    "seed_str": "torch.Generator().manual_seed('3')",
    "seed_too_big": "torch.Generator().manual_seed(2**64)",
    "seed_too_small": "torch.Generator().manual_seed(-2**63 - 1)",
    "state_not_bytes": "torch.Generator().set_state(torch.zeros(3))",
    "state_not_tensor": "torch.Generator().set_state([1, 2])",
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_generator_like_torch(same, name):
    same(SNIPPETS[name])


def test_state_round_trip_restores_the_stream():
    g = ndgrad.Generator().manual_seed(11)
    list(ndgrad.utils.data.RandomSampler(range(9), generator=g))
    state = g.get_state()
    ahead = [list(ndgrad.utils.data.RandomSampler(range(9), generator=g)) for _ in range(3)]
    other = ndgrad.Generator().set_state(state)
    assert other.initial_seed() == 11
    assert [list(ndgrad.utils.data.RandomSampler(range(9), generator=other)) for _ in range(3)] == ahead


def test_state_of_the_wrong_size():
    message = "Expected a PCG64 state of size 45 but found the input RNG state size to be 3"
    with pytest.raises(RuntimeError, match=message):
        ndgrad.Generator().set_state(ndgrad.zeros(3, dtype=ndgrad.uint8))


def test_default_generator_is_the_factories_stream():
    ndgrad.default_generator.manual_seed(4)
    first = ndgrad.rand(3).tolist()
    state = ndgrad.default_generator.get_state()
    second = ndgrad.rand(3).tolist()
    ndgrad.manual_seed(4)
    assert ndgrad.rand(3).tolist() == first
    ndgrad.default_generator.set_state(state)
    assert ndgrad.rand(3).tolist() == second
