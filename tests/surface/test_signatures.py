"""ndgrad's public functions, methods and classes take torch's parameters: names, kinds and defaults, overload by
overload (see tests/surface/signatures.py), except where signature_differences.KNOWN says why not."""

import functools
import warnings

from tests.surface.names import NAMESPACES, resolve, torch_names
from tests.surface.signature_differences import KNOWN
from tests.surface.signatures import differences


@functools.cache
def _all_differences():
    found = {}
    with warnings.catch_warnings():  # reading deprecated names warns
        warnings.simplefilter("ignore")
        for torch_namespace, ndgrad_namespace in NAMESPACES:
            ours = resolve(ndgrad_namespace)
            if ours is None:
                continue
            for name in torch_names(torch_namespace):
                if hasattr(ours, name):
                    lines = differences(torch_namespace, ndgrad_namespace, name)
                    if lines:
                        found[f"{torch_namespace}.{name}"] = lines
    return found


def test_signatures_are_torchs():
    unexplained = {name: lines for name, lines in _all_differences().items() if name not in KNOWN}
    assert not unexplained, "\n".join(f"{name}: {' | '.join(lines)}" for name, lines in unexplained.items())


def test_every_listed_difference_is_still_there():
    gone = sorted(set(KNOWN) - set(_all_differences()))
    assert not gone, f"no longer different from torch, so take them off signature_differences.KNOWN: {gone}"


def test_the_check_sees_a_changed_default():
    """The comparison itself: a parameter renamed or a default changed is a difference."""
    from tests.surface import signatures

    theirs = signatures.torch_overloads("torch", "sum")
    assert any(p[0] == ("input", "positional", "-") for p, _ in theirs)
    ours = signatures.ndgrad_overloads("ndgrad", "sum")
    changed = [tuple(("keepdims", kind, default) if name == "keepdim" else (name, kind, default)
                     for name, kind, default in parameters) for parameters, _ in ours]
    assert not any(c == t for c in changed for t, _ in theirs if any(n == "keepdim" for n, *_ in t))
    assert all(any(o == t for t, _ in theirs) for o, _ in ours)
