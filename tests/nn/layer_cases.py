"""The layer table: one constructor per case (run with torch.nn and ndgrad.nn alike) and the inputs it takes.

An input is a shape (a float tensor that requires grad), or a tagged spec for inputs that are not free floats:
("index", high, shape) class indices, ("prob", shape) values in (0, 1), ("sign", shape) values in {-1, 1},
("positive", shape) values in (0.5, 1.5) and ("unit", shape) values in (0, 1), both differentiable,
("ints", values) fixed integers, ("const", value) a Python value passed as is. ``needs`` names the
nn.functional op a case waits for (skipped while ndgrad lacks it).
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class Case:
    constructor: str
    inputs: list
    train: bool = True  # batch norm's two modes differ; everything else is deterministic in both
    needs: str | None = None

    @property
    def id(self):
        return self.constructor


def _sample(spec, rng):
    """(numpy array or Python value, whether it is a differentiable input)."""
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        tag, *rest = spec
        if tag == "index":
            high, shape = rest
            return rng.integers(0, high, size=shape), False
        if tag == "prob":
            return rng.uniform(0.05, 0.95, size=rest[0]), False
        if tag == "sign":
            return rng.choice([-1.0, 1.0], size=rest[0]), False
        if tag == "positive":
            return rng.uniform(0.5, 1.5, size=rest[0]), True
        if tag == "unit":
            return rng.uniform(0.05, 0.95, size=rest[0]), True
        if tag == "ints":
            return np.array(rest[0], dtype=np.int64), False
        if tag == "const":
            return rest[0], False
        raise ValueError(tag)
    return rng.standard_normal(spec), True


def sample_inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    return [_sample(spec, rng) for spec in case.inputs]


ACTIVATIONS = [
    Case("ReLU()", [(3, 4)]),
    Case("ReLU6()", [(3, 4)]),
    Case("LeakyReLU(0.2)", [(3, 4)]),
    Case("ELU(alpha=0.7)", [(3, 4)]),
    Case("CELU(alpha=1.5)", [(3, 4)]),
    Case("SELU()", [(3, 4)]),
    Case("GELU()", [(3, 4)]),
    Case("GELU(approximate='tanh')", [(3, 4)]),
    Case("SiLU()", [(3, 4)]),
    Case("Mish()", [(3, 4)]),
    Case("Softplus(beta=2.0, threshold=5.0)", [(3, 4)]),
    Case("Tanh()", [(3, 4)]),
    Case("Sigmoid()", [(3, 4)]),
    Case("Hardtanh(-0.5, 0.8)", [(3, 4)]),
    Case("Hardsigmoid()", [(3, 4)]),
    Case("Hardswish()", [(3, 4)]),
    Case("LogSigmoid()", [(3, 4)]),
    Case("Softsign()", [(3, 4)]),
    Case("Tanhshrink()", [(3, 4)]),
    Case("Softmax(dim=1)", [(3, 4)]),
    Case("Softmin(dim=0)", [(3, 4)]),
    Case("LogSoftmax(dim=-1)", [(2, 3, 4)]),
    Case("Softmax2d()", [(2, 3, 4, 2)]),
    Case("Identity(54, unused=1)", [(3, 4)]),
    Case("Threshold(0.1, 20.0)", [(3, 4)], needs="threshold"),
    Case("GLU(dim=0)", [(4, 3)], needs="glu"),
    Case("Hardshrink(0.3)", [(3, 4)], needs="hardshrink"),
    Case("Softshrink()", [(3, 4)], needs="softshrink"),
    Case("PReLU()", [(2, 3, 4)], needs="prelu"),
    Case("PReLU(3, init=0.1)", [(2, 3, 4)], needs="prelu"),
    Case("RReLU(0.1, 0.3)", [(3, 4)], train=False, needs="rrelu"),
    Case("Dropout1d(0.3)", [(2, 3, 4)], train=False, needs="dropout1d"),
    Case("AlphaDropout(0.2)", [(2, 3)], train=False, needs="alpha_dropout"),
]

LAYERS = [
    Case("Linear(4, 3)", [(2, 4)]),
    Case("Linear(4, 3, bias=False)", [(2, 5, 4)]),
    Case("Bilinear(3, 4, 2)", [(5, 3), (5, 4)]),
    Case("Conv1d(2, 4, 3, stride=2, padding=1)", [(2, 2, 9)]),
    Case("Conv1d(4, 4, 3, groups=2, dilation=2, bias=False, padding_mode='circular', padding=2)", [(2, 4, 8)]),
    Case("Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 0))", [(2, 3, 7, 6)]),
    Case("Conv2d(2, 2, 3, padding='same', padding_mode='reflect')", [(1, 2, 5, 5)]),
    Case("Conv2d(2, 3, 3, padding='valid', padding_mode='replicate')", [(2, 5, 5)]),
    Case("Conv3d(2, 3, 2, stride=1, padding=1)", [(1, 2, 3, 4, 3)]),
    Case("ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1)", [(2, 3, 5)]),
    Case("ConvTranspose2d(4, 2, (2, 3), stride=2, groups=2, dilation=(1, 2))", [(2, 4, 3, 3)]),
    Case("ConvTranspose3d(2, 2, 2, stride=2)", [(1, 2, 2, 3, 2)]),
    Case("MaxPool1d(3, stride=2, padding=1)", [(2, 3, 9)]),
    Case("MaxPool2d(2)", [(2, 3, 6, 4)]),
    Case("MaxPool2d((3, 2), stride=1, dilation=(1, 2), ceil_mode=True)", [(1, 2, 5, 6)]),
    Case("AvgPool1d(3, stride=2, padding=1, count_include_pad=False)", [(2, 3, 9)]),
    Case("AvgPool2d(3, stride=2, padding=1, ceil_mode=True)", [(2, 2, 7, 6)]),
    Case("AvgPool2d(2, divisor_override=3)", [(2, 2, 4, 4)]),
    Case("LPPool1d(2, 3, stride=2)", [(2, 3, 9)]),
    Case("LPPool2d(3, 2)", [("positive", (2, 2, 4, 4))]),
    Case("AdaptiveAvgPool1d(4)", [(2, 3, 9)]),
    Case("AdaptiveAvgPool2d((3, None))", [(2, 3, 7, 5)]),
    Case("AdaptiveMaxPool1d(3)", [(2, 3, 8)]),
    Case("AdaptiveMaxPool2d(2)", [(2, 3, 5, 7)]),
    Case("MaxPool3d(2, stride=1, padding=1)", [(1, 2, 3, 4, 3)]),
    Case("AvgPool3d((2, 1, 2), count_include_pad=False, padding=(1, 0, 1))", [(1, 2, 3, 4, 3)]),
    Case("LPPool3d(2, 2)", [(1, 2, 4, 4, 2)]),
    Case("AdaptiveAvgPool3d((2, 1, 3))", [(1, 2, 3, 4, 5)]),
    Case("AdaptiveMaxPool3d(2)", [(1, 2, 3, 4, 5)]),
    Case("MaxUnpool1d(2)", [(1, 1, 3), ("ints", [[[0, 3, 5]]])]),
    Case("MaxUnpool2d(2, padding=0)", [(1, 1, 2, 2), ("ints", [[[[5, 2], [12, 15]]]])]),
    Case("FractionalMaxPool2d(2, output_size=3, _random_samples=SAMPLES)", [(1, 2, 6, 7)]),
    Case("FractionalMaxPool2d((2, 3), output_ratio=(0.5, 0.6), _random_samples=SAMPLES)", [(1, 2, 6, 8)]),
    Case("BatchNorm1d(3)", [(4, 3)]),
    Case("BatchNorm1d(3, affine=False, momentum=None)", [(4, 3, 5)]),
    Case("BatchNorm2d(3)", [(4, 3, 2, 2)], train=False),
    Case("BatchNorm2d(3, track_running_stats=False)", [(4, 3, 2, 2)], train=False),
    Case("BatchNorm3d(2, eps=1e-3, momentum=0.3)", [(2, 2, 3, 2, 2)]),
    Case("LayerNorm(4)", [(3, 4)]),
    Case("LayerNorm((3, 4), elementwise_affine=False)", [(2, 3, 4)]),
    Case("LayerNorm([4], bias=False)", [(2, 3, 4)]),
    Case("GroupNorm(2, 4)", [(3, 4, 5)]),
    Case("GroupNorm(3, 6, affine=False)", [(2, 6, 2, 2)]),
    Case("RMSNorm(4)", [(3, 4)]),
    Case("RMSNorm((2, 3), eps=1e-3, elementwise_affine=False)", [(4, 2, 3)]),
    Case("LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)", [(2, 5, 3, 3)]),
    Case("ChannelShuffle(2)", [(1, 4, 2, 2)]),
    Case("InstanceNorm1d(3)", [(2, 3, 5)]),
    Case("InstanceNorm2d(3, affine=True, track_running_stats=True)", [(2, 3, 4, 4)]),
    Case("InstanceNorm2d(3, affine=True, track_running_stats=True)", [(2, 3, 4, 4)], train=False),
    Case("InstanceNorm1d(3)", [(3, 5)]),
    Case("Embedding(10, 3)", [("index", 10, (2, 4))]),
    Case("Embedding(10, 3, padding_idx=2)", [("index", 10, (20,))]),
    Case("Flatten()", [(2, 3, 4)]),
    Case("Flatten(0, 1)", [(2, 3, 4)]),
    Case("Unflatten(1, (2, 3))", [(4, 6)]),
    Case("PixelShuffle(2)", [(1, 8, 2, 3)]),
    Case("PixelUnshuffle(2)", [(1, 2, 4, 6)]),
    Case("Upsample(scale_factor=2, mode='nearest')", [(1, 2, 3, 3)]),
    Case("Upsample(size=(5, 4), mode='bilinear', align_corners=False)", [(1, 2, 3, 3)]),
    Case("UpsamplingNearest2d(scale_factor=2)", [(1, 1, 2, 3)]),
    Case("UpsamplingBilinear2d(size=4)", [(1, 1, 2, 3)]),
    Case("ConstantPad1d((1, 2), 0.5)", [(2, 3, 4)]),
    Case("ConstantPad2d(1, -1.0)", [(2, 3, 4)]),
    Case("ConstantPad3d((1, 0, 0, 1, 1, 1), 2.0)", [(1, 2, 2, 2, 2)]),
    Case("ZeroPad1d(2)", [(2, 3, 4)]),
    Case("ZeroPad2d((1, 1, 2, 0))", [(1, 2, 3, 3)]),
    Case("ReflectionPad1d(2)", [(2, 3, 4)]),
    Case("ReflectionPad2d((1, 2, 0, 1))", [(1, 2, 3, 4)]),
    Case("ReplicationPad1d((0, 3))", [(2, 3, 4)]),
    Case("ReplicationPad2d(1)", [(1, 2, 3, 3)]),
    Case("ReplicationPad3d(1)", [(1, 2, 2, 2, 2)]),
    Case("CircularPad1d(1)", [(2, 3, 4)]),
    Case("CircularPad2d((1, 0, 1, 2))", [(1, 2, 3, 3)]),
    Case("Fold(output_size=(4, 5), kernel_size=2)", [(1, 12, 12)]),
    Case("Unfold(kernel_size=(2, 3), padding=1, stride=2)", [(2, 3, 4, 5)]),
    Case("CosineSimilarity(dim=1)", [(3, 5), (3, 5)]),
    Case("PairwiseDistance(p=1.5, keepdim=True)", [(3, 5), (3, 5)]),
    Case("Sequential(Linear(3, 4), ReLU(), Linear(4, 2), LogSoftmax(dim=1))", [(5, 3)]),
]

LOSSES = [
    Case("MSELoss()", [(3, 4), (3, 4)]),
    Case("MSELoss(reduction='sum')", [(3, 4), (3, 4)]),
    Case("L1Loss(reduction='none')", [(3, 4), (3, 4)]),
    Case("SmoothL1Loss(beta=0.5)", [(3, 4), (3, 4)]),
    Case("HuberLoss(delta=0.7)", [(3, 4), (3, 4)]),
    Case("CrossEntropyLoss()", [(4, 5), ("index", 5, (4,))]),
    Case("CrossEntropyLoss(label_smoothing=0.1, ignore_index=1)", [(4, 5, 2), ("index", 5, (4, 2))]),
    Case("CrossEntropyLoss(weight=WEIGHT5, reduction='sum')", [(4, 5), ("index", 5, (4,))]),
    Case("CrossEntropyLoss()", [(4, 5), ("prob", (4, 5))]),
    Case("NLLLoss()", [(4, 5), ("index", 5, (4,))]),
    Case("NLLLoss(weight=WEIGHT5, ignore_index=0, reduction='none')", [(4, 5), ("index", 5, (4,))]),
    Case("BCELoss()", [("unit", (3, 4)), ("prob", (3, 4))]),
    Case("BCELoss(weight=WEIGHT4)", [("unit", (3, 4)), ("prob", (3, 4))]),
    Case("BCEWithLogitsLoss()", [(3, 4), ("prob", (3, 4))]),
    Case("BCEWithLogitsLoss(pos_weight=WEIGHT4, reduction='sum')", [(3, 4), ("prob", (3, 4))]),
    Case("KLDivLoss(reduction='batchmean')", [(3, 4), ("prob", (3, 4))]),
    Case("KLDivLoss(log_target=True)", [(3, 4), (3, 4)]),
    Case("PoissonNLLLoss()", [(3, 4), ("prob", (3, 4))]),
    Case("PoissonNLLLoss(log_input=False, full=True)", [("positive", (3, 4)), ("positive", (3, 4))]),
    Case("GaussianNLLLoss()", [(3, 4), (3, 4), ("positive", (3, 4))]),
    Case("HingeEmbeddingLoss(margin=0.5)", [(3, 4), ("sign", (3, 4))]),
    Case("SoftMarginLoss()", [(3, 4), ("sign", (3, 4))]),
    Case("CosineEmbeddingLoss(margin=0.2)", [(3, 4), (3, 4), ("sign", (3,))]),
    Case("MarginRankingLoss(margin=0.1)", [(5,), (5,), ("sign", (5,))]),
    Case("TripletMarginLoss(margin=0.5, p=1.0)", [(3, 4), (3, 4), (3, 4)]),
    Case("TripletMarginLoss(swap=True)", [(3, 4), (3, 4), (3, 4)]),
    Case("TripletMarginWithDistanceLoss(margin=0.5)", [(3, 4), (3, 4), (3, 4)]),
    Case("TripletMarginWithDistanceLoss(distance_function=L1Loss(), swap=True)", [(3, 4), (3, 4), (3, 4)]),
    Case("MultiLabelMarginLoss()", [(3, 4), ("ints", [[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 1, 1]])]),
    Case("MultiLabelSoftMarginLoss(weight=WEIGHT4)", [(3, 4), ("prob", (3, 4))]),
    Case("MultiMarginLoss(p=2, margin=0.5, weight=WEIGHT5)", [(4, 5), ("index", 5, (4,))]),
    Case("MultiMarginLoss()", [(4, 5), ("index", 5, (4,))]),
    Case("CTCLoss()", [(6, 2, 4), ("ints", [[1, 2, 2], [3, 1, 0]]), ("ints", [6, 5]), ("ints", [3, 2])]),
    Case("CTCLoss(blank=3, reduction='sum', zero_infinity=True)",
         [(4, 2, 4), ("ints", [[1, 1, 2], [2, 0, 0]]), ("ints", [4, 4]), ("ints", [3, 1])]),
]

# Class weights the loss constructors above refer to, by name.
CONSTANTS = {
    "WEIGHT5": [0.5, 1.0, 2.0, 1.5, 0.25],
    "WEIGHT4": [1.0, 2.0, 0.5, 3.0],
    "SAMPLES": [[[0.3, 0.8], [0.6, 0.1]]],  # fractional max pooling's window offsets, (N, C, 2)
}
