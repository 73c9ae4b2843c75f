"""Sample builders for the ops of ndgrad.ops.decompositions, and the input shapes the linalg builders share. Inputs
are made well conditioned inside the call (a drawn matrix plus a multiple of the identity, or a A^T + I), so that
gradients flow through the construction."""

from ndgrad.ops import decompositions as d

from ..samples import C, Call, Case, T, draw


def shifted(lib, a, shift=5.0):
    """a + shift I: far from singular for entries of a in [-2, 2]."""
    return a + shift * lib.eye(a.shape[-1], dtype=a.dtype)


def spd(lib, a):
    """a a^H + I: Hermitian (for real a, symmetric) positive definite."""
    return a @ a.mH + lib.eye(a.shape[-1], dtype=a.dtype)


def square_cases(op, rng, calls, shapes=(((3, 3), C), ((2, 3, 3), C), ((3, 3), T), ((1, 1), C))):
    return [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout in shapes for call in calls]


def cholesky_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.cholesky($ $^H + I)", lambda lib, a: lib.linalg.cholesky(spd(lib, a))),
        Call("linalg.cholesky($ $^H + I, upper=True)", lambda lib, a: lib.linalg.cholesky(spd(lib, a), upper=True)),
        Call("linalg.cholesky_ex($ $^H + I)", lambda lib, a: lib.linalg.cholesky_ex(spd(lib, a))),
        Call("linalg.cholesky_ex($ $^H + I, upper=True, check_errors=True)",
             lambda lib, a: lib.linalg.cholesky_ex(spd(lib, a), upper=True, check_errors=True)),
    ])


def spread(lib, a):
    """0.1 (a + a^H) + diag(0, 2, 4, ...): Hermitian with well-separated eigenvalues. Eigenvector signs are
    LAPACK's choice; near-diagonal inputs are where NumPy's and torch's choices agree."""
    return 0.1 * (a + a.mH) + lib.diag_embed(lib.arange(a.shape[-1]) * 2)


def eigh_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.eigh($ + $^H)[0]", lambda lib, a: lib.linalg.eigh(a + a.mH)[0]),
        Call("linalg.eigh(spread($))[::-1]", lambda lib, a: tuple(lib.linalg.eigh(spread(lib, a)))[::-1]),
        Call("linalg.eigh(spread($), 'U')", lambda lib, a: lib.linalg.eigh(spread(lib, a), "U")),
        Call("linalg.eigvalsh($ + $^H)", lambda lib, a: lib.linalg.eigvalsh(a + a.mH)),
    ]) + [  # a non-symmetric input: only the upper triangle is read, but PyTorch's gradient is not triangular,
        # so it is checked against torch, not against finite differences
        Case(op, (draw(rng, (3, 3)),), Call("linalg.eigvalsh($, UPLO='U')",
                                           lambda lib, a: lib.linalg.eigvalsh(a, UPLO="U")), smooth=False),
    ]


def diagonal_heavy(lib, a):
    """0.1 a + diag(2k, ..., 4, 2): distinct singular values, and singular vectors whose signs NumPy and torch
    (both LAPACK gesdd) choose alike."""
    m, n = a.shape[-2:]
    return 0.1 * a + lib.eye(m, n, dtype=a.dtype) * (2 * lib.arange(n, 0, -1))


def svd_cases(op, rng):
    def svd(full_matrices, output=None):
        def call(lib, a):
            U, S, Vh = lib.linalg.svd(diagonal_heavy(lib, a), full_matrices=full_matrices)
            if a.is_complex():  # a loss must not depend on the vectors' phases: use their moduli (S first, so the
                return S, U.abs(), Vh.abs()  # first output still comes from svd)
            result = (U, S, Vh)
            return result if output is None else result[output:] + result[:output]
        return Call(f"linalg.svd(diagonal_heavy($), full_matrices={full_matrices}) from output {output}", call)

    def torch_svd(some):
        return Call(f"svd(diagonal_heavy($), some={some})", lambda lib, a: lib.svd(diagonal_heavy(lib, a), some=some))

    calls = [svd(True), svd(False, 1), svd(False, 2), svd(True, 2), torch_svd(True)]
    return square_cases(op, rng, calls) + [
        Case(op, (draw(rng, s),), Call("linalg.svdvals($)", lambda lib, a: lib.linalg.svdvals(a)))
        for s in [(3, 3), (4, 2), (2, 4), (2, 3, 2)]
    ] + [
        # tall only: for wide inputs the two libraries' LAPACK calls choose different signs
        Case(op, (draw(rng, s),), svd(False, 1)) for s in [(4, 2), (3, 1), (2, 3, 2)]
    ] + [  # only S is used: the vectors' gradients are absent, not zero, even for repeated singular values
        Case(op, (draw(rng, (3, 3)),), Call("linalg.svd($ - $ + I)[1]",
                                           lambda lib, a: lib.linalg.svd(a - a + lib.eye(3, dtype=a.dtype))[1]),
             smooth=False),
        Case(op, (draw(rng, (3, 2)),), Call("svd(diagonal_heavy($), some=False)[1:]",
                                           lambda lib, a: tuple(lib.svd(diagonal_heavy(lib, a), some=False))[1:])),
        Case(op, (draw(rng, (3, 2)),), Call("svd(diagonal_heavy($), compute_uv=False)[1::-1]", lambda lib, a: tuple(
            lib.svd(diagonal_heavy(lib, a), compute_uv=False))[1::-1])),
    ]


def qr_cases(op, rng):
    def qr(mode, swap=False):
        def call(lib, a):
            Q, R = lib.linalg.qr(diagonal_heavy(lib, a), mode=mode)
            return (R, Q) if swap else (Q, R)
        return Call(f"linalg.qr(diagonal_heavy($), {mode!r})" + ("[::-1]" if swap else ""), call)

    shapes = [(3, 3), (4, 2), (2, 4), (2, 3, 2), (2, 2, 3), (1, 1)]
    return [Case(op, (draw(rng, s),), call) for s in shapes for call in [qr("reduced"), qr("reduced", True)]] + [
        Case(op, (draw(rng, (2, 3)),), qr("complete")), Case(op, (draw(rng, (3, 3)),), qr("complete", True)),
        Case(op, (draw(rng, (3, 3), layout=T),), qr("reduced", True)),
        Case(op, (draw(rng, (3, 2)),), Call("qr(diagonal_heavy($))", lambda lib, a: lib.qr(diagonal_heavy(lib, a)))),
        Case(op, (draw(rng, (2, 3)),), Call("qr(diagonal_heavy($), some=False)[::-1]",
                                           lambda lib, a: tuple(lib.qr(diagonal_heavy(lib, a), some=False))[::-1])),
    ]


def householder_product_cases(op, rng):
    def call(name):
        function = (lambda lib: lib.linalg.householder_product) if name == "householder" else (lambda lib: lib.orgqr)
        return Call(f"{name}($, $)", lambda lib, a, tau: function(lib)(a, tau))

    pairs = [((4, 3), (3,)), ((3, 3), (2,)), ((2, 3, 2), (2, 2)), ((1, 1), (1,))]
    return [Case(op, (draw(rng, s), draw(rng, t)), call("householder")) for s, t in pairs] + [
        Case(op, (draw(rng, (4, 3), layout=T), draw(rng, (2,))), call("orgqr")),
    ]


BUILDERS = {
    d.LinalgQr: qr_cases,
    d.LinalgSvd: svd_cases,
    d.LinalgCholeskyEx: cholesky_cases,
    d.LinalgEigh: eigh_cases,
    d.LinalgHouseholderProduct: householder_product_cases,
}
