"""Elementwise functions (unary, binary, with parameters), comparisons and logic, and Python's operators on tensors."""

from ..variations import calls, vary

UNARY = """abs neg negative positive reciprocal floor ceil trunc fix frac sign sgn exp exp2 expm1 log log2 log10 log1p
sqrt rsqrt square sigmoid sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc erfinv lgamma digamma
sinc relu selu conj conj_physical resolve_conj resolve_neg angle isnan isinf isposinf isneginf isfinite isreal
logical_not is_complex absolute is_conj is_neg""".split()
UNARY_INPLACE = "exp_ log_ sqrt_ sigmoid_ sin_ tanh_ erf_ relu_ selu_ celu_".split()
BINARY = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow atan2 hypot logaddexp
xlogy maximum minimum fmax fmin eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and
logical_or logical_xor""".split()
INTEGER_BINARY = "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()

WITH_PARAMETERS = [
    "lib.add(x, y, alpha=2)",
    "lib.sub(x, 1.5, alpha=0.5)",
    "lib.rsub(x, y, alpha=2)",
    "lib.div(x, y, rounding_mode='floor')",
    "lib.pow(x, 2)",
    "lib.pow(2.0, x)",
    "lib.clamp(x, min=0.2, max=0.5)",
    "lib.clamp(x, 0.2)",
    "lib.clip(x, min=y, max=None)",
    "lib.clamp_min(x, 0.3)",
    "lib.clamp_max(x, 0.3)",
    "lib.lerp(x, y, 0.5)",
    "lib.lerp(x, y, x)",
    "lib.polygamma(1, x)",
    "lib.round(x, decimals=1)",
    "lib.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)",
    "lib.isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False)",
    "lib.allclose(x, y, rtol=1e-05, atol=1e-08)",
    "lib.equal(x, y)",
    "lib.where(k, x, y)",
    "lib.where(k, x, 0.0)",
    "lib.where(k)",
    "lib.celu(x, alpha=1.0)",
    "lib.threshold(x, 0.5, 0.0)",
    "lib.hardshrink(x, lambd=0.5)",
    "lib.rrelu(x, lower=0.1, upper=0.3, training=False)",
    "lib.prelu(x, lib.tensor([0.25]))",
    "lib.polar(x, y)",
    "lib.complex(x, y)",
    "lib.view_as_real(z)",
    "lib.view_as_complex(lib.ones(2, 2))",
    "lib.real(z)",
    "lib.imag(z)",
    "lib.bitwise_not(i)",
    "lib.bitwise_and(k, True)",
]

OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "@", "<", "==", "&", "|", "^", "<<"]
OPERANDS = ["x", "i", "k", "z", "'a'", "None", "[1.0]", "bm", "e", "1j", "2**70"]
AUGMENTED = [
    "x += 'a'",
    "x += None",
    "x += bm",
    "i += x",
    "i /= 2",
    "i *= 1.5",
    "k += 1",
    "k -= k",
    "x //= z",
    "x **= z",
    "i <<= x",
    "i %= 0",
    "i //= 0",
    "x @= v",
    "w += 1",
    "e += x",
    "s += x",
    "x -= lib.ones(1, 3)",
    "u8 += 300",
]
UNARY_OPERATORS = ["-k", "~x", "~k", "~i", "+z", "abs(k)", "-e", "~z", "-u8", "abs(z)"]
PYTHON_PROTOCOLS = [
    "bool(x)",
    "bool(e)",
    "bool(s)",
    "int(x)",
    "int(s)",
    "float(x)",
    "float(z[0, 0])",
    "complex(s)",
    "len(s)",
    "len(x)",
    "iter(s)",
    "list(e)",
    "x.__index__()",
    "ti.__index__()",
    "[1, 2, 3][ti]",
    "[1, 2, 3][s]",
    "round(s)",
    "divmod(x, 2)",
    "x in x",
    "1.5 in x",
    "'a' in x",
    "x == None",
    "x != 'a'",
    "x < None",
    "max(x)",
    "sorted(v)",
    "sum(x)",
    "hash(s) == hash(s)",
    "x.__array__().shape",
    "np.asarray(x).dtype",
    "np.add(x, 1)",
    "1 + z * 2.5",
    "s * 2**70",
    "ti * 2**70",
    "i * 1e400",
    "u8 - 300",
]

HAND_WRITTEN = [
    "lib.add(x, 'x')",
    "lib.add('x', x)",
    "lib.add(1, 2)",
    "lib.add(x, y, alpha='x')",
    "lib.add(i, i, alpha=1.5)",
    "lib.add(k, k, alpha=2)",
    "lib.mul(x, None)",
    "lib.eq(x, None)",
    "lib.div(x, y, rounding_mode='bogus')",
    "lib.div(i, 0)",
    "lib.div(i, 0, rounding_mode='floor')",
    "lib.floor_divide(i, 0)",
    "lib.remainder(i, 0)",
    "lib.fmod(i, 0)",
    "lib.pow(i, -1)",
    "lib.pow(0, -1)",
    "lib.pow(k, 2)",
    "lib.pow(x, z)",
    "lib.clamp(x)",
    "lib.clamp(x, min='x')",
    "lib.clamp(x, min=0.5, max=0.2)",
    "lib.clamp(i, min=0.5)",
    "lib.clamp(k, 0, 1)",
    "lib.clamp(z, 0, 1)",
    "lib.clamp(x, min=v)",
    "lib.lerp(x, i, 0.5)",
    "lib.lerp(i, i, 0.5)",
    "lib.polygamma(-1, x)",
    "lib.polygamma(1.5, x)",
    "lib.round(i, decimals=1)",
    "lib.round(x, decimals=1.5)",
    "lib.sqrt(k)",
    "lib.sin(i)",
    "lib.exp(z)",
    "lib.floor(z)",
    "lib.sign(z)",
    "lib.erf(z)",
    "lib.lgamma(z)",
    "lib.digamma(i)",
    "lib.relu(k)",
    "lib.sigmoid(i)",
    "lib.atan2(x, z)",
    "lib.hypot(i, i)",
    "lib.xlogy(z, x)",
    "lib.maximum(x, z)",
    "lib.maximum(x, 1.0)",
    "lib.fmax(i, x)",
    "lib.lt(z, z)",
    "lib.logical_and(x, 'x')",
    "lib.bitwise_and(x, x)",
    "lib.bitwise_and(i, x)",
    "lib.bitwise_left_shift(i, -1)",
    "lib.bitwise_not(x)",
    "lib.bitwise_not(z)",
    "lib.isclose(x, i)",
    "lib.isclose(x, y, rtol=-1.0)",
    "lib.isclose(x, y, atol='x')",
    "lib.allclose(x, v)",
    "lib.allclose(x, bm)",
    "lib.equal(x, 'x')",
    "lib.equal(x, v)",
    "lib.where(k, x, 'x')",
    "lib.where(x, x, y)",
    "lib.where(i, x, y)",
    "lib.where(k, x, bm)",
    "lib.where(k, x, i)",
    "lib.where(k, 1, 2)",
    "lib.where(k, 1.0, z)",
    "lib.nan_to_num(i, nan=1.5)",
    "lib.nan_to_num(x, nan='x')",
    "lib.polar(i, i)",
    "lib.polar(x, v)",
    "lib.complex(i, i)",
    "lib.complex(x, xd)",
    "lib.complex(x, v)",
    "lib.view_as_real(x)",
    "lib.view_as_complex(x)",
    "lib.view_as_complex(lib.ones(2, 3))",
    "lib.view_as_complex(lib.ones(2, 2, dtype=lib.float64).t())",
    "lib.real(x)",
    "lib.imag(x)",
    "lib.angle(k)",
    "lib.threshold(x, 'x', 0.0)",
    "lib.threshold(z, 0.5, 0.0)",
    "lib.hardshrink(x, lambd=-1.0)",
    "lib.prelu(x, lib.tensor([0.25, 0.5]))",
    "lib.prelu(x, 0.25)",
    "lib.prelu(s, lib.tensor([0.25]))",
    "lib.rrelu(x, lower=0.5, upper=0.1, training=False)",
    "lib.selu(i)",
    "lib.celu(x, alpha=0.0)",
    "lib.relu_(i)",
    "lib.exp_(i)",
    "lib.sin_(k)",
    "lib.sqrt_(w)",
    "lib.exp_(yw)",
]


def entries():
    return [
        *(call for name in UNARY for call in vary("elementwise", f"lib.{name}(x)", per_argument=1, signature=0)),
        *(
            call
            for name in UNARY_INPLACE
            for call in vary("elementwise", f"lib.{name}(x)", per_argument=1, signature=0)
        ),
        *(call for name in BINARY for call in vary("elementwise", f"lib.{name}(x, y)", per_argument=1, signature=0)),
        *(
            call
            for name in INTEGER_BINARY
            for call in vary("elementwise", f"lib.{name}(i, i)", per_argument=1, signature=0)
        ),
        *(call for source in WITH_PARAMETERS for call in vary("elementwise", source)),
        *calls("elementwise", HAND_WRITTEN),
        *calls(
            "operators", [f"x {op} {operand}" for n, op in enumerate(OPERATORS) for operand in _window(OPERANDS, n, 6)]
        ),
        *calls(
            "operators", [f"{operand} {op} x" for n, op in enumerate(OPERATORS) for operand in _window(OPERANDS, n, 2)]
        ),
        *calls("operators", [f"{statement}; out = {statement.split()[0]}" for statement in AUGMENTED]),
        *calls("operators", UNARY_OPERATORS + PYTHON_PROTOCOLS),
    ]


def _window(items, start, count):
    """``count`` items from ``start`` on, wrapping round: each operator meets a different few operands."""
    return [items[(start + n) % len(items)] for n in range(count)]
