"""A scatter read as positions: the positions it writes as a `GatherSpec`
(a scatter writes exactly where the gather of the same input, indices and
axes reads), plus what it writes there (`ScatterWrite`), and the function
that turns the two into a `raised_scatter.RaisedScatter` for the one
emitter, `raised_scatter.emit_scatter` (`synthesize_scatter`), as
`gather_spec.synthesize` does for gathers.

The readers (`tosa_scatters`, `linalg_scatters`, and the gather's own folds
of the input's views, `input_views`, which read a gmx scatter as the spec
of its positions) hand over a spec and a write; the spec's output space is
the updates' row-major order, which every rewrite of a spec keeps (a
refinement splits dims, a layout adds unit dims): the raised scatter
combines the same updates into the same positions in the same order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gmx.dialect.mlir import arith, ir, tensor
from gmx.dialect.reductions import REDUCTION_ATTR, Reduction
from gmx.dialect.scatter import SCATTER_OP_NAME, has_unique_indices, read_reduction, reduction_violation

from .gather_spec import GatherSpec, indices_operand, plan_of, reachable_offsets, reachable_sizes
from .raised_gather import Viewed
from .raised_scatter import RaisedScatter, emit_scatter
from ..patterns import require
from ..views import defining_op, emit_view, static_shape_of, strip_views, tensor_type


@dataclass(frozen=True)
class ScatterWrite:
    """What a scatter writes at its positions: `updates` laid out over the
    spec's `result_shape` (or a splat constant: one value broadcast), combined
    by `reduction`; `unique_indices` is the frontend's promise, kept."""

    updates: ir.Value
    reduction: Reduction = Reduction.NONE
    unique_indices: bool = False
    value: ir.Attribute | None = None  # one scalar written everywhere instead of `updates`
    corner: tuple | None = None  # the updates are `updates[:c0, :c1, ...]` (a larger source's leading corner)


def is_scatter(op) -> bool:
    return op.name == SCATTER_OP_NAME


def write_of(op) -> ScatterWrite:
    """The write of an existing gmx scatter."""
    return ScatterWrite(op.operands[2], read_reduction(op), has_unique_indices(op))


def splat_updates(value: ir.Value) -> ir.DenseElementsAttr | None:
    """The constant of `value` (through views) when it holds one value
    everywhere (torch-mlir's tiled scalar: `x.scatter(1, i, -inf)`), else None."""
    owner = defining_op(strip_views(value)[0])
    if owner is None or owner.name not in ("tosa.const", "arith.constant"):
        return None
    attribute = owner.attributes["values" if owner.name == "tosa.const" else "value"]
    return attribute if isinstance(attribute, ir.DenseElementsAttr) and attribute.is_splat else None


def _updates_operand(write: ScatterWrite, shape: list[int]) -> ir.Value:
    """The updates as the gmx op reads them: a view of `shape`, or a splat as one
    broadcast element (all dims 1)."""
    splat = splat_updates(write.updates)
    if write.value is not None or splat is not None:
        element = write.value if write.value is not None else splat.get_splat_value()
        unit = tensor_type([1] * len(shape), ir.RankedTensorType(write.updates.type).element_type)
        return arith.constant(unit, ir.DenseElementsAttr.get_splat(unit, element))
    updates = write.updates
    if write.corner is not None:
        rank = len(write.corner)
        element_type = ir.RankedTensorType(updates.type).element_type
        updates = tensor.extract_slice(tensor_type(list(write.corner), element_type), updates, [], [], [],
                                       [0] * rank, list(write.corner), [1] * rank)
    return emit_view(updates, shape)


def _readable_updates(write: ScatterWrite, shape: list[int]) -> bool:
    """Whether `_updates_operand` can give the updates as `shape`."""
    if write.value is not None or splat_updates(write.updates) is not None:
        return True
    own = static_shape_of(write.updates) if write.corner is None else list(write.corner)
    return own is not None and math.prod(own) == math.prod(shape)


def synthesize_scatter(spec: GatherSpec, write: ScatterWrite, result_shape: list[int]) -> ir.Value:
    """Emit the scatter of `write` into the positions `spec` describes, at the
    current insertion point: a value of `result_shape` (a view of the
    scattered input). Positions at constant coordinates that are a slice
    (every coordinate an iota or 0: `slice_scatter`) replacing it whole
    become a `tensor.insert_slice`. NoMatch (before emitting anything) when
    gmx cannot express it: positions covering part of a non-axis dim (the
    gather would read a slice; the scatter would need one written back)."""
    plan = plan_of(spec)
    if not plan.indexed:
        return _insert_slice(spec, write, result_shape)
    element_type = ir.RankedTensorType(spec.input.type).element_type
    problem = reduction_violation({REDUCTION_ATTR: ir.StringAttr.get(write.reduction.value)}, element_type)
    require(problem is None, str(problem))
    require(_readable_updates(write, plan.gmx_out), "the updates are no view of the scattered positions")
    full = [1 if d is None else spec.input_shape[d] for d in plan.layout.input_dims]
    require(plan.gmx_input == full, "the positions cover part of a non-axis dim")
    return emit_scatter(RaisedScatter(
        Viewed(spec.input, plan.gmx_input, fold_constant=True),
        Viewed(lambda: indices_operand(plan.indexed, plan.layout, plan.logical)),
        Viewed(lambda: _updates_operand(write, plan.gmx_out)),
        plan.axes, reduction=write.reduction, unique_indices=write.unique_indices,
        result=Viewed(shape=result_shape)))


def _insert_slice(spec: GatherSpec, write: ScatterWrite, result_shape: list[int]) -> ir.Value:
    """A scatter at the positions of a slice (no index), each written once
    and replaced (`slice_scatter`), as `tensor.insert_slice` of the updates;
    NoMatch for a reduction or for positions written more than once."""
    require(write.reduction is Reduction.NONE, f'a reduction "{write.reduction}" into a slice')
    sizes, offsets = reachable_sizes(spec), reachable_offsets(spec)
    require(math.prod(sizes) == math.prod(spec.out_shape), "positions written more than once")
    require(write.value is None and splat_updates(write.updates) is None
            and math.prod(static_shape_of(write.updates) or [0]) == math.prod(sizes), "updates of another size")
    x = emit_view(spec.input, spec.input_shape, fold_constant=True)
    inserted = tensor.insert_slice(emit_view(write.updates, sizes), x, [], [], [], offsets, sizes, [1] * len(sizes))
    return emit_view(inserted, result_shape)
