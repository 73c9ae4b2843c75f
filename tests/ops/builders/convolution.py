"""Sample builders for the ops of ndgrad.ops.convolutions: conv1d/2d/3d and the transposed forms (one primitive,
torch.convolution), with stride, padding ('same', 'valid'), dilation, groups and bias; unfold and fold."""

from ndgrad.ops import convolutions

from ..samples import C, Call, Case, S, T, draw


def functional(name, *args, **kwargs):
    """lib.nn.functional.name(*tensors, *args, **kwargs)."""
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return Call(f"F.{name}({', '.join(['$'] + shown)})",
                lambda lib, *tensors: getattr(lib.nn.functional, name)(*tensors, *args, **kwargs))


# A convolution and its transpose with one weight: the first tiny case, so that its complex version checks both rules.
ROUND_TRIP = Call("F.conv_transpose1d(F.conv1d(x, y, z, padding=1), y, stride=2)",
                  lambda lib, x, w, b: lib.nn.functional.conv_transpose1d(
                      lib.nn.functional.conv1d(x, w, b, padding=1), w, stride=2))


def conv_cases(op, rng):
    """(name, input shape, weight shape, bias?, keywords): the tiny cases first."""
    cases = [Case(op, (draw(rng, (1, 2, 4)), draw(rng, (2, 2, 2)), draw(rng, (2,))), ROUND_TRIP)]
    specs = [
        ("conv2d", ((1, 1, 3, 3), C), ((2, 1, 2, 2), C), True, {}),  # 9 + 8 + 2 elements
        ("conv1d", ((1, 2, 5), C), ((2, 2, 2), C), False, {"stride": 2, "padding": 1}),
        ("conv2d", ((2, 3, 6, 5), C), ((4, 3, 3, 2), C), True, {}),
        ("conv2d", ((2, 3, 7, 6), T), ((4, 3, 2, 3), C), True, {"stride": 2, "padding": 1, "dilation": (2, 1)}),
        ("conv2d", ((2, 4, 5, 6), C), ((6, 2, 3, 2), S), False, {"stride": (1, 2), "padding": (2, 1), "groups": 2}),
        ("conv2d", ((1, 2, 6, 6), C), ((3, 2, 2, 3), C), False, {"padding": "same", "dilation": 2}),
        ("conv2d", ((1, 2, 5, 5), C), ((3, 2, 2, 3), C), False, {"padding": "valid"}),
        ("conv1d", ((2, 3, 7), C), ((4, 3, 3), C), True, {"stride": 2, "padding": 1}),
        ("conv3d", ((1, 2, 3, 4, 3), C), ((2, 2, 2, 2, 2), C), True, {"padding": 1}),
        ("conv_transpose2d", ((2, 4, 3, 4), C), ((4, 3, 3, 2), C), True,
         {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
        ("conv_transpose1d", ((2, 2, 4), C), ((2, 3, 3), C), False, {"stride": 3, "dilation": 2}),
        ("conv_transpose1d", ((1, 2, 3), C), ((2, 2, 2), C), True, {}),
    ]
    for name, x, weight, bias, kwargs in specs:
        inputs = [draw(rng, x[0], layout=x[1]), draw(rng, weight[0], layout=weight[1])]
        if bias:
            out_channels = weight[0][1] * kwargs.get("groups", 1) if "transpose" in name else weight[0][0]
            inputs.append(draw(rng, (out_channels,)))
        cases.append(Case(op, tuple(inputs), functional(name, **kwargs)))
    return cases


def unfold_cases(op, rng):
    return [
        Case(op, (draw(rng, (1, 2, 3, 3)),), functional("unfold", 2)),
        Case(op, (draw(rng, (2, 3, 5, 6), layout=T),),
             functional("unfold", (2, 3), dilation=(1, 2), padding=1, stride=2)),
        Case(op, (draw(rng, (2, 4, 4)),), functional("unfold", 3, padding=(1, 0))),
    ]


def fold_cases(op, rng):
    return [
        Case(op, (draw(rng, (1, 4, 9)),), functional("fold", (4, 4), 2)),
        Case(op, (draw(rng, (2, 18, 9), layout=T),), functional("fold", (5, 6), (2, 3), padding=1, stride=2)),
        Case(op, (draw(rng, (4, 9)),), functional("fold", 4, 2, dilation=1)),
    ]


BUILDERS = {convolutions.Convolution: conv_cases, convolutions.Im2Col: unfold_cases, convolutions.Col2Im: fold_cases}
