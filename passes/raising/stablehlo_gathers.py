"""StableHLO's gathers raised into gmx.gather_multiaxis (patterns of `--gmx-canonicalize`).

    raise-stablehlo-gather   stablehlo.gather -> gmx, mode = "clip"
    raise-jax-fill-gather    select(in_bounds(i), stablehlo.gather(x, wrap(i)), fill) -> gmx(x, i), mode = "fill"
    fold-stablehlo-constant-arithmetic  integer stablehlo ops on constants -> stablehlo.constant

`stablehlo.gather` reads, for each batch position of its start indices, a
slice of the operand starting at the index vector there, each start clamped
to `[0, dim - slice_size]` (StableHLO's spec). gmx expresses the slices
whose every dim is either one element at an index (`collapsed_slice_dims`,
or an offset dim of slice size 1 that is indexed), one element paired with
a batch dim of the indices (`operand_batching_dims` /
`start_indices_batching_dims`), or the whole dim (an offset dim of full
extent); the clamp is gmx's `mode = "clip"` (a slice of one element clamps
to `[0, dim - 1]`). A windowed gather (a slice size between 1 and its full
dim), a start index over a full-extent dim (StableHLO ignores it) and
layouts that would need a transpose stay as they are
(`--debug-only=gmx-canonicalize` says why); upstream's
stablehlo-legalize-to-linalg lowers them.

The decision is a pure function of the dimension numbers and shapes
(`stablehlo_dims.plan_dims`, shared with the scatters); the start
indices are read by `stablehlo_indices`; the patterns call them and build.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gmx.dialect.mlir import ir
from gmx.dialect.modes import Mode

from .gather_spec import dense_attribute
from .index_values import ELEMENTWISE, constant_value, elementwise_operands
from .raised_gather import RaisedGather, Viewed, emit_gather
from .stablehlo_dims import GatherDims, gather_dims
from .stablehlo_indices import (
    ranked_shape_of,
    VIEWS,
    Built,
    Indexing,
    compare,
    concat,
    constant_integers,
    emit_indices,
    index_components,
    layout,
    raw_component,
    read_indexing,
    splat,
    start_of,
    view,
)
from ..patterns import pattern, require
from ..views import defining_op, op_name

GATHER = "stablehlo.gather"


def read_gather(op) -> Indexing:
    return read_indexing(op.operands[0], op.operands[1], gather_dims(op))


def emit_gmx(op, read: Indexing, rewriter, start: Built, mode: Mode, fill_value=None) -> ir.Value:
    """Build the gmx op computing `op`'s result (`read` its reading, `start`
    its start indices) in `mode`, reshaped and cast to the op's result type.
    NoMatch, before anything is built, when gmx cannot express it."""
    result_type = ir.RankedTensorType(op.results[0].type)
    shape = layout(read, start, ranked_shape_of(op.results[0]), "gather")
    with rewriter.ip, op.location:
        indices = emit_indices(start, shape)
        return emit_gather(RaisedGather(
            Viewed(lambda: view(read.operand, shape.input)), Viewed(indices), shape.plan.axes, mode, fill_value,
            result=Viewed(shape=shape.result, unit_dims_first=True), result_type=result_type))


# --- raise-stablehlo-gather ----------------------------------------------------------------


def raise_stablehlo_gather(op, rewriter):
    """A stablehlo.gather whose slices are single elements or whole dims is
    gmx in mode "clip" (StableHLO clamps each start index into its dim).

        %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1],
                 collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
                 slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
    becomes
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"}
                 : (tensor<10x4xf32>, tensor<6x1xi64>) -> tensor<6x4xf32>
    Batching dims (`take_along_axis`, `vmap`) are non-axis dims of gmx;
    components of the index vector that are iotas over a batch dim as large
    as the operand dim they index (torch-mlir's `torch.gather`) become
    batching dims too. The gather of JAX's fill pattern is left to
    raise-jax-fill-gather.
    """
    with op.location:
        require(fill_pattern(op) is None, "the gather of JAX's fill pattern (raise-jax-fill-gather)")
        read = read_gather(op)
        rewriter.replace_op(op, [emit_gmx(op, read, rewriter, start_of(read), Mode.CLIP)])
    return False



# --- raise-jax-fill-gather -----------------------------------------------------------------

def _fill_value(value: ir.Value):
    """The number a splat constant (under reshapes and broadcasts) holds, or
    None: JAX's fill value, of the gathered element type (a float too; the
    integer evaluator `index_values` reads the index arithmetic)."""
    while op_name(value) in VIEWS:
        value = defining_op(value).operands[0]
    if op_name(value) not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = defining_op(value).attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    splat = attr.get_splat_value()
    return splat.value if isinstance(splat, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)) else None



def _in_bounds(mask: ir.Value, indices: ir.Value, uppers: list[int], ivd: int) -> bool:
    """Whether `mask` is JAX's `reduce_and(0 <= indices <= uppers)` over the index vector."""
    if op_name(mask) != "stablehlo.reduce":
        return False
    reduce = defining_op(mask)
    body = [o.name for o in reduce.regions[0].blocks[0].operations]
    if (len(reduce.operands) != 2 or splat(reduce.operands[1]) != 1 or body[0] != "stablehlo.and"
            or list(ir.DenseI64ArrayAttr(reduce.attributes["dimensions"])) != [ivd]
            or op_name(reduce.operands[0]) != "stablehlo.and"):
        return False
    ge, le = (compare(v, d) for v, d in zip(defining_op(reduce.operands[0]).operands, ("GE", "LE")))
    if ge is None or le is None or ge[0] != indices or le[0] != indices or splat(ge[1]) != 0:
        return False
    bounds = constant_integers(le[1])
    return bounds is not None and (bounds == uppers or set(bounds) == set(uppers) == {uppers[0]})



def _batch_mask(value: ir.Value, dims: GatherDims, rank: int) -> ir.Value | None:
    """The mask over the gather's batch dims that `value` (the select's
    condition) spreads over its result: itself where the result has no
    offset dims, else a broadcast_in_dim onto the batch dims' positions."""
    batch_positions = [p for p in range(rank) if p not in dims.offset_dims]
    if not dims.offset_dims:
        return value
    if op_name(value) != "stablehlo.broadcast_in_dim":
        return None
    broadcast = defining_op(value)
    if list(ir.DenseI64ArrayAttr(broadcast.attributes["broadcast_dimensions"])) != batch_positions:
        return None
    return broadcast.operands[0]


def fill_pattern(gather) -> tuple | None:
    """For a stablehlo.gather inside JAX's fill pattern, (the select, its
    fill value, the raw components), or None."""
    uses = list(gather.results[0].uses)
    if len(uses) != 1 or uses[0].owner.name != "stablehlo.select" or uses[0].operand_number != 1:
        return None
    select = uses[0].owner
    fill = _fill_value(select.operands[2])
    dims, indices = gather_dims(gather), gather.operands[1]
    mask = _batch_mask(select.operands[0], dims, len(ranked_shape_of(gather.results[0])))
    if fill is None or mask is None:
        return None
    operand_shape = ranked_shape_of(gather.operands[0])
    sizes = [operand_shape[d] for d in dims.start_index_map]
    if None in sizes or dims.index_vector_dim != len(ranked_shape_of(indices)) - 1:
        return None
    uppers = [operand_shape[d] - dims.slice_sizes[d] for d in dims.start_index_map]
    if not _in_bounds(mask, indices, uppers, dims.index_vector_dim):
        return None
    pieces = index_components(indices, dims.index_vector_dim) or [indices]
    if len(pieces) != len(sizes):
        return None
    raws = [raw_component(p, size) for p, size in zip(pieces, sizes)]
    return None if None in raws else (select, fill, raws)


def raise_jax_fill_gather(op, rewriter):
    """JAX's `mode="fill"` gather (`jnp.take(..., mode="fill")`,
    `x.at[i].get(mode="fill")`) is gmx in mode "fill". JAX wraps each
    negative index once, then keeps the gather's element where every
    component is in `[0, dim - 1]` and the fill value elsewhere: gmx's fill
    mode on the index before JAX's wrap. Where JAX narrows the index (i64 to
    i32) after its wrap, the narrowing is applied to the index instead: the
    same for every index the narrow type holds.

        %w = stablehlo.select (%i < 0), (%i + 6), %i : tensor<4xi1>, tensor<4xi32>
        %v = stablehlo.broadcast_in_dim %w, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
        %m = stablehlo.reduce(and(%v >= 0, %v <= 5)) applies stablehlo.and across dimensions = [1]
        %g = "stablehlo.gather"(%x, %v) <{... start_index_map = [1], index_vector_dim = 1 ...}>
        %r = stablehlo.select (broadcast %m), %g, (broadcast -7.0)
    becomes
        %e = tensor.expand_shape %i [[0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
        %r = "gmx.gather_multiaxis"(%x, %e) {axes = array<i64: 1>, fill_value = -7.0 : f32, mode = "fill"}
    Rooted at the select; the wrap, the mask and the gather become dead.
    """
    require(len(op.operands) == 3 and op_name(op.operands[1]) == GATHER, "no gather selected")
    gather = defining_op(op.operands[1])
    with op.location:
        found = fill_pattern(gather)
        require(found is not None and found[0] == op, "not JAX's fill pattern around the gather")
        _, fill, raws = found
        read = replace(read_gather(gather), dims=gather_dims(gather), components=None)
        ivd = read.dims.index_vector_dim
        start = Built(ranked_shape_of(gather.operands[1]), lambda: concat([r.build() for r in raws], ivd))
        rewriter.replace_op(op, [emit_gmx(op, read, rewriter, start, Mode.FILL, fill)])
    return False


# --- fold-stablehlo-constant-arithmetic ------------------------------------------------------------

# A folded constant larger than this is kept as its arithmetic unless it is a splat.
MAX_FOLDED_ELEMENTS = 64


def fold_stablehlo_constant_arithmetic(op, rewriter):
    """An integer (or i1) elementwise StableHLO op whose operands are all
    constants becomes the constant it computes: JAX's index helpers guard a
    divisor against 0 and test signs of constants.

        %c5 = stablehlo.constant dense<5> : tensor<i64>
        %c0 = stablehlo.constant dense<0> : tensor<i64>
        %z = stablehlo.compare EQ, %c5, %c0, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    becomes
        %z = stablehlo.constant dense<false> : tensor<i1>
    Left alone: an op with a non-constant operand, float arithmetic, an
    unsigned compare of integers, a result of more than MAX_FOLDED_ELEMENTS
    elements that is not one value everywhere.
    """
    operands = elementwise_operands(op)
    require(operands is not None and op.name.startswith("stablehlo."), "not an elementwise integer stablehlo op")
    require(all(constant_value(v) is not None for v in operands), "an operand that is not a constant")
    array = constant_value(op.results[0])
    require(array is not None, "not an integer result")
    splat = array.size > 0 and bool(np.all(array == array.reshape(-1)[0]))
    require(splat or array.size <= MAX_FOLDED_ELEMENTS, f"a result of {array.size} different elements")
    result_type = ir.RankedTensorType(op.results[0].type)
    with rewriter.ip, op.location:
        folded = ir.Operation.create("stablehlo.constant", results=[result_type],
                                     attributes={"value": dense_attribute(array, result_type.element_type)})
    rewriter.replace_op(op, [folded.result])
    return False


# the StableHLO ops `index_values` evaluates (a compare's key carries its direction)
FOLDED_OPS = tuple(sorted(name for name in ELEMENTWISE if name.startswith("stablehlo.")))

PATTERNS = (
    pattern(raise_stablehlo_gather, GATHER),
    pattern(raise_jax_fill_gather, "stablehlo.select"),
    pattern(fold_stablehlo_constant_arithmetic, *FOLDED_OPS),
)
