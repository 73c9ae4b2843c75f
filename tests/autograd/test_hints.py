"""ndgrad's hints after PyTorch's errors, on real mistakes. Each program runs from a file with torch and with ndgrad:
the error type and the text before the hint must be exactly torch's; the hint must name the user's own lines."""

import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ndgrad
from ndgrad.autograd import provenance
from ndgrad.autograd.hints import PREFIXES, set_hint_language, set_hints_enabled, without_hint

_PROGRAMS = itertools.count()  # a new file name per run: linecache keeps what it read under the old one


@pytest.fixture(autouse=True)
def _default_hints():
    provenance._CUTS.recent.clear()  # cuts left by earlier tests must not show up in this test's hints
    yield
    set_hint_language("en")
    set_hints_enabled(True)


def run_program(tmp_path, lib, code):
    """Run ``code`` from a real file with ``lib`` as ``torch``: (file name, exception type, message)."""
    path = tmp_path / f"program_{next(_PROGRAMS)}.py"
    path.write_text(code)
    try:
        exec(compile(code, str(path), "exec"), {"torch": lib})
    except Exception as error:  # noqa: BLE001 - the error is what the test compares
        return path.name, type(error), str(error)
    raise AssertionError(f"{lib.__name__} accepted the program")


def hint_of(tmp_path, code):
    """The hint ndgrad adds to the error ``code`` ends with, after checking that the rest is torch's error."""
    _, torch_type, torch_message = run_program(tmp_path, torch, code)
    name, our_type, message = run_program(tmp_path, ndgrad, code)
    assert our_type is torch_type is RuntimeError
    assert without_hint(message) == torch_message.replace("torch.", "ndgrad.")
    prefix = f"\n\n{PREFIXES['en']}"
    assert message.count(prefix) == 1, message
    return name, message.split(prefix)[1]


# ---- the in-place error -----------------------------------------------------------------------------------------
IN_PLACE = [  # (the line that saves, the node that saves, the line that modifies)
    ("z = y * y", "MulBackward0", "y.add_(1)"),
    ("z = y * y", "MulBackward0", "y *= 3"),
    ("z = y.exp()", "ExpBackward0", "z.mul_(2)"),  # the saved tensor is the op's own output
    ("z = y.sigmoid()", "SigmoidBackward0", "z[0] = 0"),
    ("z = y.pow(3)", "PowBackward0", "y.zero_()"),
]


@settings(max_examples=8, deadline=None)
@given(case=st.sampled_from(IN_PLACE), rows=st.integers(1, 3), cols=st.integers(1, 3))
def test_in_place_hint_names_the_line_that_saved_and_the_line_that_modified(tmp_path_factory, case, rows, cols):
    save, node, modify = case
    code = f"x = torch.ones({rows}, {cols}, requires_grad=True)\ny = x * 2\n{save}\n{modify}\nz.sum().backward()\n"
    name, hint = hint_of(tmp_path_factory.mktemp("inplace"), code)
    lines = hint.splitlines()
    assert lines[0].startswith(f"{node} saved a tensor for backward")
    assert lines[1] == f"  saved at     {name}:3 (`{save}`)"
    assert lines[2] == f"  modified at  {name}:4 (`{modify}`)"
    assert lines[3].startswith("Fix: make that change out of place")


def test_in_place_hint_names_the_last_of_several_writes(tmp_path):
    code = "x = torch.ones(3, requires_grad=True)\ny = x + 0\nz = y * y\ny.add_(1)\ny.mul_(2)\nz.sum().backward()\n"
    name, hint = hint_of(tmp_path, code)
    assert f"  modified at  {name}:5 (`y.mul_(2)`)" in hint.splitlines()


def test_in_place_hint_keeps_torch_s_anomaly_text_before_it(tmp_path):
    code = (
        "x = torch.ones(3, requires_grad=True)\nwith torch.autograd.set_detect_anomaly(True):\n"
        "    z = x.exp()\n    z.add_(1)\n    z.sum().backward()\n"
    )
    with pytest.warns(UserWarning):  # anomaly mode's trace of the forward call, from both libraries
        name, hint = hint_of(tmp_path, code)
    assert f"  modified at  {name}:4 (`z.add_(1)`)" in hint.splitlines()


# ---- the second-backward error ----------------------------------------------------------------------------------
TWICE = "a = torch.ones(2, requires_grad=True)\nb = a.exp().sum()\nb.backward()\nb.backward()\n"


def test_second_backward_in_a_loop_says_the_graph_is_carried_across_iterations(tmp_path):
    code = (
        "w = torch.ones(3, requires_grad=True)\nh = torch.zeros(3)\nfor step in range(3):\n"
        "    h = h * w + 1\n    loss = h.sum()\n    loss.backward()\n"
    )
    name, hint = hint_of(tmp_path, code)
    first, advice = hint.splitlines()
    assert first == f"the backward at {name}:6 (`loss.backward()`) already freed the values saved by MulBackward0, " \
        f"made at {name}:4 (`h = h * w + 1`)."
    assert advice.startswith("Both backward calls ran this line, so a loop reuses a graph built in an earlier")
    assert "(`h = h.detach()`)" in advice and "retain_graph=True is usually the wrong fix" in advice


@pytest.mark.parametrize("second", ["(b * 3).backward()", "torch.autograd.grad(b * 3, a)"])
def test_second_backward_elsewhere_says_two_passes_share_the_graph(tmp_path, second):
    code = f"a = torch.ones(2, requires_grad=True)\nb = a.exp().sum()\n(b * 2).backward()\n{second}\n"
    name, hint = hint_of(tmp_path, code)
    first, advice = hint.splitlines()
    assert first == f"the backward at {name}:3 (`(b * 2).backward()`) already freed the values saved by " \
        f"ExpBackward0, made at {name}:2 (`b = a.exp().sum()`)."
    assert advice.startswith("Two backward passes share this part of the graph. Fix: add the losses")


def test_retain_graph_on_the_first_backward_frees_nothing_to_name(tmp_path):
    code = (
        "a = torch.ones(2, requires_grad=True)\nb = a.exp().sum()\nb.backward(retain_graph=True)\nb.backward()\n"
        "b.backward()\n"
    )
    name, hint = hint_of(tmp_path, code)
    assert hint.startswith(f"the backward at {name}:4 (`b.backward()`) already freed")


def test_second_backward_without_provenance_still_explains(tmp_path):
    provenance.set_provenance_enabled(False)
    try:
        _, hint = hint_of(tmp_path, TWICE)
    finally:
        provenance.set_provenance_enabled(True)
    first, advice = hint.splitlines()
    assert first == "an earlier backward already freed the values saved by ExpBackward0, made at (not recorded)."
    assert advice.startswith("In a loop, this usually means that the loop reuses a graph built in an earlier")


# ---- "element 0 of tensors does not require grad" ---------------------------------------------------------------
CUT_AT_THE_ROOT = [
    ("with torch.no_grad():\n    y = x * 2", "this tensor was computed with gradient recording off (inside no_grad())"),
    ("with torch.inference_mode():\n    y = x * 2", "this tensor was computed with gradient recording off (inside "
     "inference_mode())"),
    ("if True:\n    y = x.detach()", "this tensor was cut out of the graph by detach()"),
    ("if True:\n    y = x.data", "this tensor is the .data of a tensor that requires grad"),
]


@pytest.mark.parametrize("cut, words", CUT_AT_THE_ROOT)
def test_a_root_cut_from_the_graph_names_its_own_line(tmp_path, cut, words):
    code = f"x = torch.ones(3, requires_grad=True)\n{cut}\ny.backward(torch.ones(3))\n"
    name, hint = hint_of(tmp_path, code)
    source = cut.splitlines()[1].strip()
    assert hint.startswith(words) and f" at {name}:3 (`{source}`)" in hint


CUT_UPSTREAM = [
    ("d = x.detach()", "d.sum()", "detach()"),
    ("v = x.sum().item()", "torch.tensor(v) * 2", ".item() (a Python number has no graph)"),
    ("k = x.to(torch.int64)", "k.float().sum()", "cast to an integer dtype"),
]


@pytest.mark.parametrize("cut, use, how", CUT_UPSTREAM)
def test_a_cut_further_up_is_listed_among_the_latest_cuts(tmp_path, cut, use, how):
    code = f"x = torch.ones(3, requires_grad=True)\n{cut}\nloss = {use}\nloss.backward()\n"
    name, hint = hint_of(tmp_path, code)
    lines = hint.splitlines()
    assert lines[0] == "it was computed from tensors that do not require grad. The latest places where a tensor " \
        "that required grad left the graph:"
    assert lines[1] == f"  {how}: {name}:2 (`{cut}`)"


def test_cuts_made_by_backward_itself_and_repeats_are_not_listed(tmp_path):
    code = (
        "x = torch.ones(3, requires_grad=True)\nfor _ in range(5):\n    d = x.detach()\n(x * x).sum().backward()\n"
        "loss = d.sum()\nloss.backward()\n"
    )
    name, hint = hint_of(tmp_path, code)
    assert hint.splitlines()[1:] == [f"  detach(): {name}:3 (`d = x.detach()`)"]


def test_nothing_that_required_grad_says_so(tmp_path):
    _, hint = hint_of(tmp_path, "w = torch.ones(3)\nloss = (w * 2).sum()\nloss.backward()\n")
    assert hint.startswith("no tensor that required grad was seen leaving the graph, so most likely none of the")


def test_without_provenance_an_uncut_root_gets_no_hint(tmp_path):
    provenance.set_provenance_enabled(False)
    try:
        code = "x = torch.ones(3, requires_grad=True)\nd = x.detach()\nd.sum().backward()\n"
        assert run_program(tmp_path, ndgrad, code)[1:] == (RuntimeError, run_program(tmp_path, torch, code)[2])
    finally:
        provenance.set_provenance_enabled(True)


def test_element_index_is_torch_s_for_later_outputs(tmp_path):
    code = "x = torch.ones(1, requires_grad=True)\nd = x.detach()\ntorch.autograd.backward([x.sum(), d.sum()])\n"
    name, hint = hint_of(tmp_path, code)
    assert f"  detach(): {name}:2 (`d = x.detach()`)" in hint.splitlines()


# ---- language and switch ----------------------------------------------------------------------------------------
def test_hints_in_chinese(tmp_path):
    set_hint_language("zh")
    code = "x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y * y\ny.add_(1)\nz.sum().backward()\n"
    _, torch_type, torch_message = run_program(tmp_path, torch, code)
    name, _, message = run_program(tmp_path, ndgrad, code)
    assert without_hint(message) == torch_message.replace("torch.", "ndgrad.")
    hint = message.split("\n\nndgrad 提示：")[1].splitlines()
    assert hint[0] == "MulBackward0 为反向传播保存了一个张量，但在反向传播用到它之前，它被原地操作（in-place）修改了。"
    assert hint[1:3] == [f"  保存于  {name}:3 (`z = y * y`)", f"  修改于  {name}:4 (`y.add_(1)`)"]
    assert hint[3].startswith("修正：")


def test_every_text_has_both_languages_with_the_same_fields():
    from string import Formatter

    from ndgrad.autograd.hints import TEXTS

    for key, versions in TEXTS.items():
        assert set(versions) == {"en", "zh"}, key
        fields = [{name for _, name, _, _ in Formatter().parse(text) if name} for text in versions.values()]
        assert fields[0] == fields[1], key


def test_bad_language_is_a_value_error():
    with pytest.raises(ValueError, match=r"^hint language must be one of 'en', 'zh', but got 'fr'$"):
        ndgrad.set_hint_language("fr")
    assert ndgrad.autograd.hints.get_hint_language() == "en"


def test_hints_can_be_switched_off(tmp_path):
    ndgrad.set_hints_enabled(False)
    assert run_program(tmp_path, ndgrad, TWICE)[1:] == (RuntimeError, run_program(tmp_path, torch, TWICE)[2])
