"""Sample builders for the ops of ndgrad.ops.solvers: inv, solve (and their _ex forms), solve_triangular, lstsq and
pinv. Matrices are shifted away from singular inside the call, as in the decompositions' builders."""

from ndgrad.ops import solvers as s

from ..samples import Call, Case, T, draw
from .decompositions import diagonal_heavy, shifted, spd, square_cases


def inv_cases(op, rng):
    return square_cases(op, rng, [
        Call("linalg.inv($ + 5I)", lambda lib, a: lib.linalg.inv(shifted(lib, a))),
        Call("inverse($ + 5I)", lambda lib, a: lib.inverse(shifted(lib, a))),
        Call("linalg.inv_ex($ + 5I)", lambda lib, a: lib.linalg.inv_ex(shifted(lib, a))),
        Call("linalg.inv_ex($ + 5I, check_errors=True)",
             lambda lib, a: lib.linalg.inv_ex(shifted(lib, a), check_errors=True)),
    ])


def solve_cases(op, rng):
    def solve(left=True, ex=False):
        text = f"linalg.solve{'_ex' if ex else ''}($ + 5I, $" + ("" if left else ", left=False") + ")"
        function = (lambda lib: lib.linalg.solve_ex) if ex else (lambda lib: lib.linalg.solve)
        return Call(text, lambda lib, a, b: function(lib)(shifted(lib, a), b, left=left))

    pairs = [
        ((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((2, 3, 3), (3, 2), True),
        ((1, 1), (1, 1), True), ((3, 3), (2, 3), False), ((2, 3, 3), (1, 2, 3), False),
    ]
    return [Case(op, (draw(rng, s), draw(rng, t)), solve(left)) for s, t, left in pairs] + [
        Case(op, (draw(rng, (3, 3), layout=T), draw(rng, (3, 2), layout=T)), solve()),
        Case(op, (draw(rng, (3, 3)), draw(rng, (3, 2))), solve(ex=True)),
        Case(op, (draw(rng, (2, 3, 3)), draw(rng, (3,))), solve(ex=True)),
        Case(op, (draw(rng, (3, 3)), draw(rng, (2, 3))), solve(left=False, ex=True)),
    ]


def solve_triangular_cases(op, rng):
    def solve(upper, left=True, unitriangular=False):
        text = f"linalg.solve_triangular($ + 3I, $, upper={upper}, left={left}, unitriangular={unitriangular})"
        return Call(text, lambda lib, a, b: lib.linalg.solve_triangular(
            shifted(lib, a, 3.0), b, upper=upper, left=left, unitriangular=unitriangular))

    cases = [
        ((3, 3), (3, 2), solve(True)), ((3, 3), (3, 2), solve(False)), ((3, 3), (2, 3), solve(True, left=False)),
        ((3, 3), (3, 1), solve(True, unitriangular=True)), ((3, 3), (2, 3), solve(False, False, True)),
        ((2, 2, 2), (2, 1), solve(False)), ((2, 2), (3, 2, 1), solve(True)), ((1, 1), (1, 2), solve(False)),
    ]
    return [Case(op, (draw(rng, a), draw(rng, b)), call) for a, b, call in cases] + [
        Case(op, (draw(rng, (3, 3), layout=T), draw(rng, (3, 2), layout=T)), solve(True)),
    ]


def well_posed(lib, a):
    """a + 3 I (I with a's shape): well conditioned, also when a is not square."""
    m, n = a.shape[-2:]
    return a + 3 * lib.eye(m, n, dtype=a.dtype)


def lstsq_cases(op, rng):
    def lstsq(driver=None, rcond=None, residuals_first=False):
        def call(lib, a, b):
            result = lib.linalg.lstsq(well_posed(lib, a), b, rcond, driver=driver)
            return (result[1], result[0], *result[2:]) if residuals_first else result
        return Call(f"linalg.lstsq(well_posed($), $, {rcond}, driver={driver!r})"
                    + (" residuals first" if residuals_first else ""), call)

    shapes = [
        ((4, 2), (4, 3), None), ((3, 3), (3, 2), "gels"), ((2, 4), (2, 1), None), ((2, 3), (2, 2), "gels"),
        ((4, 2), (4,), "gelsy"), ((2, 3, 2), (1, 3, 1), None), ((4, 3), (4, 2), "gelsd"), ((3, 2), (3, 1), "gelss"),
    ]
    return [Case(op, (draw(rng, a), draw(rng, b)), lstsq(driver)) for a, b, driver in shapes] + [
        Case(op, (draw(rng, a), draw(rng, b)), lstsq(driver, residuals_first=True))
        for a, b, driver in [((4, 2), (4, 2), "gels"), ((4, 2), (4,), "gelsd"), ((2, 3, 2), (2, 3, 1), "gelss")]
    ] + [
        Case(op, (draw(rng, (3, 2)), draw(rng, (3, 2))), lstsq("gelsd", rcond=0.5)),
        Case(op, (draw(rng, (4, 3), layout=T), draw(rng, (4, 2), layout=T)), lstsq()),
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
        Case(op, (draw(rng, (3, 2)),), Call("pinverse(diagonal_heavy($))",
                                           lambda lib, a: lib.pinverse(diagonal_heavy(lib, a)))),
        Case(op, (draw(rng, (2, 3)),), Call("diagonal_heavy($).pinverse(0.1)",
                                           lambda lib, a: diagonal_heavy(lib, a).pinverse(0.1))),
    ]


BUILDERS = {
    s.LinalgInvEx: inv_cases,
    s.LinalgSolveEx: solve_cases,
    s.LinalgSolveTriangular: solve_triangular_cases,
    s.LinalgLstsq: lstsq_cases,
    s.LinalgPinv: pinv_cases,
}
