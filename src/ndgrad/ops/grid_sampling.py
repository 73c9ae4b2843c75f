"""Spatial transformers (see torch.nn.functional.grid_sample / affine_grid): sampling an input at the points of a
grid, and the grid an affine map makes. Composites of ndgrad ops (gather, floor, where), so they are differentiable
with respect to the input and the grid, to any order, with no gradient code here."""

import itertools
import math

from ndgrad._warnings import warn
from ndgrad.ops.comparison import where
from ndgrad.ops.joining import stack

__all__ = []
FUNCTIONAL = ["grid_sample", "affine_grid"]

_ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)
_CUBIC_A = -0.75  # the bicubic kernel's constant, as torch (and OpenCV) use


# ---- coordinates ----------------------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    """[-1, 1] -> pixel units: -1 and 1 are the corner pixels' centres (align_corners) or their outer edges."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Fold ``coord`` into [twice_low / 2, twice_high / 2] by reflecting at its ends, as often as needed."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    return where(flips.fmod(2) == 0, extra + low, span - extra + low)


def _apply_padding(coord, size, padding_mode, align_corners):
    """Border and reflection padding move a coordinate into the input; zeros padding leaves it (and reads 0 there)."""
    if padding_mode == "border":
        return coord.clamp(0, size - 1)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return _reflect(coord, *twice).clamp(0, size - 1)
    return coord


# ---- reading the input ----------------------------------------------------------------------------------------
def _read(input, indices):
    """input (N, C, *spatial) at the integer points ``indices`` (one (N, *out) tensor per spatial dim), zero where a
    point lies outside; returns (N, C, *out)."""
    sizes = input.shape[2:]
    inside, flat = None, 0
    for index, size in zip(indices, sizes):
        ok = (index >= 0) & (index <= size - 1)
        inside = ok if inside is None else inside & ok
        flat = flat * size + index.clamp(0, size - 1).long()
    n, c, out = input.shape[0], input.shape[1], indices[0].shape[1:]
    flat = flat.reshape(n, 1, -1).expand(n, c, -1)
    values = input.reshape(n, c, -1).gather(2, flat).reshape(n, c, *out)
    return values * inside.unsqueeze(1).to(input.dtype)


def _cubic_weights(t):
    """The four weights of the taps at -1, 0, 1, 2 for a point a fraction ``t`` past tap 0."""
    def near(x):  # |x| <= 1
        return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _sample_linear(input, coords):
    """Bilinear (trilinear in 3-D): the 2^d surrounding points, each weighted by the opposite box's volume."""
    lows = [coord.floor() for coord in coords]
    result = 0
    for corner in itertools.product((0, 1), repeat=len(coords)):
        weight = 1
        for coord, low, offset in zip(coords, lows, corner):
            weight = weight * ((coord - low) if offset else (low + 1 - coord))
        result = result + _read(input, [low + offset for low, offset in zip(lows, corner)]) * weight.unsqueeze(1)
    return result


def _sample_bicubic(input, coords, padding_mode, align_corners):
    """Bicubic: the 4x4 surrounding points, padding applied to each point rather than to the sample's position."""
    (y, x), sizes = coords, input.shape[2:]
    y0, x0 = y.floor(), x.floor()
    weights_y, weights_x = _cubic_weights(y - y0), _cubic_weights(x - x0)
    result = 0
    for i, j in itertools.product(range(4), repeat=2):
        point = [_apply_padding(y0 - 1 + i, sizes[0], padding_mode, align_corners),
                 _apply_padding(x0 - 1 + j, sizes[1], padding_mode, align_corners)]
        result = result + _read(input, point) * (weights_y[i] * weights_x[j]).unsqueeze(1)
    return result


# ---- the functions --------------------------------------------------------------------------------------------
def _check_grid_sample(input, grid, mode):
    """torch's grid_sampler checks, for the mistakes a caller makes most, in torch's order."""
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dim() not in (4, 5) or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.title} but found {grid.dtype.title}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, [D,] H, W) at the normalised points ``grid`` (N, [D',] H', W', 2 or 3), x first (see
    torch.nn.functional.grid_sample)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
                         f"but got: '{padding_mode}'")
    if align_corners is None:
        warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    _check_grid_sample(input, grid, mode)
    sizes = input.shape[2:]
    # grid's last dim runs x, y, z: the spatial dims from the last one back
    coords = [_unnormalize(grid[..., len(sizes) - 1 - d], size, align_corners) for d, size in enumerate(sizes)]
    if mode == "bicubic":
        return _sample_bicubic(input, coords, padding_mode, align_corners)
    coords = [_apply_padding(coord, size, padding_mode, align_corners) for coord, size in zip(coords, sizes)]
    if mode == "nearest":  # NOTE: round half to even, as torch's nearbyint
        # NOTE: round cuts the graph; the zero-weighted term keeps the grid in it, so that the grid gets torch's
        # zero gradient rather than none
        return _read(input, [coord.round() for coord in coords]) + 0 * grid.sum()
    return _sample_linear(input, coords)


def _base_coordinates(steps, align_corners, like):
    """The normalised centres of ``steps`` pixels along one dim."""
    from ndgrad._ranges import linspace  # here: the factories import the Tensor, which imports the ops

    coords = linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    if not align_corners:
        coords = coords * ((steps - 1) / steps)
    return coords


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) or (N, 3, 4) for an output of ``size`` (see
    torch.nn.functional.affine_grid)."""
    if align_corners is None:
        warn(_ALIGN_CORNERS_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    rank = len(size) - 2
    if theta.dim() != 3 or theta.shape[-2] != rank or theta.shape[-1] != rank + 1:
        raise ValueError(f"Expected a batch of {rank}D affine matrices of shape Nx{rank}x{rank + 1} for size {size}. "
                         f"Got {theta.shape}.")
    spatial = list(size[2:])
    if align_corners and min(spatial) == 1:
        warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This "
             "is not an intended use case of affine_grid. See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # base grid (*spatial, rank + 1): x, y(, z) of each output point and a 1, the same for every batch element
    axes = [_base_coordinates(steps, align_corners, theta) for steps in spatial]
    columns = []
    for d in reversed(range(rank)):  # x runs along the last spatial dim
        shape = [1] * rank
        shape[d] = spatial[d]
        columns.append(axes[d].reshape(shape).expand(*spatial))
    columns.append(axes[0].new_ones(spatial))
    base = stack(columns, dim=-1).reshape(1, math.prod(spatial), rank + 1)
    grid = base.expand(size[0], -1, -1).matmul(theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, rank)
