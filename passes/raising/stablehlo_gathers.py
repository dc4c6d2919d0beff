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
(`plan_gather`); the patterns read the IR, call it and build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from gmx.dialect.gmx import infer_result_type, is_index_element_type, mlir_shape, static_shape
from gmx.dialect.mlir import arith, ir, stablehlo, tensor
from gmx.dialect.modes import Mode
from gmx.dialect.shapes import GatherShapeError

from .gather_spec import dense_attribute
from .index_values import ELEMENTWISE, constant_value, elementwise_operands
from .raised_gather import RaisedGather, Viewed, emit_gather
from ..patterns import NoMatch, pattern, require
from ..views import VIEW_OPS, can_view, defining_op, emit_view, op_name, shape_of, unit_view_groups, view_groups

GATHER = "stablehlo.gather"


# --- the decision: pure functions of the dimension numbers -------------------------------------


@dataclass(frozen=True)
class GatherDims:
    """A `stablehlo.gather`'s dimension numbers and slice sizes."""

    offset_dims: tuple = ()
    collapsed_slice_dims: tuple = ()
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()
    start_index_map: tuple = ()
    index_vector_dim: int = 0
    slice_sizes: tuple = ()


@dataclass(frozen=True)
class Slot:
    """One dim of the gmx op: the operand dim it reads (None: a unit dim
    inserted into the input), the start-indices dim it follows (None: a
    unit dim of the indices), and whether StableHLO's result has it (False:
    a unit dim collapsed away after the gather)."""

    operand: int | None
    index: int | None
    in_result: bool = True


@dataclass(frozen=True)
class GatherPlan:
    slots: tuple  # of Slot, the gmx op's dims in order
    axes: tuple  # gmx axes: coordinate j of the index vector reads slot axes[j]


def absorb_iota_coordinates(dims: GatherDims, iotas: dict, operand_shape: Sequence, index_shape: Sequence) -> GatherDims:
    """The same gather with coordinate j made a batching pair where the index
    vector's component j is an iota along a batch dim of the indices
    (`iotas`: j -> that dim) as large as the operand dim it indexes: torch-mlir
    spells `torch.gather`'s untouched dims so (a concatenate of iotas).
    The values of such an iota are in range, so the clamp never applies."""
    batching_operand, batching_index = list(dims.operand_batching_dims), list(dims.start_indices_batching_dims)
    start_index_map, collapsed = list(dims.start_index_map), list(dims.collapsed_slice_dims)
    for j, b in sorted(iotas.items(), reverse=True):
        d = dims.start_index_map[j]
        size = operand_shape[d]
        if size is None or size != index_shape[b] or b in batching_index or d not in collapsed:
            continue
        batching_operand.append(d)
        batching_index.append(b)
        del start_index_map[j]
        collapsed.remove(d)
    return replace(
        dims,
        operand_batching_dims=tuple(batching_operand),
        start_indices_batching_dims=tuple(batching_index),
        start_index_map=tuple(start_index_map),
        collapsed_slice_dims=tuple(sorted(collapsed)),
    )


def plan_gather(dims: GatherDims, operand_shape: Sequence, index_shape: Sequence) -> GatherPlan:
    """The gmx op that computes `stablehlo.gather` with `dims` (shapes with
    None for `?`), as slots: the operand with unit dims inserted is its
    input, the start indices (index vector last) reshaped its indices, and
    its result with the `in_result=False` slots collapsed is the gather's.
    NoMatch (saying why) for what gmx cannot express without a window or a
    transpose."""
    rank, index_rank, ivd = len(operand_shape), len(index_shape), dims.index_vector_dim
    indexed = set(dims.start_index_map)
    require(dims.start_index_map, "no start index: nothing is gathered")
    if ivd < index_rank:
        require(ivd == index_rank - 1 or index_shape[ivd] == 1,
                "the index vector is not the last dim of the start indices (a transpose)")
    pairs = dict(zip(dims.start_indices_batching_dims, dims.operand_batching_dims))
    for d in range(rank):
        size, slice_size = operand_shape[d], dims.slice_sizes[d]
        if d in indexed:
            if slice_size != 1:
                require(slice_size != size, f"operand dim {d} is indexed over its full extent (a start StableHLO ignores)")
                raise NoMatch(f"operand dim {d} is indexed with a slice of {slice_size} (a window)")
        elif d in dims.collapsed_slice_dims:
            require(size == 1, f"operand dim {d} is collapsed but not indexed: only element 0 of {size} (a window)")
        elif d not in dims.operand_batching_dims:
            require(size is not None and slice_size == size,
                    f"operand dim {d}: a slice of {slice_size} of {'?' if size is None else size} (a window)")
    offsets = [d for d in range(rank) if d not in dims.collapsed_slice_dims and d not in dims.operand_batching_dims]
    batch = [b for b in range(index_rank) if b != ivd]
    slots, offset_iter, batch_iter = [], iter(offsets), iter(batch)
    for p in range(len(batch) + len(offsets)):
        if p in dims.offset_dims:
            slots.append(Slot(next(offset_iter), None))
        else:
            b = next(batch_iter)
            slots.append(Slot(pairs.get(b), b))
    for d in sorted(dims.collapsed_slice_dims):
        placed = [p for p, s in enumerate(slots) if s.operand is not None]
        low = max((p for p in placed if slots[p].operand < d), default=-1)
        high = min((p for p in placed if slots[p].operand > d), default=len(slots))
        free = [p for p in range(low + 1, high) if slots[p].operand is None]
        if free:
            slots[free[0]] = replace(slots[free[0]], operand=d)
        else:
            slots.insert(low + 1, Slot(d, None, in_result=False))
    order = [s.operand for s in slots if s.operand is not None]
    require(order == sorted(order), f"the operand's dims would be read in the order {order} (a transpose)")
    where = {s.operand: p for p, s in enumerate(slots) if s.operand is not None}
    return GatherPlan(tuple(slots), tuple(where[d] for d in dims.start_index_map))


def gmx_shapes(plan: GatherPlan, operand_shape: Sequence, index_shape: Sequence) -> tuple[list, list]:
    """The shapes of the gmx op's input and indices for `plan` (None for `?`):
    the operand with unit dims, and the start indices' batch dims with unit
    dims, the index vector folded into the last."""
    input_shape = [1 if s.operand is None else operand_shape[s.operand] for s in plan.slots]
    indices_shape = [1 if s.index is None else index_shape[s.index] for s in plan.slots]
    last = indices_shape[-1]
    indices_shape[-1] = None if last is None else last * len(plan.axes)
    return input_shape, indices_shape


# --- reading the IR --------------------------------------------------------------------------


def gather_dims(op) -> GatherDims:
    numbers = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    return GatherDims(
        offset_dims=tuple(numbers.offset_dims),
        collapsed_slice_dims=tuple(numbers.collapsed_slice_dims),
        operand_batching_dims=tuple(numbers.operand_batching_dims),
        start_indices_batching_dims=tuple(numbers.start_indices_batching_dims),
        start_index_map=tuple(numbers.start_index_map),
        index_vector_dim=numbers.index_vector_dim,
        slice_sizes=tuple(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])),
    )


def ranked_shape_of(value: ir.Value) -> list:
    """`views.shape_of` (None for each `?`); NoMatch for an unranked tensor."""
    require(isinstance(value.type, ir.RankedTensorType), f"{value.type} is not a ranked tensor")
    return shape_of(value)


def _iota_dim(value: ir.Value) -> int | None:
    """The iota dim of `value` if it is a `stablehlo.iota` (or a
    `dynamic_iota`, torch-mlir's where a dim is `?`), else None."""
    if op_name(value) not in ("stablehlo.iota", "stablehlo.dynamic_iota"):
        return None
    return ir.IntegerAttr(defining_op(value).attributes["iota_dimension"]).value


def _components(indices: ir.Value, ivd: int) -> list[ir.Value] | None:
    """The pieces of a `stablehlo.concatenate` of the start indices along the
    index vector, one component each, or None."""
    if op_name(indices) != "stablehlo.concatenate":
        return None
    concat = defining_op(indices)
    if ir.IntegerAttr(concat.attributes["dimension"]).value != ivd:
        return None
    pieces = list(concat.operands)
    if any(ranked_shape_of(p)[ivd] != 1 for p in pieces):
        return None
    return pieces


@dataclass
class ReadGather:
    """A stablehlo.gather as gmx sees it: operand, start indices (their iota
    components absorbed), dimension numbers, and the components left (None:
    the start indices as they are)."""

    operand: ir.Value
    indices: ir.Value
    dims: GatherDims
    components: list | None


def read_gather(op) -> ReadGather:
    operand, indices = op.operands[0], op.operands[1]
    dims = gather_dims(op)
    operand_shape, index_shape = ranked_shape_of(operand), ranked_shape_of(indices)
    require(is_index_element_type(ir.RankedTensorType(indices.type).element_type),
            f"index element type {ir.RankedTensorType(indices.type).element_type} is not a signless integer")
    pieces = _components(indices, dims.index_vector_dim)
    if pieces is None:
        return ReadGather(operand, indices, dims, None)
    iotas = {j: _iota_dim(p) for j, p in enumerate(pieces) if _iota_dim(p) not in (None, dims.index_vector_dim)}
    absorbed = absorb_iota_coordinates(dims, iotas, operand_shape, index_shape)
    if absorbed == dims:
        return ReadGather(operand, indices, dims, None)
    kept = [p for j, p in enumerate(pieces) if dims.start_index_map[j] in absorbed.start_index_map]
    return ReadGather(operand, indices, absorbed, kept)


_VIEWS = ("stablehlo.broadcast_in_dim", "stablehlo.reshape")


def _dim_of(value: ir.Value, source: ir.Value) -> int | None:
    """k where `value` is `tensor.dim source, k` (under an index_cast), else None."""
    if op_name(value) == "arith.index_cast":
        value = defining_op(value).operands[0]
    if op_name(value) != "tensor.dim" or defining_op(value).operands[0] != source:
        return None
    k = defining_op(value).operands[1]
    if op_name(k) != "arith.constant":
        return None
    return ir.IntegerAttr(defining_op(k).attributes["value"]).value


def _is_dynamic_view(op) -> bool:
    """A stablehlo.dynamic_reshape that adds or drops unit dims only: its
    shape is `tensor.from_elements` of the source's own `tensor.dim`s for
    its `?`s (torch-mlir's `x.unsqueeze(-1)` where a dim is `?`)."""
    source, result = op.operands[0], op.results[0]
    source_shape, result_shape = ranked_shape_of(source), ranked_shape_of(result)
    if not unit_view_shapes(source_shape, result_shape) or op_name(op.operands[1]) != "tensor.from_elements":
        return False
    elements = list(defining_op(op.operands[1]).operands)
    dynamic_source = [k for k, s in enumerate(source_shape) if s is None]
    dynamic_result = [k for k, s in enumerate(result_shape) if s is None]
    return [_dim_of(elements[k], source) for k in dynamic_result] == dynamic_source


def _is_view(op) -> bool:
    """A stablehlo.reshape, a dynamic_reshape `_is_dynamic_view`, or a
    broadcast_in_dim that only adds unit dims."""
    if op.name == "stablehlo.reshape":
        return True
    if op.name == "stablehlo.dynamic_reshape":
        return _is_dynamic_view(op)
    source, result = ranked_shape_of(op.operands[0]), ranked_shape_of(op.results[0])
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    return (dims == sorted(dims) and [result[d] for d in dims] == source
            and all(result[d] == 1 for d in range(len(result)) if d not in dims))


def _under_views(value: ir.Value) -> ir.Value:
    while op_name(value) in _VIEWS and _is_view(defining_op(value)):
        value = defining_op(value).operands[0]
    return value


# --- building ----------------------------------------------------------------------------------


def unit_view_shapes(source: Sequence, target: Sequence) -> bool:
    """Whether `target` is `source` with static unit dims added or dropped
    (each `?` keeping its place among the other dims)."""
    return unit_view_groups(source, target) is not None


def view(value: ir.Value, shape: Sequence) -> ir.Value:
    """`value` reshaped to `shape` (`can_view`) by `views.emit_view`, the
    views above `value` that lead there looked through (a view of a view is
    one view; the first one dies)."""
    while op_name(value) in VIEW_OPS and can_view(ranked_shape_of(defining_op(value).operands[0]), shape):
        value = defining_op(value).operands[0]
    return emit_view(value, shape, unit_dims_first=True)


def _concat(pieces: list[ir.Value], dim: int) -> ir.Value:
    """`pieces` concatenated along `dim` (one piece: itself)."""
    if len(pieces) == 1:
        return pieces[0]
    shape = ranked_shape_of(pieces[0])
    sizes = [ranked_shape_of(p)[dim] for p in pieces]
    shape[dim] = None if None in sizes else sum(sizes)
    element_type = ir.RankedTensorType(pieces[0].type).element_type
    return tensor.concat(ir.RankedTensorType.get(mlir_shape(shape), element_type), dim, pieces)


@dataclass(frozen=True)
class Built:
    """What the gmx op is built from: the start indices as the gather's
    layout has them (index vector last), how to build them (called under
    the rewriter's insertion point), and their shape."""

    shape: list
    build: object  # () -> ir.Value


def emit_gmx(op, read: ReadGather, rewriter, start: Built, mode: Mode, fill_value=None) -> ir.Value:
    """Build the gmx op computing `op`'s result (`read` its reading, `start`
    its start indices) in `mode`, reshaped and cast to the op's result type.
    NoMatch, before anything is built, when gmx cannot express it."""
    operand_shape, index_shape = ranked_shape_of(read.operand), list(start.shape)
    plan = plan_gather(read.dims, operand_shape, index_shape)
    input_shape, indices_shape = gmx_shapes(plan, operand_shape, index_shape)
    vector_shape = [index_shape[s.index] for s in plan.slots if s.index is not None] + [len(plan.axes)]
    element_type = ir.RankedTensorType(read.operand.type).element_type
    index_type = ir.RankedTensorType(read.indices.type).element_type
    try:
        gathered = infer_result_type(ir.RankedTensorType.get(mlir_shape(input_shape), element_type),
                                     ir.RankedTensorType.get(mlir_shape(indices_shape), index_type), list(plan.axes))
    except GatherShapeError as error:
        raise NoMatch(str(error)) from None
    gathered_shape = static_shape(gathered)
    result_shape = [gathered_shape[p] for p, s in enumerate(plan.slots) if s.in_result]
    result_type = ir.RankedTensorType(op.results[0].type)
    for source, target in ((operand_shape, input_shape), (index_shape, vector_shape),
                           (vector_shape, indices_shape), (gathered_shape, result_shape)):
        require(can_view(source, target), f"no view from {source} to {target}")
    require(all(a is None or b is None or a == b for a, b in zip(result_shape, ranked_shape_of(op.results[0]))),
            f"gmx infers {result_shape}, the gather has {ranked_shape_of(op.results[0])}")
    with rewriter.ip, op.location:
        indices = view(view(start.build(), vector_shape), indices_shape)
        return emit_gather(RaisedGather(
            Viewed(lambda: view(read.operand, input_shape)), Viewed(indices), plan.axes, mode, fill_value,
            result=Viewed(shape=result_shape, unit_dims_first=True), result_type=result_type))


def _view_source(value: ir.Value) -> ir.Value:
    """The value under StableHLO's reshapes of `value` (`reshape`,
    `dynamic_reshape`, a `broadcast_in_dim` adding unit dims) as far as one
    view leads back to `value`'s shape: a gmx op's indices are read
    through them, and they die (a `dynamic_reshape` has no lowering here)."""
    shape, source = ranked_shape_of(value), value
    while op_name(source) in _VIEWS + ("stablehlo.dynamic_reshape",) and _is_view(defining_op(source)):
        below = defining_op(source).operands[0]
        if not can_view(ranked_shape_of(below), shape):
            break
        source = below
    return source


def _as_is(value: ir.Value) -> ir.Value:
    """`value`, read through its StableHLO reshapes."""
    return view(_view_source(value), ranked_shape_of(value))


def _start(read: ReadGather) -> Built:
    """The gather's own start indices, only the components gmx reads."""
    if read.components is None:
        return Built(ranked_shape_of(read.indices), lambda: _as_is(read.indices))
    shape = ranked_shape_of(read.indices)
    shape[read.dims.index_vector_dim] = len(read.components)
    return Built(shape, lambda: _concat([_as_is(c) for c in read.components], read.dims.index_vector_dim))


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
        rewriter.replace_op(op, [emit_gmx(op, read, rewriter, _start(read), Mode.CLIP)])
    return False


# --- raise-jax-fill-gather -----------------------------------------------------------------

def _constant(value: ir.Value) -> list[int] | None:
    """The integers a constant under StableHLO's reshapes and broadcasts (of
    any shape, `?` dims too) holds, flat, as `index_values` evaluates them, or None."""
    while op_name(value) in _VIEWS:
        value = defining_op(value).operands[0]
    array = constant_value(value)
    return None if array is None else [int(v) for v in array.reshape(-1)]


def _splat(value: ir.Value) -> int | None:
    """The one integer of a constant broadcast from a scalar, or None."""
    values = _constant(value)
    return values[0] if values is not None and len(set(values)) == 1 else None


def _fill_value(value: ir.Value):
    """The number a splat constant (under reshapes and broadcasts) holds, or
    None: JAX's fill value, of the gathered element type (a float too; the
    integer evaluator `index_values` reads the index arithmetic)."""
    while op_name(value) in _VIEWS:
        value = defining_op(value).operands[0]
    if op_name(value) not in ("stablehlo.constant", "arith.constant"):
        return None
    attr = defining_op(value).attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    splat = attr.get_splat_value()
    return splat.value if isinstance(splat, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)) else None


def _compare(value: ir.Value, direction: str) -> tuple | None:
    """(lhs, rhs) of a signed `stablehlo.compare` in `direction`, or None."""
    if op_name(value) != "stablehlo.compare":
        return None
    compare = defining_op(value)
    if stablehlo.ComparisonDirectionAttr(compare.attributes["comparison_direction"]).value != direction:
        return None
    if "compare_type" in compare.attributes \
            and stablehlo.ComparisonTypeAttr(compare.attributes["compare_type"]).value != "SIGNED":
        return None
    return compare.operands[0], compare.operands[1]


def _in_bounds(mask: ir.Value, indices: ir.Value, uppers: list[int], ivd: int) -> bool:
    """Whether `mask` is JAX's `reduce_and(0 <= indices <= uppers)` over the index vector."""
    if op_name(mask) != "stablehlo.reduce":
        return False
    reduce = defining_op(mask)
    body = [o.name for o in reduce.regions[0].blocks[0].operations]
    if (len(reduce.operands) != 2 or _splat(reduce.operands[1]) != 1 or body[0] != "stablehlo.and"
            or list(ir.DenseI64ArrayAttr(reduce.attributes["dimensions"])) != [ivd]
            or op_name(reduce.operands[0]) != "stablehlo.and"):
        return False
    ge, le = (_compare(v, d) for v, d in zip(defining_op(reduce.operands[0]).operands, ("GE", "LE")))
    if ge is None or le is None or ge[0] != indices or le[0] != indices or _splat(ge[1]) != 0:
        return False
    bounds = _constant(le[1])
    return bounds is not None and (bounds == uppers or set(bounds) == set(uppers) == {uppers[0]})


def _unwrapped(value: ir.Value, size: int) -> ir.Value | None:
    """`v` where `value` is JAX's negative wrap `select(v < 0, v + size, v)`, or None."""
    if op_name(value) != "stablehlo.select":
        return None
    condition, wrapped, plain = defining_op(value).operands
    less = _compare(condition, "LT")
    if less is None or less[0] != plain or _splat(less[1]) != 0:
        return None
    if op_name(wrapped) != "stablehlo.add" or defining_op(wrapped).operands[0] != plain:
        return None
    return plain if _splat(defining_op(wrapped).operands[1]) == size else None


@dataclass(frozen=True)
class RawComponent:
    """One index component before JAX's negative wrap: `value`, narrowed to
    `narrow` (an element type) if JAX narrowed it after the wrap, and
    reshaped to `shape` (the component's shape at the gather)."""

    value: ir.Value
    narrow: object
    shape: list

    def build(self) -> ir.Value:
        value = self.value
        if self.narrow is not None:
            narrowed = ir.RankedTensorType.get(mlir_shape(ranked_shape_of(value)), self.narrow)
            value = ir.Operation.create("stablehlo.convert", results=[narrowed], operands=[value]).result
        return emit_view(value, self.shape)


def _raw_component(value: ir.Value, size: int) -> RawComponent | None:
    """`view(convert?(view(wrap(v))))`, one component as JAX feeds it to the gather, read as `v`."""
    shape = ranked_shape_of(value)
    value = _under_views(value)
    narrow = None
    if op_name(value) == "stablehlo.convert":
        narrow = ir.RankedTensorType(value.type).element_type
        value = _under_views(defining_op(value).operands[0])
    raw = _unwrapped(value, size)
    if raw is None or view_groups(ranked_shape_of(raw), shape) is None:
        return None
    return RawComponent(raw, narrow, shape)


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
    pieces = _components(indices, dims.index_vector_dim) or [indices]
    if len(pieces) != len(sizes):
        return None
    raws = [_raw_component(p, size) for p, size in zip(pieces, sizes)]
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
        start = Built(ranked_shape_of(gather.operands[1]), lambda: _concat([r.build() for r in raws], ivd))
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
