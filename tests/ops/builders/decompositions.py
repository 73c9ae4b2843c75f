"""Sample builders for the ops of ndgrad.ops.decompositions. Inputs are made well conditioned inside the call (a drawn
matrix plus a multiple of the identity, or a A^T + I), so that gradients flow through the construction."""

from ndgrad.ops import decompositions as d

from ..samples import C, Call, Case, T, draw


def shifted(lib, a, shift=5.0):
    """a + shift I: far from singular for entries of a in [-2, 2]."""
    return a + shift * lib.eye(a.shape[-1], dtype=a.dtype)


def spd(lib, a):
    """a a^T + I: symmetric positive definite."""
    return a @ a.mT + lib.eye(a.shape[-1], dtype=a.dtype)


def square_cases(op, rng, calls, shapes=(((3, 3), C), ((2, 3, 3), C), ((3, 3), T), ((1, 1), C))):
    return [Case(op, (draw(rng, s, op.domain, layout),), call) for s, layout in shapes for call in calls]


def inv_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.inv($ + 5I)", lambda lib, a: lib.linalg.inv(shifted(lib, a))),
        Call("inverse($ + 5I)", lambda lib, a: lib.inverse(shifted(lib, a))),
    ])


def det_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.det($ + 5I)", lambda lib, a: lib.linalg.det(shifted(lib, a))),
        Call("det(-($ + 5I))", lambda lib, a: lib.det(-shifted(lib, a))),
        Call("($ + 5I).det()", lambda lib, a: shifted(lib, a).det()),
    ])


def slogdet_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.slogdet($ + 5I)[::-1]", lambda lib, a: tuple(lib.linalg.slogdet(shifted(lib, a)))[::-1]),
        Call("slogdet(-($ + 5I))[::-1]", lambda lib, a: tuple(lib.slogdet(-shifted(lib, a)))[::-1]),
        Call("($ + 5I).slogdet()[1]", lambda lib, a: shifted(lib, a).slogdet()[1]),
    ])


def solve_cases(op, rng):
    def solve(left=True):
        text = "linalg.solve($ + 5I, $" + ("" if left else ", left=False") + ")"
        return Call(text, lambda lib, a, b: lib.linalg.solve(shifted(lib, a), b, left=left))

    pairs = [
        ((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((2, 3, 3), (3, 2), True),
        ((1, 1), (1, 1), True), ((3, 3), (2, 3), False), ((2, 3, 3), (1, 2, 3), False),
    ]
    return [Case(op, (draw(rng, s), draw(rng, t)), solve(left)) for s, t, left in pairs] + [
        Case(op, (draw(rng, (3, 3), layout=T), draw(rng, (3, 2), layout=T)), solve()),
    ]


def cholesky_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.cholesky($ $^T + I)", lambda lib, a: lib.linalg.cholesky(spd(lib, a))),
        Call("linalg.cholesky($ $^T + I, upper=True)", lambda lib, a: lib.linalg.cholesky(spd(lib, a), upper=True)),
    ])


def spread(lib, a):
    """0.1 (a + a^T) + diag(0, 2, 4, ...): symmetric with well-separated eigenvalues. Eigenvector signs are
    LAPACK's choice; near-diagonal inputs are where NumPy's and torch's choices agree."""
    return 0.1 * (a + a.mT) + lib.diag_embed(lib.arange(a.shape[-1], dtype=a.dtype) * 2)


def eigh_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.eigh($ + $^T)[0]", lambda lib, a: lib.linalg.eigh(a + a.mT)[0]),
        Call("linalg.eigh(spread($))[::-1]", lambda lib, a: tuple(lib.linalg.eigh(spread(lib, a)))[::-1]),
        Call("linalg.eigh(spread($), 'U')", lambda lib, a: lib.linalg.eigh(spread(lib, a), "U")),
        Call("linalg.eigvalsh($ + $^T)", lambda lib, a: lib.linalg.eigvalsh(a + a.mT)),
    ]) + [  # a non-symmetric input: only the upper triangle is read, but PyTorch's gradient is not triangular,
        # so it is checked against torch, not against finite differences
        Case(op, (draw(rng, (3, 3)),), Call("linalg.eigvalsh($, UPLO='U')",
                                           lambda lib, a: lib.linalg.eigvalsh(a, UPLO="U")), smooth=False),
    ]


def diagonal_heavy(lib, a):
    """0.1 a + diag(2k, ..., 4, 2): distinct singular values, and singular vectors whose signs NumPy and torch
    (both LAPACK gesdd) choose alike."""
    m, n = a.shape[-2:]
    return 0.1 * a + lib.eye(m, n, dtype=a.dtype) * (2 * lib.arange(n, 0, -1, dtype=a.dtype))


def svd_cases(op, rng):
    def svd(full_matrices, output=None):
        def call(lib, a):
            result = tuple(lib.linalg.svd(diagonal_heavy(lib, a), full_matrices=full_matrices))
            return result if output is None else result[output:] + result[:output]
        return Call(f"linalg.svd(diagonal_heavy($), full_matrices={full_matrices}) from output {output}", call)

    calls = [svd(True), svd(False, 1), svd(False, 2), svd(True, 2)]
    return square_cases(op, rng, calls) + [
        Case(op, (draw(rng, s),), Call("linalg.svdvals($)", lambda lib, a: lib.linalg.svdvals(a)))
        for s in [(3, 3), (4, 2), (2, 4), (2, 3, 2)]
    ] + [
        # tall only: for wide inputs the two libraries' LAPACK calls choose different signs
        Case(op, (draw(rng, s),), svd(False, 1)) for s in [(4, 2), (3, 1), (2, 3, 2)]
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
    ]


def pinv_cases(op, rng):
    def pinv(**kwargs):
        text = ", ".join(["linalg.pinv(diagonal_heavy($)"] + [f"{k}={v!r}" for k, v in kwargs.items()]) + ")"
        return Call(text, lambda lib, a: lib.linalg.pinv(diagonal_heavy(lib, a), **kwargs))

    shapes = [(3, 3), (4, 2), (2, 4), (2, 3, 2), (2, 2, 3), (1, 1)]
    return [Case(op, (draw(rng, s),), pinv()) for s in shapes] + [
        Case(op, (draw(rng, (3, 3)),), pinv(rtol=0.1)), Case(op, (draw(rng, (2, 3)),), pinv(atol=0.5)),
        Case(op, (draw(rng, (3, 3)),), Call("linalg.pinv(spd($), hermitian=True)",
                                           lambda lib, a: lib.linalg.pinv(spd(lib, a), hermitian=True))),
    ]


def matrix_exp_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.matrix_exp($)", lambda lib, a: lib.linalg.matrix_exp(a)),
        Call("matrix_exp(2 $)", lambda lib, a: lib.matrix_exp(2 * a)),
        Call("$.matrix_exp()", lambda lib, a: a.matrix_exp()),
    ], shapes=(((3, 3), C), ((2, 2, 2), C), ((3, 3), T), ((1, 1), C)))


BUILDERS = {
    d.LinalgMatrixExp: matrix_exp_cases,
    d.LinalgPinv: pinv_cases,
    d.LinalgQr: qr_cases,
    d.LinalgSvd: svd_cases,
    d.LinalgInvEx: inv_cases,
    d.LinalgDet: det_cases,
    d.LinalgSlogdet: slogdet_cases,
    d.LinalgSolveEx: solve_cases,
    d.LinalgCholeskyEx: cholesky_cases,
    d.LinalgEigh: eigh_cases,
}
