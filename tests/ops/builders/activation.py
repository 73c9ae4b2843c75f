"""Sample builders for the ops of ndgrad.ops.activation. Most live only in torch.nn.functional, so their calls go
through ``lib.nn.functional``; in-place forms run on a non-leaf copy, and each op is checked at its kinks."""

from ndgrad.ops import activation as a

from ..samples import C, Call, Case, S, T, draw, function, kinks, unary_cases


def nn_function(name, *args, scale=None, copy=False, **kwargs):
    """F.name($, *args, **kwargs); ``scale`` first stretches the input (to reach saturated regions), ``copy``
    passes ``$ * 1`` instead of the leaf, for in-place forms."""
    arguments = "".join(f", {a!r}" for a in args) + "".join(f", {k}={v!r}" for k, v in kwargs.items())
    factor = scale if scale is not None else (1 if copy else None)
    operand = "$" if factor is None else f"$ * {factor}"

    def run(lib, x):
        return getattr(lib.nn.functional, name)(x if factor is None else x * factor, *args, **kwargs)

    return Call(f"F.{name}({operand}{arguments})", run)


def cases(op, rng, calls):
    return [Case(op, (draw(rng, s, op.domain, layout),), c) for s, layout, c in calls]


def family(op, rng, name, *args, **kwargs):
    """The unary shapes and layouts through F.name(...)."""
    return unary_cases(op, rng, nn_function(name, *args, **kwargs))


KINK = [([-1.0, 0.0, 2.0],)]

BUILDERS = {
    a.Relu: lambda op, rng: unary_cases(op, rng) + kinks(op, rng, KINK) + cases(op, rng, [
        ((3, 4), C, nn_function("relu", inplace=True, copy=True)),
        ((5,), C, nn_function("relu_", copy=True)),
        ((2, 3, 2), S, Call("($ * 1).relu_()", lambda lib, x: (x * 1).relu_())),
        ((3, 4), T, Call("relu_($ * 1)", lambda lib, x: lib.relu_(x * 1))),
    ]),
    a.Hardtanh: lambda op, rng: family(op, rng, "hardtanh") + cases(op, rng, [
        ((3, 4), C, nn_function("hardtanh", -0.5, 1.5)),
        ((5,), C, nn_function("relu6", scale=4)),
        ((3, 4), T, nn_function("hardtanh_", -0.25, 0.75, copy=True)),
        ((2, 3, 2), S, nn_function("relu6", inplace=True, scale=4)),
    ]) + kinks(op, rng, [([-1.0, 0.0, 1.0],)], nn_function("hardtanh"))
    + kinks(op, rng, [([-1.0, 0.0, 6.0, 7.0],)], nn_function("relu6")),
    a.LeakyRelu: lambda op, rng: family(op, rng, "leaky_relu") + cases(op, rng, [
        ((3, 4), C, nn_function("leaky_relu", 0.2)),
        ((5,), C, nn_function("leaky_relu", negative_slope=-0.3)),
    ]) + kinks(op, rng, KINK, nn_function("leaky_relu", 0.2)),
    a.LeakyReluInPlace: lambda op, rng: cases(op, rng, [
        ((3, 4), C, nn_function("leaky_relu_", copy=True)),
        ((2, 3, 2), S, nn_function("leaky_relu", 0.1, inplace=True, copy=True)),
    ]) + kinks(op, rng, KINK, nn_function("leaky_relu_", 0.2, copy=True)),
    a.Elu: lambda op, rng: family(op, rng, "elu") + cases(op, rng, [
        ((3, 4), C, nn_function("elu", 0.5)),
        ((5,), C, function("selu")),
        ((2, 3, 2), S, nn_function("selu")),
        ((3, 4), T, nn_function("elu", alpha=-0.5)),
    ]) + kinks(op, rng, KINK, nn_function("elu", 2.0)) + kinks(op, rng, KINK, function("selu")),
    a.Celu: lambda op, rng: unary_cases(op, rng, function("celu")) + cases(op, rng, [
        ((3, 4), C, nn_function("celu", 2.0)),
        ((5,), C, Call("celu($, alpha=0.5)", lambda lib, x: lib.celu(x, alpha=0.5))),
    ]) + kinks(op, rng, KINK, nn_function("celu", 0.5)),
    a.EluInPlace: lambda op, rng: cases(op, rng, [
        ((3, 4), C, nn_function("elu_", copy=True)),
        ((5,), C, nn_function("elu", 0.5, inplace=True, copy=True)),
        ((2, 3, 2), S, Call("selu_($ * 1)", lambda lib, x: lib.selu_(x * 1))),
        ((3, 4), T, nn_function("selu", inplace=True, copy=True)),
    ]) + kinks(op, rng, KINK, nn_function("elu_", 2.0, copy=True)),
    a.CeluInPlace: lambda op, rng: cases(op, rng, [
        ((3, 4), C, Call("celu_($ * 1)", lambda lib, x: lib.celu_(x * 1))),
        ((5,), C, nn_function("celu", 1.5, inplace=True, copy=True)),
        ((2, 3, 2), S, nn_function("celu_", 0.5, copy=True)),
    ]),
    a.Gelu: lambda op, rng: family(op, rng, "gelu") + family(op, rng, "gelu", approximate="tanh")[2:]
    + cases(op, rng, [((5,), C, nn_function("gelu", scale=4))]),
    a.Silu: lambda op, rng: family(op, rng, "silu") + cases(op, rng, [
        ((3, 4), C, nn_function("silu", inplace=True, copy=True)),
    ]),
    a.Mish: lambda op, rng: family(op, rng, "mish") + cases(op, rng, [
        ((3, 4), C, nn_function("mish", inplace=True, copy=True)),
        ((5,), C, nn_function("mish", scale=20)),
    ]),
    a.Softplus: lambda op, rng: family(op, rng, "softplus") + cases(op, rng, [
        ((3, 4), C, nn_function("softplus", beta=2.0, threshold=1.5)),
        ((5,), C, nn_function("softplus", 0.5, scale=20)),
        ((2, 3, 2), S, nn_function("softplus", 3)),
    ]),
    a.Hardsigmoid: lambda op, rng: family(op, rng, "hardsigmoid") + cases(op, rng, [
        ((3, 4), C, nn_function("hardsigmoid", scale=2.5)),
        ((5,), C, nn_function("hardsigmoid", inplace=True, scale=2.5)),
    ]) + kinks(op, rng, [([-4.0, -3.0, 0.0, 3.0, 4.0],)], nn_function("hardsigmoid")),
    a.Hardswish: lambda op, rng: family(op, rng, "hardswish") + cases(op, rng, [
        ((3, 4), C, nn_function("hardswish", scale=2.5)),
        ((5,), C, nn_function("hardswish", inplace=True, scale=2.5)),
    ]) + kinks(op, rng, [([-4.0, -3.0, 0.0, 3.0, 4.0],)], nn_function("hardswish")),
    a.LogSigmoid: lambda op, rng: family(op, rng, "logsigmoid") + cases(op, rng, [
        ((5,), C, nn_function("logsigmoid", scale=20)),
    ]),
}
