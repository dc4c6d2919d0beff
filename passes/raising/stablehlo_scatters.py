"""StableHLO's scatters raised into gmx.scatter_multiaxis (patterns of `--gmx-canonicalize`).

    raise-stablehlo-scatter      stablehlo.scatter -> gmx scatter, mode = "skip" (or "drop" on JAX's indices)
    raise-jax-clip-scatter       stablehlo.scatter(clamp(0, i, dim - 1)) -> gmx scatter(i), mode = "clip"

`stablehlo.scatter` writes, for each update, at the operand position its
update window puts it; an update whose position is outside the operand is
skipped (StableHLO's spec decides per update element). It writes where the
gather of the same dimension numbers reads (`stablehlo_dims`), so gmx
expresses the scatters whose windows are single elements (an inserted dim,
or a window dim of size 1 that is indexed), a batching pair
(`input_batching_dims` / `scatter_indices_batching_dims`), or whole dims
(a window dim of full extent, not indexed): then every element of a window
shares its in-bounds test, the one of its indexed coordinates, and the
skip is gmx's mode "skip" (exactly: per element and per window agree).
A window between 1 and its full dim, an index over a full-extent window
(its only in-bounds start is 0), layouts needing a transpose, a variadic
scatter and an update computation other than the five below stay as they
are (`--debug-only=gmx-canonicalize` says why).

The update computation decides the reduction: a region returning its
second argument (the update) is "none"; one returning `add`, `multiply`,
`maximum` or `minimum` of its two arguments (either order: each is
commutative, NaN included) is "add", "mul", "max", "min"; `or` / `and` on
i1 are "max" / "min". StableHLO leaves the order of updates meeting at one
position unspecified; gmx's row-major order is one of them.
`unique_indices` is kept as the op's promise; `indices_are_sorted` is a
hint gmx does not need.

Negative indices: StableHLO skips them, as gmx's mode "skip" does; gmx's
"drop" wraps a negative index once before its test. A component JAX has
already wrapped (`select(i < 0, i + dim, i)`, `x.at[i]` in modes "drop",
"fill" and "promise_in_bounds"; ONNX's `where` through torch-mlir's
importer, each select operand under an identity `broadcast_in_dim`,
broadcast over the update window where the component is a batching dim) is
read before its wrap, in mode "drop", which makes gmx's wrap JAX's (and
ONNX's) (where JAX narrows the index after its wrap, the narrowing is
applied to the index instead, as raise-jax-fill-gather does); an iota or a
constant that is never negative is read as it is; where no component is
JAX's, every other one (torch-mlir's exports, `segment_sum`) is read as it
is too, in mode "skip"; beside a JAX component, it is sent out of range
where negative (`select(i < 0, INT_MAX, i)`), so that "drop" skips it as
StableHLO does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode
from gmx.dialect.reductions import REDUCTION_ATTR, Reduction
from gmx.dialect.scatter import reduction_violation

from .index_values import constant_value
from .raised_gather import Viewed
from .raised_scatter import RaisedScatter, emit_scatter
from .stablehlo_dims import DimsPlan, GatherDims, plan_dims, scatter_as_gather, scatter_dims
from .stablehlo_indices import (
    Built,
    Indexing,
    concat,
    emit_indices,
    index_components,
    iota_dim,
    layout,
    ranked_shape_of,
    raw_component,
    read_indexing,
    splat,
    start_of,
    under_views,
    view,
    view_source,
)
from ..patterns import pattern, require
from ..views import can_view, defining_op, op_name, unit_view_groups

SCATTER = "stablehlo.scatter"

# The update computations gmx has a reduction for: the one op combining the two arguments.
COMBINERS = {
    "stablehlo.add": Reduction.ADD,
    "stablehlo.multiply": Reduction.MUL,
    "stablehlo.maximum": Reduction.MAX,
    "stablehlo.minimum": Reduction.MIN,
}
# On i1, StableHLO's `or` and `and` are max and min.
I1_COMBINERS = {"stablehlo.or": Reduction.MAX, "stablehlo.and": Reduction.MIN}


# --- reading the update computation --------------------------------------------------------------


def region_reduction(region: ir.Region, element_type: ir.Type) -> Reduction:
    """The gmx reduction the update computation `region` is, on elements of
    `element_type`; NoMatch for any other computation."""
    blocks = list(region.blocks)
    require(len(blocks) == 1 and len(blocks[0].arguments) == 2, "an update computation of other than one block of two arguments")
    current, update = blocks[0].arguments
    require(all(isinstance(a.type, ir.RankedTensorType) and ir.RankedTensorType(a.type).rank == 0
                and ir.RankedTensorType(a.type).element_type == element_type for a in (current, update)),
            f"an update computation on {current.type}, {update.type}, not the operand's {element_type}")
    operations = list(blocks[0].operations)
    returned = operations[-1]
    require(returned.name == "stablehlo.return" and len(returned.operands) == 1, "an update computation of several results")
    value = returned.operands[0]
    if len(operations) == 1:
        require(value == update, "an update computation that keeps the current value")
        return Reduction.NONE
    require(len(operations) == 2, f"an update computation of {len(operations) - 1} ops")
    combine = operations[0]
    require(value == combine.results[0] and len(combine.operands) == 2
            and {combine.operands[0], combine.operands[1]} == {current, update},
            "an update computation that does not combine its two arguments")
    is_i1 = isinstance(element_type, ir.IntegerType) and element_type.width == 1
    reduction = (I1_COMBINERS if is_i1 else {}).get(combine.name, COMBINERS.get(combine.name))
    require(reduction is not None, f"an update computation by {combine.name} (no gmx reduction)")
    problem = reduction_violation({REDUCTION_ATTR: ir.StringAttr.get(reduction.value)}, element_type)
    require(problem is None, problem)
    return reduction


# --- the start indices -------------------------------------------------------------------------


def never_negative(value: ir.Value) -> bool:
    """Whether `value` (under StableHLO's views) is an iota or a constant with no negative element."""
    source = under_views(value)
    if iota_dim(source) is not None:
        return True
    array = constant_value(value)
    return array is not None and bool(np.all(array >= 0))


def skip_negative(value: ir.Value) -> ir.Value:
    """`select(value < 0, INT_MAX, value)` (`value` of a static shape):
    gmx's drop skips what StableHLO skips (a negative index) instead of
    wrapping it."""
    value_type = ir.RankedTensorType(value.type)
    element = value_type.element_type
    zero = _splat_constant(value_type, 0)
    largest = _splat_constant(value_type, (1 << (element.width - 1)) - 1)
    less = ir.Operation.create(
        "stablehlo.compare", results=[ir.RankedTensorType.get(value_type.shape, ir.IntegerType.get_signless(1))],
        operands=[value, zero],
        attributes={"comparison_direction": ir.Attribute.parse("#stablehlo<comparison_direction LT>"),
                    "compare_type": ir.Attribute.parse("#stablehlo<comparison_type SIGNED>")}).result
    return ir.Operation.create("stablehlo.select", results=[value_type], operands=[less, largest, value]).result


def _splat_constant(value_type: ir.RankedTensorType, number: int) -> ir.Value:
    attr = ir.DenseElementsAttr.get_splat(value_type, ir.IntegerAttr.get(value_type.element_type, number))
    return ir.Operation.create("stablehlo.constant", results=[value_type], attributes={"value": attr}).result


def spread_dims(piece: ir.Value) -> tuple[ir.Value, set]:
    """`(source, dims)` where `piece` is `source` broadcast along `dims` of
    `piece` (a `stablehlo.broadcast_in_dim` under at most a reshape adding or
    dropping unit dims: torch-mlir's `i[:, None]` broadcast against an
    arange); `(piece, set())` for anything else."""
    below = defining_op(piece).operands[0] if op_name(piece) == "stablehlo.reshape" else piece
    if op_name(below) != "stablehlo.broadcast_in_dim":
        return piece, set()
    broadcast = defining_op(below)
    source, dims = broadcast.operands[0], list(ir.DenseI64ArrayAttr(broadcast.attributes["broadcast_dimensions"]))
    wide, narrow = ranked_shape_of(below), ranked_shape_of(source)
    pairs = unit_view_groups(wide, ranked_shape_of(piece))
    if pairs is None or None in wide or dims != sorted(dims):
        return piece, set()
    spread = {k for k, size in enumerate(wide) if size != 1 and (k not in dims or narrow[dims.index(k)] == 1)}
    return source, {t for s, t in pairs if s in spread}


def unspread_dims(pieces: list, plan: DimsPlan) -> set:
    """The dims along which every piece is only a broadcast and which the gmx
    op broadcasts itself (a batching dim: its input dim as large, so an index
    dim of 1 there reads the same positions); empty unless every piece
    spreads exactly those."""
    batching = {s.index for p, s in enumerate(plan.slots)
                if s.operand is not None and s.index is not None and p not in plan.axes}
    spreads = [spread_dims(p)[1] for p in pieces]
    common = set.intersection(*spreads) & batching if spreads else set()
    return common if all(spread == common for spread in spreads) else set()


def _dropping_component(piece: ir.Value, size: int | None, unspread: set) -> tuple[bool | None, Callable, bool]:
    """`(wrapped, build, static)` for one start-index component (or the whole index
    vector, `size` None), unbroadcast along `unspread`: `wrapped` True where
    it is JAX's index before its wrap (gmx's drop wraps it as JAX did),
    None where it is never negative (any mode reads it), False where it may
    be negative and StableHLO skips it there; `build(skip)` builds it for
    mode skip (as it is) or, `skip` false, for drop (sent out of range
    where negative; only where `static`: its source has a static shape)."""
    shape = [1 if k in unspread else n for k, n in enumerate(ranked_shape_of(piece))]
    value = spread_dims(piece)[0] if unspread else piece
    require(can_view(ranked_shape_of(value), shape), f"no view from {ranked_shape_of(value)} to {shape}")
    raw = None if size is None else raw_component(value, size)
    if raw is not None:
        return True, lambda skip: view(raw.build(), shape), True
    source = view_source(value)
    if never_negative(value):
        return None, lambda skip: view(source, shape), True

    def build(skip: bool) -> ir.Value:
        return view(source if skip else skip_negative(source), shape)

    return False, build, ir.RankedTensorType(source.type).has_static_shape


def dropping_start(read: Indexing, operand_shape: list) -> tuple[Built, Mode]:
    """The start indices and the mode that skip what StableHLO skips: per
    component, JAX's index before its wrap, an index never negative as it
    is, any other as it is too (mode "skip"), or, beside a JAX index (mode
    "drop", which wraps), sent out of range where negative; each read before
    a broadcast along dims the gmx op broadcasts itself (`unspread_dims`)."""
    ivd, dims = read.dims.index_vector_dim, read.dims
    sizes = [operand_shape[d] for d in dims.start_index_map]
    pieces = read.components if read.components is not None else index_components(read.indices, ivd)
    if pieces is None or len(pieces) != len(sizes):
        pieces, sizes = [read.indices], [sizes[0] if len(sizes) == 1 else None]
    shape = ranked_shape_of(read.indices)
    if ivd < len(shape):
        shape[ivd] = len(dims.start_index_map)
    unspread = unspread_dims(pieces, plan_dims(dims, operand_shape, shape))
    components = [_dropping_component(p, size, unspread) for p, size in zip(pieces, sizes)]
    kinds = {wrapped for wrapped, _, _ in components}
    skip = False in kinds and True not in kinds
    require(skip or all(static for _, _, static in components), "a possibly negative index with a `?` dim")
    return (Built([1 if k in unspread else n for k, n in enumerate(shape)],
                  lambda: concat([build(skip) for _, build, _ in components], ivd)),
            Mode.SKIP if skip else Mode.DROP)


def clamped_index(indices: ir.Value, dims: GatherDims, operand_shape: list) -> ir.Value | None:
    """`i` where `indices` is `clamp(0, i, dim - 1)` per component (JAX's
    `mode="clip"`: each start clamped to `[0, dim - window]`), else None."""
    if op_name(indices) != "stablehlo.clamp":
        return None
    low, clamped, high = defining_op(indices).operands
    uppers = [operand_shape[d] if operand_shape[d] is None else operand_shape[d] - dims.slice_sizes[d]
              for d in dims.start_index_map]
    bounds = constant_value(high)
    index_shape = ranked_shape_of(indices)
    if splat(low) != 0 or bounds is None or None in uppers or None in index_shape:
        return None
    bounds = np.broadcast_to(bounds, index_shape)
    if dims.index_vector_dim < len(index_shape):
        bounds = np.moveaxis(bounds, dims.index_vector_dim, -1)
    else:
        bounds = bounds[..., None]
    return clamped if bool(np.all(bounds == np.asarray(uppers))) else None


# --- raise-stablehlo-scatter / raise-jax-clip-scatter ---------------------------------------------


def _read(op):
    """(operand, updates, dims as the gather's, reduction) of a scatter gmx can express; NoMatch otherwise."""
    require(len(op.operands) == 3 and len(op.results) == 1, "a variadic scatter (several inputs)")
    operand, _, updates = op.operands
    require(all(isinstance(v.type, ir.RankedTensorType) for v in op.operands), "an unranked tensor")
    element_type = ir.RankedTensorType(operand.type).element_type
    require(ir.RankedTensorType(updates.type).element_type == element_type,
            "updates of another element type than the operand's")
    reduction = region_reduction(op.regions[0], element_type)
    dims = scatter_as_gather(scatter_dims(op), len(ranked_shape_of(operand)), ranked_shape_of(updates))
    return operand, updates, dims, reduction


def planned_scatter(read: Indexing, start: Built, updates: ir.Value, result_type: ir.RankedTensorType, what: str,
                    mode: Mode, reduction: Reduction = Reduction.NONE, unique: bool = False) -> RaisedScatter:
    """The gmx scatter writing `updates` (shaped as StableHLO's gather of
    `read` would shape its result; `what` names them in messages) where the
    gather of `read` at `start` reads, its result viewed back as the operand;
    NoMatch, before anything is built, when gmx cannot express it. Its
    indices are built here (under the rewriter's insertion point)."""
    shape = layout(read, start, ranked_shape_of(updates), what)
    return RaisedScatter(
        Viewed(lambda: view(read.operand, shape.input)), Viewed(lambda: emit_indices(start, shape)),
        Viewed(lambda: view(updates, shape.gathered)), shape.plan.axes, mode, reduction, unique,
        result=Viewed(shape=ranked_shape_of(read.operand), unit_dims_first=True), result_type=result_type)


def _replace(op, rewriter, read: Indexing, start: Built, mode: Mode, reduction: Reduction) -> None:
    """Replace `op` by the gmx scatter of `read` at `start` in `mode`."""
    unique = ir.BoolAttr(op.attributes["unique_indices"]).value if "unique_indices" in op.attributes else False
    scatter = planned_scatter(read, start, op.operands[2], ir.RankedTensorType(op.results[0].type),
                              "scatter's updates", mode, reduction, unique)
    with rewriter.ip, op.location:
        rewriter.replace_op(op, [emit_scatter(scatter)])


def raise_stablehlo_scatter(op, rewriter):
    """A stablehlo.scatter whose update windows are single elements or whole
    dims, with an update computation gmx has a reduction for, is gmx in mode
    "skip" ("drop" on JAX's wrapped indices: see the module docstring for
    negative indices).

        %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<
                 update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
                 index_vector_dim = 1>}> ({
             ^bb0(%a: tensor<f32>, %b: tensor<f32>):
               %s = stablehlo.add %a, %b : tensor<f32>
               stablehlo.return %s : tensor<f32>
             }) : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
    becomes
        %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = "skip", reduction = "add"}
                 : (tensor<5x4xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<5x4xf32>
    Batching dims (`vmap`) are non-axis dims of gmx; iota components over a
    batch dim as large as the operand dim they index (torch-mlir's
    `scatter` / `scatter_add`, torch's `arange` in `x[i[:, None], arange(n),
    j[:, None]] = v`) become batching dims too, the other components read
    before their broadcast along them. A scatter whose indices JAX clamps is
    left to raise-jax-clip-scatter.
    """
    with op.location:
        operand, updates, dims, reduction = _read(op)
        require(clamped_index(op.operands[1], dims, ranked_shape_of(operand)) is None,
                "JAX's clamped indices (raise-jax-clip-scatter)")
        read = read_indexing(operand, op.operands[1], dims)
        _replace(op, rewriter, read, *dropping_start(read, ranked_shape_of(operand)), reduction)
    return False


def raise_jax_clip_scatter(op, rewriter):
    """JAX's `x.at[i].set(v, mode="clip")` (and add, mul, min, max) clamps
    each start index into its dim before the scatter: gmx in mode "clip" on
    the index before the clamp (JAX's negative wrap in front of the clamp
    stays: gmx's clip does not wrap).

        %k = stablehlo.clamp %c0, %i, %c5 : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi32>
        %s = "stablehlo.scatter"(%x, %k, %u) <{... inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
                 index_vector_dim = 1>}> ({ ... stablehlo.return %b ... }) : (tensor<6x4xf32>, ...) -> tensor<6x4xf32>
    becomes
        %s = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, mode = "clip"}
                 : (tensor<6x4xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    """
    with op.location:
        operand, updates, dims, reduction = _read(op)
        clamped = clamped_index(op.operands[1], dims, ranked_shape_of(operand))
        require(clamped is not None, "no clamp of each start index into its dim")
        read = read_indexing(operand, clamped, dims)
        _replace(op, rewriter, read, start_of(read), Mode.CLIP, reduction)
    return False


PATTERNS = (
    pattern(raise_jax_clip_scatter, SCATTER),
    pattern(raise_stablehlo_scatter, SCATTER),
)
