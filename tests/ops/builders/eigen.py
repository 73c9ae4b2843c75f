"""Sample builders for ndgrad.ops.eigen: general square matrices (real or complex, batched, transposed), through
linalg.eig (its eigenvalues) and linalg.eigvals. Losses of the
eigenvectors, which must not depend on their phases, are tested in tests/ops/test_eigen.py."""

from ndgrad.ops import eigen

from ..samples import C, Call, Case, T, complexified, draw


def linalg(name):
    """linalg.eigvals(x), or the eigenvalues of linalg.eig(x) (its eigenvectors take no part in these tests)."""
    if name == "eig":
        return Call("linalg.eig($).eigenvalues", lambda lib, x: lib.linalg.eig(x).eigenvalues)
    return Call(f"linalg.{name}($)", lambda lib, x: getattr(lib.linalg, name)(x))


def eig_cases(op, rng):
    made = []
    for (shape, layout), name, complex_input in [
        (((3, 3), C), "eig", False), (((2, 2), T), "eigvals", False), (((2, 3, 3), C), "eig", False),
        (((3, 3), C), "eigvals", True), (((2, 2), C), "eig", True), (((1, 1), C), "eig", False),
    ]:
        input = draw(rng, shape, op.domain, layout)
        made.append(Case(op, (complexified(input, rng) if complex_input else input,), linalg(name)))
    return made


BUILDERS = {eigen.LinalgEig: eig_cases}
