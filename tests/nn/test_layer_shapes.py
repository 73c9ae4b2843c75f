"""Convolution, transposed convolution and pooling layers over arguments drawn by hypothesis, against torch:
output values and the gradients of input, weight and bias (float64, torch's weights loaded into ours)."""

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tests.closeness import assert_close

import ndgrad


def compare(constructor, input_shape, seed):
    theirs, ours = eval("torch.nn." + constructor).double(), eval("ndgrad.nn." + constructor).double()
    ours.load_state_dict({k: ndgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(seed).standard_normal(input_shape)
    x_t, x_n = torch.tensor(x, requires_grad=True), ndgrad.tensor(x, requires_grad=True)
    out_t, out_n = theirs(x_t), ours(x_n)
    assert_close(out_n, out_t)
    (out_t * out_t.detach()).sum().backward()
    (out_n * out_n.detach()).sum().backward()
    assert_close(x_n.grad, x_t.grad)
    params_t = dict(theirs.named_parameters())
    for name, param in ours.named_parameters():
        assert_close(param.grad, params_t[name].grad, msg=name)


@st.composite
def conv_cases(draw):
    transposed = draw(st.booleans())
    groups = draw(st.sampled_from([1, 2]))
    in_channels, out_channels = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    bias = draw(st.booleans())
    size = [draw(st.integers(dilation[d] * (kernel[d] - 1) + 1, 6)) for d in range(2)]
    if transposed:
        output_padding = tuple(draw(st.integers(0, stride[d] - 1)) for d in range(2))
        for d in range(2):  # an output of at least one element
            assume((size[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] >= 0)
        constructor = (f"ConvTranspose2d({in_channels}, {out_channels}, {kernel}, stride={stride}, padding={padding}, "
                       f"output_padding={output_padding}, groups={groups}, bias={bias}, dilation={dilation})")
    else:
        mode = draw(st.sampled_from(["zeros", "reflect", "replicate", "circular"]))
        assume(mode == "zeros" or all(p < s for p, s in zip(padding, size)))  # F.pad's limit for reflect
        constructor = (f"Conv2d({in_channels}, {out_channels}, {kernel}, stride={stride}, padding={padding}, "
                       f"dilation={dilation}, groups={groups}, bias={bias}, padding_mode={mode!r})")
    return constructor, (draw(st.integers(1, 2)), in_channels, *size)


@settings(max_examples=30, deadline=None)
@given(conv_cases(), st.integers(0, 2**16))
def test_convolutions(case, seed):
    constructor, input_shape = case
    compare(constructor, input_shape, seed)


@st.composite
def pool_cases(draw):
    kind = draw(st.sampled_from(["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]))
    size = (draw(st.integers(3, 7)), draw(st.integers(3, 7)))
    if kind.startswith("Adaptive"):
        output = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        return f"{kind}({output})", (2, 2, *size)
    kernel = draw(st.integers(1, 3))
    padding = draw(st.integers(0, kernel // 2))
    stride = draw(st.integers(1, 3))
    ceil_mode = draw(st.booleans())
    if kind == "MaxPool2d":
        dilation = draw(st.integers(1, 2))
        assume(all(dilation * (kernel - 1) + 1 <= s + 2 * padding for s in size))
        extra = f"dilation={dilation}"
    else:
        extra = f"count_include_pad={draw(st.booleans())}"
    return f"{kind}({kernel}, stride={stride}, padding={padding}, ceil_mode={ceil_mode}, {extra})", (2, 2, *size)


@settings(max_examples=30, deadline=None)
@given(pool_cases(), st.integers(0, 2**16))
def test_pooling(case, seed):
    constructor, input_shape = case
    compare(constructor, input_shape, seed)
