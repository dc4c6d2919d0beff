"""Reading the index side of `stablehlo.gather` and `stablehlo.scatter`:
their start indices (iota components absorbed as batching dims, the
components left), StableHLO's views around them, JAX's negative wrap in
front of them, and the layout of the gmx op that indexes the same
positions (`layout`: shapes of its input, indices and gathered result,
checked to be views of StableHLO's). Both families call these; neither
builds anything here but views (`views.emit_view`) and concatenations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gmx.dialect.gmx import infer_result_type, is_index_element_type, mlir_shape, static_shape
from gmx.dialect.mlir import ir, stablehlo, tensor
from gmx.dialect.shapes import GatherShapeError

from .index_values import constant_value
from .stablehlo_dims import DimsPlan, GatherDims, absorb_iota_coordinates, gmx_shapes, plan_dims
from ..patterns import NoMatch, require
from ..views import VIEW_OPS, can_view, defining_op, emit_view, op_name, shape_of, unit_view_groups, view_groups

def ranked_shape_of(value: ir.Value) -> list:
    """`views.shape_of` (None for each `?`); NoMatch for an unranked tensor."""
    require(isinstance(value.type, ir.RankedTensorType), f"{value.type} is not a ranked tensor")
    return shape_of(value)


def iota_dim(value: ir.Value) -> int | None:
    """The iota dim of `value` if it is a `stablehlo.iota` (or a
    `dynamic_iota`, torch-mlir's where a dim is `?`) or a constant that
    counts 0, 1, ... along one dim (JAX's `arange` broadcast), else None."""
    if op_name(value) in ("stablehlo.iota", "stablehlo.dynamic_iota"):
        return ir.IntegerAttr(defining_op(value).attributes["iota_dimension"]).value
    array = constant_value(value)
    if array is None:
        return None
    for d, size in enumerate(array.shape):
        counting = np.arange(size).reshape([size if k == d else 1 for k in range(array.ndim)])
        if size > 1 and np.array_equal(array, np.broadcast_to(counting, array.shape)):
            return d
    return None


def index_components(indices: ir.Value, ivd: int) -> list[ir.Value] | None:
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
class Indexing:
    """A stablehlo.gather or scatter as gmx sees it: operand, start indices
    (their iota components absorbed), dimension numbers (a scatter's under
    the gather's names, `stablehlo_dims.scatter_as_gather`), and the
    components left (None: the start indices as they are)."""

    operand: ir.Value
    indices: ir.Value
    dims: GatherDims
    components: list | None


def read_indexing(operand: ir.Value, indices: ir.Value, dims: GatherDims) -> Indexing:
    """The `Indexing` of `operand` at the start `indices` with `dims`;
    NoMatch for indices that are not signless integers."""
    operand_shape, index_shape = ranked_shape_of(operand), ranked_shape_of(indices)
    require(is_index_element_type(ir.RankedTensorType(indices.type).element_type),
            f"index element type {ir.RankedTensorType(indices.type).element_type} is not a signless integer")
    pieces = index_components(indices, dims.index_vector_dim)
    if pieces is None:
        return Indexing(operand, indices, dims, None)
    iotas = {j: iota_dim(p) for j, p in enumerate(pieces) if iota_dim(p) not in (None, dims.index_vector_dim)}
    absorbed = absorb_iota_coordinates(dims, iotas, operand_shape, index_shape)
    if absorbed == dims:
        return Indexing(operand, indices, dims, None)
    kept = [p for j, p in enumerate(pieces) if dims.start_index_map[j] in absorbed.start_index_map]
    return Indexing(operand, indices, absorbed, kept)


VIEWS = ("stablehlo.broadcast_in_dim", "stablehlo.reshape")


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


def is_view(op) -> bool:
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


def under_views(value: ir.Value) -> ir.Value:
    while op_name(value) in VIEWS and is_view(defining_op(value)):
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


def concat(pieces: list[ir.Value], dim: int) -> ir.Value:
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

@dataclass(frozen=True)
class Layout:
    """The gmx op indexing what `read` indexes: its plan, the shapes (None for
    `?`) of its input, of the start indices with the index vector last
    (`vector`), of its indices and of its gathered result (`gathered`: a
    scatter's updates), and StableHLO's shape of that result (`result`: the
    gathered one without its `in_result=False` dims)."""

    plan: DimsPlan
    input: list
    vector: list
    indices: list
    gathered: list
    result: list


def layout(read: Indexing, start: Built, stablehlo_shape: Sequence, what: str) -> Layout:
    """The `Layout` of the gmx op for `read` with the start indices `start`,
    whose gathered result is `stablehlo_shape` as StableHLO shapes it (a
    gather's result, a scatter's updates; `what` names it in messages).
    NoMatch, before anything is built, when gmx cannot express it or a
    shape is no view of the other."""
    operand_shape, index_shape = ranked_shape_of(read.operand), list(start.shape)
    plan = plan_dims(read.dims, operand_shape, index_shape)
    input_shape, indices_shape = gmx_shapes(plan, operand_shape, index_shape)
    vector_shape = [index_shape[s.index] for s in plan.slots if s.index is not None] + [len(plan.axes)]
    element_type = ir.RankedTensorType(read.operand.type).element_type
    index_type = ir.IntegerType.get_signless(64)  # shapes alone: `index` indices are cast when built
    try:
        gathered = infer_result_type(ir.RankedTensorType.get(mlir_shape(input_shape), element_type),
                                     ir.RankedTensorType.get(mlir_shape(indices_shape), index_type), list(plan.axes))
    except GatherShapeError as error:
        raise NoMatch(str(error)) from None
    gathered_shape = static_shape(gathered)
    result_shape = [gathered_shape[p] for p, s in enumerate(plan.slots) if s.in_result]
    for source, target in ((operand_shape, input_shape), (index_shape, vector_shape),
                           (vector_shape, indices_shape), (gathered_shape, result_shape)):
        require(can_view(source, target), f"no view from {source} to {target}")
    require(all(a is None or b is None or a == b for a, b in zip(result_shape, stablehlo_shape)),
            f"gmx infers {result_shape}, the {what} has {list(stablehlo_shape)}")
    return Layout(plan, input_shape, vector_shape, indices_shape, gathered_shape, result_shape)


def emit_indices(start: Built, shape: Layout) -> ir.Value:
    """The gmx op's indices: the start indices (index vector last) viewed
    as `shape` needs them (under the rewriter's insertion point)."""
    return view(view(start.build(), shape.vector), shape.indices)


def view_source(value: ir.Value) -> ir.Value:
    """The value under StableHLO's reshapes of `value` (`reshape`,
    `dynamic_reshape`, a `broadcast_in_dim` adding unit dims) as far as one
    view leads back to `value`'s shape: a gmx op's indices are read
    through them, and they die (a `dynamic_reshape` has no lowering here)."""
    shape, source = ranked_shape_of(value), value
    while op_name(source) in VIEWS + ("stablehlo.dynamic_reshape",) and is_view(defining_op(source)):
        below = defining_op(source).operands[0]
        if not can_view(ranked_shape_of(below), shape):
            break
        source = below
    return source


def as_is(value: ir.Value) -> ir.Value:
    """`value`, read through its StableHLO reshapes."""
    return view(view_source(value), ranked_shape_of(value))


def start_of(read: Indexing) -> Built:
    """The gather's own start indices, only the components gmx reads."""
    if read.components is None:
        return Built(ranked_shape_of(read.indices), lambda: as_is(read.indices))
    shape = ranked_shape_of(read.indices)
    shape[read.dims.index_vector_dim] = len(read.components)
    return Built(shape, lambda: concat([as_is(c) for c in read.components], read.dims.index_vector_dim))


def constant_integers(value: ir.Value) -> list[int] | None:
    """The integers a constant under StableHLO's reshapes and broadcasts (of
    any shape, `?` dims too) holds, flat, as `index_values` evaluates them, or None."""
    while op_name(value) in VIEWS:
        value = defining_op(value).operands[0]
    array = constant_value(value)
    return None if array is None else [int(v) for v in array.reshape(-1)]


def splat(value: ir.Value) -> int | None:
    """The one integer of a constant broadcast from a scalar, or None."""
    values = constant_integers(value)
    return values[0] if values is not None and len(set(values)) == 1 else None


def compare(value: ir.Value, direction: str) -> tuple | None:
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



def unwrapped(value: ir.Value, size: int) -> ir.Value | None:
    """`v` where `value` is a negative wrap `select(v < 0, v + size, v)`, or
    None: JAX's, or ONNX's `where` through torch-mlir's importer (each
    operand of the select under an identity `broadcast_in_dim`)."""
    if op_name(value) != "stablehlo.select":
        return None
    condition, wrapped, plain = (under_views(v) for v in defining_op(value).operands)
    less = compare(condition, "LT")
    if less is None or under_views(less[0]) != plain or splat(less[1]) != 0:
        return None
    if op_name(wrapped) != "stablehlo.add" or under_views(defining_op(wrapped).operands[0]) != plain:
        return None
    return plain if splat(defining_op(wrapped).operands[1]) == size else None


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


def raw_component(value: ir.Value, size: int) -> RawComponent | None:
    """`view(convert?(view(wrap(v))))`, one component as JAX feeds it to the gather, read as `v`."""
    shape = ranked_shape_of(value)
    value = under_views(value)
    narrow = None
    if op_name(value) == "stablehlo.convert":
        narrow = ir.RankedTensorType(value.type).element_type
        value = under_views(defining_op(value).operands[0])
    raw = unwrapped(value, size)
    if raw is None or view_groups(ranked_shape_of(raw), shape) is None:
        return None
    return RawComponent(raw, narrow, shape)

