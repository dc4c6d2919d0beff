"""Folds of a gmx scatter into the gmx scatter it writes into (patterns of `--gmx-canonicalize`).

    fold-identity-reset   scatter_R(scatter(x, i, c), i, u) -> select(touched, scatter_R(c, i, u), x), one scatter

torch's `scatter_reduce(..., include_self=False)` (and `mean`'s counts)
scatters a constant `c` (the reduction's identity) at the positions first,
then the reduction of the updates into that: two scatters reading the same
indices. One scatter of the reduction writes both what the pair writes and
which positions it touches, on the input stacked with a marker channel:
`stack(c, m0)` along a new last dim, the updates `stack(u, m1)`, where the
reduction of `m0` with any number of `m1` is never `m0` again (add: 0 then
1s, a count; mul: 1 then 0s; max: 0 then 1s; min: 1 then 0s). Then the
value channel is the pair's result where the marker moved, `x` elsewhere:
bit for bit the pair's (the same combinations in the same row-major order
into the same `c`), at every position, in every mode (a skipped or clipped
update is skipped or clipped in both channels).
"""

from __future__ import annotations

from gmx.dialect.gmx import read_axes, read_mode
from gmx.dialect.mlir import arith, ir, tensor
from gmx.dialect.reductions import Reduction
from gmx.dialect.scatter import SCATTER_OP_NAME, has_unique_indices, read_reduction

from .raised_gather import Viewed
from .raised_scatter import RaisedScatter, emit_scatter
from .scatter_spec import splat_updates
from ..patterns import pattern, require
from ..views import defining_op, emit_view, static_shape_of, strip_views, tensor_type

# (m0, m1) per reduction: the marker's start and what each update brings
MARKERS = {Reduction.ADD: (0, 1), Reduction.MUL: (1, 0), Reduction.MAX: (0, 1), Reduction.MIN: (1, 0)}


def markers(reduction: Reduction) -> tuple[int, int] | None:
    """The marker channel's (start, update) for `reduction`: combined by it,
    the start never comes back once an update met it (None: no reduction)."""
    return MARKERS.get(reduction)


def _splat(shape: list[int], element_type, value) -> ir.Value:
    """A splat constant of `shape`: `value` an attribute, or a Python number."""
    if not isinstance(value, ir.Attribute):
        value = (ir.FloatAttr.get(element_type, float(value)) if isinstance(element_type, ir.FloatType)
                 else ir.IntegerAttr.get(element_type, int(value)))
    result_type = tensor_type(shape, element_type)
    return arith.constant(result_type, ir.DenseElementsAttr.get_splat(result_type, value))


def _stacked(value: ir.Value, shape: list[int], element_type, marker) -> ir.Value:
    """`stack(value, marker)` along a new last dim: `value` of `shape`, the marker a splat."""
    unit = shape + [1]
    return tensor.concat(tensor_type(shape + [2], element_type), len(shape),
                         [emit_view(value, unit), _splat(unit, element_type, marker)])


def _channel(stacked: ir.Value, shape: list[int], element_type, k: int) -> ir.Value:
    """Channel `k` of `_stacked`'s layout, as `shape`."""
    rank = len(shape) + 1
    sliced = tensor.extract_slice(tensor_type(shape + [1], element_type), stacked, [], [], [],
                                  [0] * (rank - 1) + [k], shape + [1], [1] * rank)
    return emit_view(sliced, shape)


def _touched(marker: ir.Value, shape: list[int], element_type, start: int) -> ir.Value:
    """Where the marker channel is no longer its start."""
    start = _splat(shape, element_type, start)
    if isinstance(element_type, ir.FloatType):
        return arith.cmpf(arith.CmpFPredicate.UNE, marker, start)
    return arith.cmpi(arith.CmpIPredicate.ne, marker, start)


def _same_indices(a: ir.Value, b: ir.Value) -> bool:
    """The same index value, or the same view of one (two reshapes of it)."""
    return a == b or (strip_views(a)[0] == strip_views(b)[0] and static_shape_of(a) == static_shape_of(b))


def fold_identity_reset(op, rewriter):
    """A reduction scattered into a scatter of one constant at the same
    positions (torch's `include_self=False`) becomes one scatter on the
    input stacked with a marker, and a select (`x.scatter_reduce(0, i, u,
    "amax", include_self=False)` in linalg-on-tensors, raised):

        %r = "gmx.scatter_multiaxis"(%x, %i, %ninf) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<1x1xf32>) -> tensor<4x3xf32>
        %y = "gmx.scatter_multiaxis"(%r, %i, %u) {axes = array<i64: 0>, reduction = "max"} : (tensor<4x3xf32>, tensor<5x3xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
    becomes
        %in = tensor.concat dim(2) (-inf : 4x3x1), (0.0 : 4x3x1) : tensor<4x3x2xf32>
        %up = tensor.concat dim(2) (expand %u : 5x3x1), (1.0 : 5x3x1) : tensor<5x3x2xf32>
        %s = "gmx.scatter_multiaxis"(%in, expand(%i) : tensor<5x3x1xi64>, %up) {axes = array<i64: 0>, reduction = "max"}
        %y = arith.select (arith.cmpf une, channel 1 of %s, 0.0), channel 0 of %s, %x : tensor<4x3xi1>, tensor<4x3xf32>
    Left alone: a first scatter of anything but one constant, or with a
    reduction; other indices (another value), axes or mode; a first scatter
    read elsewhere too; a second scatter without a reduction.
    """
    reduction = read_reduction(op)
    marker = markers(reduction)
    require(marker is not None, f'reduction "{reduction.value}"')
    reset = defining_op(op.operands[0])
    require(reset is not None and reset.name == SCATTER_OP_NAME, "the input is no gmx scatter")
    require(read_reduction(reset) is Reduction.NONE, "the first scatter reduces")
    constant = splat_updates(reset.operands[2])
    require(constant is not None, "the first scatter writes no one constant")
    require(_same_indices(reset.operands[1], op.operands[1]), "the scatters read other indices")
    require(read_axes(reset) == read_axes(op) and read_mode(reset) == read_mode(op), "other axes or mode")
    require(len(list(reset.results[0].uses)) == 1, "the first scatter is read elsewhere too")
    x, indices, updates = reset.operands[0], op.operands[1], op.operands[2]
    shape, index_shape, update_shape = static_shape_of(x), static_shape_of(indices), static_shape_of(updates)
    require(None not in (shape, index_shape, update_shape), "a dynamic shape")
    axes = read_axes(op)
    element_type = ir.RankedTensorType(x.type).element_type
    tuples = len(axes)
    stacked_indices = index_shape[:-1] + [index_shape[-1] // tuples, tuples] if index_shape else [1]
    with rewriter.ip, op.location:
        stacked = emit_scatter(RaisedScatter(
            Viewed(lambda: tensor.concat(tensor_type(shape + [2], element_type), len(shape), [
                _splat(shape + [1], element_type, constant.get_splat_value()),
                _splat(shape + [1], element_type, marker[0])])),
            Viewed(indices, stacked_indices),
            Viewed(lambda: _stacked(updates, update_shape, element_type, marker[1])),
            axes, mode=read_mode(op)[0], reduction=reduction, unique_indices=has_unique_indices(op)))
        touched = _touched(_channel(stacked, shape, element_type, 1), shape, element_type, marker[0])
        value = arith.select(touched, _channel(stacked, shape, element_type, 0), x)
    rewriter.replace_op(op, [value])
    rewriter.erase_op(reset)
    return False


PATTERNS = (pattern(fold_identity_reset, SCATTER_OP_NAME),)
