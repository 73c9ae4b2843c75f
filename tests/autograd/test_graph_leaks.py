"""The graph-leak warning. Each program runs with torch and with ndgrad: values and errors must match torch's, and
ndgrad adds "ndgrad:" warnings for the classic mistakes (a running total of losses, backpropagated or only logged,
an RNN hidden state carried across batches) and none for the legitimate programs that reuse a graph on purpose."""

import gc
import warnings

import numpy as np
import pytest
import torch
from tests.closeness import TOLERANCE, assert_close

import ndgrad
from ndgrad.autograd.hints import without_hint

FLOAT32 = TOLERANCE["float32"]  # the programs run in float32; some return Python numbers (loss.item())


@pytest.fixture
def no_stale_optimizers():
    """An optimizer that never stepped means no boundary (see ndgrad.autograd.leaks): collect other tests' ones."""
    gc.collect()


def _data(lib, steps=3):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal((4, 3)), dtype=lib.float32) for _ in range(steps)]


def _seeded(lib, module):
    """The same parameter values in both libraries (their random generators differ)."""
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for parameter in module.parameters():
            parameter.copy_(lib.tensor(rng.uniform(-0.5, 0.5, tuple(parameter.shape)), dtype=lib.float32))
    return module


def _model(lib):
    return _seeded(lib, lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1)))


def _flat(parameters):
    return np.concatenate([p.detach().numpy().ravel() for p in parameters])


def running_total_with_retain_graph(lib):
    w = lib.zeros(4, 3, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    total_loss = 0
    for x in _data(lib):
        optimizer.zero_grad()
        loss = (x + w).pow(2).mean()  # pow saves x + w, never w itself: torch raises nothing, the graph grows
        total_loss += loss
        total_loss.backward(retain_graph=True)
        optimizer.step()
    return w.detach().numpy()


def running_total_of_a_model_with_retain_graph(lib):
    model = _model(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    total_loss = 0
    for x in _data(lib):
        optimizer.zero_grad()
        total_loss += model(x).pow(2).mean()
        total_loss.backward(retain_graph=True)
        optimizer.step()


def _train_logging(lib, log):
    """A correct training loop that calls ``log(step, loss)`` after each step, and returns its weight."""
    w = lib.zeros(4, 3, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    for step, x in enumerate(_data(lib)):
        optimizer.zero_grad()
        loss = (x + w).pow(2).mean()
        loss.backward()
        optimizer.step()
        log(step, loss)
    return w


def logged_running_total(lib):
    """The plain logging mistake: the total is never backpropagated, and keeps every iteration's graph alive."""
    total_loss = 0

    def log(step, loss):
        nonlocal total_loss
        total_loss += loss

    w = _train_logging(lib, log)
    return np.append(w.detach().numpy(), total_loss.item())


def logged_losses_stored_in_a_tensor(lib):
    losses = lib.zeros(3)

    def log(step, loss):
        losses[step] = loss

    _train_logging(lib, log)
    return losses.detach().numpy()


def rnn_state_carried_with_retain_graph(lib):
    cell = _seeded(lib, lib.nn.RNNCell(3, 4))
    optimizer = lib.optim.SGD(cell.parameters(), lr=0.1)
    h = lib.zeros(4, 4)
    for x in _data(lib):
        optimizer.zero_grad()
        h = cell(x, h)
        loss = h.pow(2).mean()
        loss.backward(retain_graph=True)
        optimizer.step()
    return loss.item()


def rnn_state_without_saved_parameters(lib):
    w = lib.zeros(4, 3, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    h = lib.zeros(4, 3)
    for x in _data(lib):
        optimizer.zero_grad()
        h = lib.tanh(h + x + w)  # tanh saves its result, never w: torch raises nothing and the graph just grows
        loss = h.sum()
        loss.backward(retain_graph=True)
        optimizer.step()
    return w.detach().numpy()


def rnn_state_detached(lib):
    w = lib.zeros(4, 3, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    h = lib.zeros(4, 3)
    for x in _data(lib):
        optimizer.zero_grad()
        h = lib.tanh(h.detach() + x + w)
        h.sum().backward()
        optimizer.step()
    return w.detach().numpy()


def gan_with_retain_graph(lib):
    generator = _seeded(lib, lib.nn.Linear(2, 3))
    discriminator = _seeded(lib, lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Sigmoid()))
    opt_g = lib.optim.Adam(generator.parameters(), lr=0.01)
    opt_d = lib.optim.Adam(discriminator.parameters(), lr=0.01)
    bce = lib.nn.BCELoss()
    for real in _data(lib):
        fake = generator(lib.ones(4, 2))
        opt_d.zero_grad()
        d_loss = bce(discriminator(real), lib.ones(4, 1)) + bce(discriminator(fake), lib.zeros(4, 1))
        d_loss.backward(retain_graph=True)
        opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(discriminator(fake), lib.ones(4, 1))  # reaches the generator's nodes, made before opt_d's step
        g_loss.backward()
        opt_g.step()
    return [d_loss.item(), g_loss.item()]


def gan_with_detach(lib):
    generator = _seeded(lib, lib.nn.Linear(2, 3))
    discriminator = _seeded(lib, lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Sigmoid()))
    opt_g = lib.optim.SGD(generator.parameters(), lr=0.1)
    opt_d = lib.optim.SGD(discriminator.parameters(), lr=0.1)
    bce = lib.nn.BCELoss()
    for real in _data(lib):
        fake = generator(lib.ones(4, 2))
        opt_d.zero_grad()
        bce(discriminator(real), lib.ones(4, 1)).backward()
        bce(discriminator(fake.detach()), lib.zeros(4, 1)).backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(discriminator(fake), lib.ones(4, 1))
        g_loss.backward()
        opt_g.step()
    return g_loss.item()


def two_losses_backward_separately(lib):
    model = _model(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for x in _data(lib):
        optimizer.zero_grad()
        out = model(x)
        out.pow(2).mean().backward(retain_graph=True)
        out.abs().mean().backward()
        optimizer.step()
    return _flat(model.parameters())


def gradient_accumulation(lib):
    model = _model(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        for x in _data(lib):
            (model(x).pow(2).mean() / 3).backward()
        optimizer.step()
    return _flat(model.parameters())


def gradient_accumulation_of_a_summed_loss(lib):
    """A total of losses backpropagated once, between two steps: the `+=` of a total made after the last step."""
    model = _model(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        total, in_place = 0, lib.zeros(())
        for x in _data(lib):
            loss = model(x).pow(2).mean()
            total += loss
            in_place += loss / 3
        (total + in_place).backward()
        optimizer.step()
    return _flat(model.parameters())


def logged_total_of_numbers(lib):
    total_loss, detached = 0, lib.zeros(())

    def log(step, loss):
        nonlocal total_loss, detached
        total_loss += loss.item()
        detached += loss.detach()

    _train_logging(lib, log)
    return [total_loss, detached.item()]


def gradient_penalty_in_a_closure(lib):
    model = _model(lib)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for batch in _data(lib):
        def closure(x=batch):
            optimizer.zero_grad()
            x.requires_grad_(True)
            out = model(x).sum()
            (grad,) = lib.autograd.grad(out, x, create_graph=True)
            loss = out + grad.pow(2).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
    return _flat(model.parameters())


def lbfgs_closure(lib):
    model = _model(lib)
    optimizer = lib.optim.LBFGS(model.parameters(), max_iter=4)
    x = _data(lib, 1)[0]
    for _ in range(2):
        def closure():
            optimizer.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            return loss

        loss = optimizer.step(closure)
    return loss.item()


def double_backward(lib):
    w = lib.ones(3, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.01)
    for x in _data(lib):
        optimizer.zero_grad()
        y = (w * x).pow(3).sum()
        (grad,) = lib.autograd.grad(y, w, create_graph=True)
        grad.pow(2).sum().backward()
        optimizer.step()
    return w.detach().numpy()


def view_of_a_parameter_made_before_the_loop(lib):
    w = lib.ones(3, 4, requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    transposed = w.t()  # saves nothing: its gradient is right whatever the step did
    for x in _data(lib):
        optimizer.zero_grad()
        (x @ transposed.t().t().t()).sum().backward()
        optimizer.step()
    return w.detach().numpy()


def _outcome(program, lib):
    """(result, error, warnings, caught): the error is compared up to the tensor it names, whose node torch
    reports as AsStrided where ndgrad says T."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = program(lib), None
        except RuntimeError as exc:
            result, error = None, without_hint(str(exc)).split(": [")[0]
    messages = [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)]
    return result, error, messages, caught


LEGITIMATE = [
    rnn_state_detached, gan_with_retain_graph, gan_with_detach, two_losses_backward_separately,
    gradient_accumulation, gradient_accumulation_of_a_summed_loss, logged_total_of_numbers,
    gradient_penalty_in_a_closure, lbfgs_closure, double_backward, view_of_a_parameter_made_before_the_loop,
]


@pytest.mark.parametrize("program", LEGITIMATE, ids=lambda program: program.__name__)
def test_programs_that_reuse_a_graph_on_purpose_get_no_warning(program):
    expected, _, torch_warnings, _ = _outcome(program, torch)
    actual, error, ndgrad_warnings, _ = _outcome(program, ndgrad)
    assert error is None and ndgrad_warnings == torch_warnings == []
    assert_close(actual, expected, **FLOAT32)


def _leak_warnings(caught):
    return [w for w in caught if str(w.message).startswith("ndgrad:")]


def _backward_leak_warnings(caught):
    return [w for w in caught if str(w.message).startswith("ndgrad: this backward")]


def _in_place_leak_warnings(caught):
    return [w for w in _leak_warnings(caught) if " extends in place a graph built before " in str(w.message)]


@pytest.mark.usefixtures("no_stale_optimizers")
def test_a_running_total_of_losses_warns_at_each_later_backward_naming_the_line_and_the_fix():
    expected, _, torch_warnings, _ = _outcome(running_total_with_retain_graph, torch)
    actual, error, _, caught = _outcome(running_total_with_retain_graph, ndgrad)
    assert error is None and torch_warnings == []
    assert_close(actual, expected, **FLOAT32)
    leaks = _backward_leak_warnings(caught)
    assert len(leaks) == 2  # the second and the third backward reach the iterations before them
    assert len(_in_place_leak_warnings(caught)) == 2  # and so do the second and the third `+=`
    message = str(leaks[0].message)
    assert "reaches nodes made before the last optimizer step (test_graph_leaks.py:" in message
    assert "carried across by `total_loss += loss` (test_graph_leaks.py:" in message
    assert "the oldest node reached was made by `loss = (x + w).pow(2).mean()`" in message
    assert "To keep a running total for logging, add the number instead: total_loss += loss.item()" in message
    assert leaks[0].filename == __file__ and leaks[0].category is UserWarning  # at the user's backward call
    assert "total_loss.backward(retain_graph=True)" in open(__file__).read().splitlines()[leaks[0].lineno - 1]


@pytest.mark.usefixtures("no_stale_optimizers")
@pytest.mark.parametrize("program, carrier", [
    (running_total_of_a_model_with_retain_graph, "`total_loss += model(x).pow(2).mean()`"),
    (rnn_state_carried_with_retain_graph, "`h = cell(x, h)`"),
])
def test_when_torch_raises_for_a_carried_graph_the_error_is_torch_s_and_its_hint_names_the_step(program, carrier):
    _, torch_error, torch_warnings, _ = _outcome(program, torch)
    _, error, messages, caught = _outcome(program, ndgrad)
    assert torch_warnings == [] and error == torch_error
    assert torch_error.startswith("one of the variables needed for gradient computation")
    # only backward passes that completed warn (the RNN's first steps saved no weights); the failing one is
    # explained by the hint after torch's error, which names the carrying line and the step that changed the weights
    leaks = _backward_leak_warnings(caught)
    assert messages == [str(leak.message) for leak in _leak_warnings(caught)]
    assert all(f"carried across by {carrier}" in str(leak.message) for leak in leaks)
    assert len(_in_place_leak_warnings(caught)) == len(messages) - len(leaks)  # the total's `+=`, if any
    with pytest.raises(RuntimeError) as raised:
        program(ndgrad)
    hint = str(raised.value).split("ndgrad hint: ", 1)[1]
    assert carrier in hint and "(`optimizer.step()`)" in hint
    assert "the optimizer's step changed the parameters after this graph was built" in hint


@pytest.mark.usefixtures("no_stale_optimizers")
@pytest.mark.parametrize("program, line, fix", [
    (logged_running_total, "`total_loss += loss`", "add the number instead: total_loss += loss.item()"),
    (logged_losses_stored_in_a_tensor, "`losses[step] = loss`", "store the number instead: losses[step] = loss.item()"),
])
def test_a_logged_total_never_backpropagated_warns_where_it_grows(program, line, fix):
    expected, _, torch_warnings, _ = _outcome(program, torch)
    actual, error, messages, caught = _outcome(program, ndgrad)
    assert error is None and torch_warnings == []
    assert_close(actual, expected, **FLOAT32)
    leaks = _in_place_leak_warnings(caught)
    assert len(leaks) == len(messages) == 2  # the second and third iteration add to the graphs before them
    message = str(leaks[0].message)
    assert message.startswith(f"ndgrad: {line} (test_graph_leaks.py:")
    assert "a graph built before the last optimizer step (test_graph_leaks.py:" in message
    assert message.endswith(fix)
    assert leaks[0].filename == __file__ and leaks[0].category is UserWarning  # at the user's line
    assert line.strip("`") in open(__file__).read().splitlines()[leaks[0].lineno - 1]


@pytest.mark.usefixtures("no_stale_optimizers")
def test_an_rnn_state_that_torch_lets_grow_silently_warns_with_the_detach_fix():
    expected, _, _, _ = _outcome(rnn_state_without_saved_parameters, torch)
    actual, error, _, caught = _outcome(rnn_state_without_saved_parameters, ndgrad)
    assert error is None
    assert_close(actual, expected, **FLOAT32)
    leaks = _leak_warnings(caught)
    assert len(leaks) == 2
    assert "carried across by `h = lib.tanh(h + x + w)` (test_graph_leaks.py:" in str(leaks[0].message)
    assert "cut its history there: h = h.detach()" in str(leaks[0].message)


@pytest.mark.usefixtures("no_stale_optimizers")
@pytest.mark.parametrize("program, fragments", [
    (rnn_state_without_saved_parameters,
     ["上一次优化器 step (test_graph_leaks.py:", "把计算历史带过来的是 `h = lib.tanh(h + x + w)`", "h = h.detach()"]),
    (logged_running_total,
     ["ndgrad：`total_loss += loss` (test_graph_leaks.py:", "原地扩展了一个在上一次优化器 step (test_graph_leaks.py:",
      "请改为累加数值：total_loss += loss.item()"]),
], ids=["at the backward", "at the sum"])
def test_the_warning_speaks_the_hint_language(program, fragments):
    ndgrad.set_hint_language("zh")
    try:
        _, error, _, caught = _outcome(program, ndgrad)
    finally:
        ndgrad.set_hint_language("en")
    assert error is None
    messages = [str(w.message) for w in caught if str(w.message).startswith("ndgrad：")]
    assert len(messages) == 2
    assert all(fragment in messages[0] for fragment in fragments)


@pytest.mark.usefixtures("no_stale_optimizers")
def test_the_warning_can_be_switched_off():
    ndgrad.autograd.set_graph_leak_warning(False)
    try:
        _, _, _, caught = _outcome(running_total_with_retain_graph, ndgrad)
        _, _, _, caught_logging = _outcome(logged_running_total, ndgrad)
    finally:
        ndgrad.autograd.set_graph_leak_warning(True)
    assert _leak_warnings(caught) == _leak_warnings(caught_logging) == []
    assert ndgrad.autograd.is_graph_leak_warning_enabled()
