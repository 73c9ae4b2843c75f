"""Layer constructors and forward-time argument checks against torch: error types and messages, warnings, and
the settings the layers keep (conv output_size, Embedding.from_pretrained, legacy loss flags)."""

import ast
import re

import pytest
import torch

import ndgrad


@pytest.mark.parametrize("code", [
    "nn.Conv2d(3, 4, 3, groups=2)",
    "nn.Conv2d(4, 3, 3, groups=2)",
    "nn.Conv1d(4, 4, 3, groups=0)",
    "nn.Conv2d(2, 2, 3, padding='same', stride=2)",
    "nn.ConvTranspose2d(2, 2, 3, padding_mode='reflect')",
    "print(nn.Conv2d(2, 4, (1, 3), padding='same', dilation=2, groups=2, bias=False, padding_mode='circular'))",
    "print(nn.ConvTranspose1d(2, 4, 3, output_padding=1, stride=2), nn.Conv3d(1, 1, 2).weight.shape)",
    "c = nn.ConvTranspose2d(1, 1, 3, stride=2); print(c(torch.ones(1, 1, 4, 4), output_size=[10, 10]).shape)",
    "c = nn.ConvTranspose2d(1, 1, 3, stride=2); print(c(torch.ones(1, 1, 4, 4), output_size=(1, 1, 9, 10)).shape)",
    "c = nn.ConvTranspose2d(1, 1, 3, stride=2); c(torch.ones(1, 1, 4, 4), output_size=[12, 10])",
    "c = nn.ConvTranspose2d(1, 1, 3, stride=2); c(torch.ones(1, 1, 4, 4), output_size=[9])",
    "c = nn.ConvTranspose1d(1, 1, 3, stride=3); print(c(torch.ones(1, 5), output_size=[17]).shape)",
    "nn.Linear(3, 2)(torch.ones(2, 4))",
    "nn.Conv2d(3, 2, 2)(torch.ones(1, 2, 4, 4))",
    "nn.Hardtanh(1.0, 0.5)",
    "print(nn.Hardtanh(min_value=-2.0, max_value=2.0))",
    "nn.Dropout(1.5)",
    "nn.Dropout2d(-0.1)",
    "print(nn.Dropout(), nn.Dropout(0.2, inplace=True), nn.AlphaDropout(0.1), nn.Dropout3d())",
    "nn.Embedding(5, 2, padding_idx=5)",
    "nn.Embedding(5, 2, padding_idx=-6)",
    "print(nn.Embedding(5, 2, padding_idx=-1).padding_idx, nn.Embedding(5, 2, padding_idx=-1).weight[4])",
    "print(nn.Embedding(5, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True))",
    "nn.Embedding(3, 2, _weight=torch.ones(2, 2))",
    "e = nn.Embedding.from_pretrained(torch.arange(6.).view(3, 2)); print(e, e.weight.requires_grad,"
    " e(torch.tensor([2, 0])))",
    "e = nn.Embedding.from_pretrained(torch.ones(3, 2), freeze=False, padding_idx=1); print(e, e.weight.requires_grad)",
    "nn.Embedding.from_pretrained(torch.ones(3))",
    "nn.GroupNorm(3, 4)",
    "nn.FractionalMaxPool2d(2)",
    "nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)",
    "nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.5))",
    "nn.FractionalMaxPool3d((2, 0, 2), output_size=2)",
    "print(nn.MaxUnpool2d(2, stride=1), nn.MaxUnpool3d(2), nn.LocalResponseNorm(2), nn.ChannelShuffle(3))",
    "print(nn.RMSNorm(3), hasattr(nn.RMSNorm(3), 'bias'), list(nn.RMSNorm([2, 3]).state_dict()))",
    "nn.Unflatten(1, 6)",
    "nn.Unflatten(1, (2, 3.0))",
    "nn.HuberLoss(delta='1')",
    "nn.MultiMarginLoss(p=3)",
    "nn.MultiMarginLoss(weight=torch.ones(2, 2))",
    "nn.TripletMarginLoss(margin=0)",
    "nn.TripletMarginWithDistanceLoss(margin=-1.0)",
    "print(nn.TripletMarginWithDistanceLoss(), nn.TripletMarginWithDistanceLoss(distance_function=lambda a,"
    " b: (a - b).abs()))",
    "m = nn.MSELoss(size_average=False); print(m.reduction)",
    "m = nn.L1Loss(reduce=False); print(m.reduction)",
    "m = nn.NLLLoss(size_average=True, reduce=True); print(m.reduction)",
    "nn.MSELoss(reduction='avg')(torch.ones(2), torch.ones(2))",
    "print(nn.CrossEntropyLoss(weight=torch.ones(3)).weight,"
    " list(nn.CrossEntropyLoss(weight=torch.ones(3)).state_dict()))",
    "print(list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()), nn.BCEWithLogitsLoss().weight)",
    "nn.Softmax2d()(torch.ones(2, 2))",
    "nn.BatchNorm1d(3)(torch.ones(2, 3, 4, 5))",
    "nn.BatchNorm2d(3)(torch.ones(2, 3))",
    "nn.BatchNorm3d(3)(torch.ones(2, 3, 4))",
    "nn.BatchNorm1d(3)(torch.ones(1, 3))",
    "nn.InstanceNorm1d(3)(torch.ones(2, 3, 4, 5))",
    "nn.InstanceNorm2d(3, affine=True)(torch.ones(2, 4, 3, 3))",
    "print(nn.InstanceNorm2d(3)(torch.arange(32.).view(2, 4, 2, 2)).shape)",
    "print(nn.InstanceNorm1d(3, affine=True), nn.BatchNorm2d(4, momentum=None, bias=False))",
    "nn.CircularPad2d(1)(torch.ones(2))",
    "nn.CircularPad3d(1)(torch.ones(2, 2, 2))",
    "print(nn.ZeroPad2d(2), nn.ConstantPad3d(1, 3.5), nn.ReflectionPad3d((1, 2, 3, 4, 5, 6)), nn.CircularPad1d(3))",
    "print(nn.Upsample(scale_factor=(2, 3), mode='bilinear'), nn.Upsample(size=3), nn.Upsample(scale_factor=1.5).name)",
    "print(nn.Softmax(), nn.Softmax()(torch.ones(2, 3)))",
    "print(nn.LogSoftmax()(torch.ones(3)))",
    "print(nn.Flatten(), nn.Unflatten(-1, [2, 2]), nn.Fold(4, 2), nn.Unfold(2))",
    "print(nn.MaxPool2d(3), nn.MaxPool1d(2, stride=1, return_indices=True), nn.AvgPool2d(2), nn.AvgPool1d(3))",
    "print(nn.AdaptiveMaxPool2d((2, 3), return_indices=True)(torch.ones(1, 1, 4, 6))[1].shape, nn.LPPool1d(2, 3))",
    "print(nn.MaxPool1d(2, return_indices=True)(torch.arange(6.).view(1, 1, 6)))",
    "print(nn.PairwiseDistance(), nn.CosineSimilarity(), nn.PixelShuffle(3), nn.PixelUnshuffle(2))",
    "print(nn.LayerNorm((2, 3), eps=1e-3), nn.GroupNorm(2, 4, affine=False), nn.Identity())",
    "print(nn.Bilinear(2, 3, 4, bias=False), nn.Linear(2, 3, dtype=torch.float64).weight.dtype)",
    "print(nn.Linear(2, 3, device='cpu').weight.device, nn.Conv2d(1, 1, 1, dtype=torch.float64).bias.dtype)",
    "print(nn.BatchNorm1d(2, dtype=torch.float64).num_batches_tracked.dtype, nn.LayerNorm(2,"
    " dtype=torch.float64).weight.dtype)",
])
def test_layer_arguments(same, code):
    same("import torch\nnn = torch.nn\n" + code)


@pytest.mark.parametrize("call", ["Conv2d(2, 2, 3, padding='full')", "Conv1d(2, 2, 3, padding_mode='mirror')"])
def test_invalid_padding_lists_the_valid_choices(call):
    """The message shows a Python set, whose order changes from run to run: compare its elements."""

    def error_of(lib):
        with pytest.raises(ValueError) as info:
            eval("lib.nn." + call, {"lib": lib})
        message = str(info.value)
        choices = re.search(r"\{.*\}", message).group(0)
        return message.replace(choices, "{...}"), ast.literal_eval(choices)

    assert error_of(ndgrad) == error_of(torch)
