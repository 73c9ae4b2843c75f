"""ndgrad's ops: one module per family, each holding its ops (forward + vjp), the functions users call, and the
Tensor methods for them. This package re-exports every family's public functions (its ``__all__``)."""

from ndgrad.ops import (
    activation,
    arithmetic,
    assembling,
    attention,
    bessel,
    classification_losses,
    comparison,
    complex_numbers,
    convolutions,
    ctc,
    decompositions,
    dropouts,
    eigen,
    einsums,
    embedding_bag,
    functional_pooling,
    gather_scatter,
    grid_sampling,
    grids,
    indexing,
    joining,
    layers,
    linalg,
    lu,
    margin_losses,
    matrix_functions,
    max_pooling,
    more_activations,
    multiply_add,
    norm_based,
    normalization,
    number_parts,
    orthogonal_polynomials,
    pooling,
    products,
    random,
    reduction,
    regression_losses,
    resampling,
    rounding,
    scan,
    selection,
    shape,
    short_time,
    softmaxes,
    solvers,
    sorting,
    sparse,
    special,
    special_functions,
    spectral,
    splitting,
    statistics,
    transcendental,
    trigonometric,
)
from ndgrad.ops._op import OP_TABLE, Op
from ndgrad.ops.activation import *  # noqa: F403
from ndgrad.ops.arithmetic import *  # noqa: F403
from ndgrad.ops.assembling import *  # noqa: F403
from ndgrad.ops.attention import *  # noqa: F403
from ndgrad.ops.classification_losses import *  # noqa: F403
from ndgrad.ops.comparison import *  # noqa: F403
from ndgrad.ops.complex_numbers import *  # noqa: F403
from ndgrad.ops.convolutions import *  # noqa: F403
from ndgrad.ops.ctc import *  # noqa: F403
from ndgrad.ops.decompositions import *  # noqa: F403
from ndgrad.ops.dropouts import *  # noqa: F403
from ndgrad.ops.eigen import *  # noqa: F403
from ndgrad.ops.einsums import *  # noqa: F403
from ndgrad.ops.gather_scatter import *  # noqa: F403
from ndgrad.ops.grids import *  # noqa: F403
from ndgrad.ops.indexing import *  # noqa: F403
from ndgrad.ops.joining import *  # noqa: F403
from ndgrad.ops.layers import *  # noqa: F403
from ndgrad.ops.linalg import *  # noqa: F403
from ndgrad.ops.lu import *  # noqa: F403
from ndgrad.ops.margin_losses import *  # noqa: F403
from ndgrad.ops.matrix_functions import *  # noqa: F403
from ndgrad.ops.max_pooling import *  # noqa: F403
from ndgrad.ops.more_activations import *  # noqa: F403
from ndgrad.ops.multiply_add import *  # noqa: F403
from ndgrad.ops.norm_based import *  # noqa: F403
from ndgrad.ops.normalization import *  # noqa: F403
from ndgrad.ops.number_parts import *  # noqa: F403
from ndgrad.ops.pooling import *  # noqa: F403
from ndgrad.ops.products import *  # noqa: F403
from ndgrad.ops.random import *  # noqa: F403
from ndgrad.ops.reduction import *  # noqa: F403
from ndgrad.ops.regression_losses import *  # noqa: F403
from ndgrad.ops.resampling import *  # noqa: F403
from ndgrad.ops.rounding import *  # noqa: F403
from ndgrad.ops.scan import *  # noqa: F403
from ndgrad.ops.selection import *  # noqa: F403
from ndgrad.ops.shape import *  # noqa: F403
from ndgrad.ops.short_time import *  # noqa: F403
from ndgrad.ops.softmaxes import *  # noqa: F403
from ndgrad.ops.solvers import *  # noqa: F403
from ndgrad.ops.sorting import *  # noqa: F403
from ndgrad.ops.sparse import *  # noqa: F403
from ndgrad.ops.special import *  # noqa: F403
from ndgrad.ops.special_functions import *  # noqa: F403
from ndgrad.ops.spectral import *  # noqa: F403
from ndgrad.ops.splitting import *  # noqa: F403
from ndgrad.ops.statistics import *  # noqa: F403
from ndgrad.ops.transcendental import *  # noqa: F403
from ndgrad.ops.trigonometric import *  # noqa: F403

FAMILIES = (
    arithmetic, rounding, transcendental, trigonometric, special, special_functions, bessel, orthogonal_polynomials,
    activation, comparison, complex_numbers, reduction, selection, scan, shape, splitting, joining, grids, indexing,
    gather_scatter, sorting, linalg, softmaxes, regression_losses, classification_losses, margin_losses, ctc,
    attention, layers, dropouts, more_activations, normalization, convolutions, max_pooling, pooling,
    functional_pooling, resampling, products, solvers, lu, decompositions, matrix_functions, spectral, short_time,
    eigen, einsums,
    random, sparse, multiply_add, statistics, number_parts, norm_based, assembling,
)
__all__ = [name for family in FAMILIES for name in family.__all__]

