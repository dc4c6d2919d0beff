"""`--gmx-canonicalize` on gathers with dynamic (`?`) dims.

The static patterns read a gather into a `GatherSpec` of static sizes; a gmx
op with a `?` anywhere (input, indices, result) is read here instead, by
shapes alone (`passes.views`). torch-mlir emits such gathers for
embeddings (`nn.Embedding`, `F.embedding` with a `torch.export.Dim` on the
ids or the table; its other gathers do not export with dynamic dims):

    %x = tosa.reshape %w, [1, 10, 8]        %i = tosa.reshape %ids, [1, -1]  (2x? -> 1x?)
    %c = tosa.cast %i : tensor<1x?xi64> -> tensor<1x?xi32>
    %g = tosa.gather %x, %c -> tensor<1x?x8xf32>
    %r = tosa.reshape %g, [2, -1, 8] -> tensor<2x?x8xf32>

which raise-tosa-gather and the patterns here turn into

    %c = tosa.cast %ids : tensor<2x?xi64> -> tensor<2x?xi32>
    %i = tensor.expand_shape %c [[0], [1, 2]] output_shape [2, %dim, 1]    (%dim = tensor.dim %c, 1)
    %x = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 10, 8]
    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} -> tensor<2x?x8xf32>

(also after `--tosa-to-tensor`, where each `-1` reshape is a collapse to 1-D
and an expand by `tensor.dim` over a constant). A view whose dims cannot be
paired with certainty (two `?` in one group, a `?` merged with a gathered
row) is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect.gmx import OP_NAME, mlir_shape, mode_kwargs, read_axes
from gmx.dialect.mlir import ir, tosa
from gmx.dialect.shapes import GatherShapeError, infer_output_shape, logical_indices_shape

from .raised_gather import RaisedGather, Viewed, emit_gather
from ..patterns import pattern, require
from ..views import (VIEW_OPS, align_shapes, any_view_source, defining_op, emit_view, op_name, shape_of, view_chain,
                     view_groups, views_needed)

RESHAPE_OPS = ("tosa.reshape", "tensor.reshape")  # views whose canonical form is an expand/collapse


def is_dynamic_gather(op) -> bool:
    """A gmx op with a `?` in its input, indices or result."""
    return op.name == OP_NAME and any(None in shape_of(v) for v in (*op.operands, op.results[0]))


# --- fold-dynamic-result-reshape ------------------------------------------------------------


@dataclass(frozen=True)
class ReshapedGather:
    """The gmx op producing a reshaped result directly."""

    input: list  # the input's new shape (a view of it)
    indices: list  # the indices' new shape (a view of them)
    axes: list


def reshaped_gather(input_shape, indices_shape, axes, out_shape, target) -> ReshapedGather:
    """The single-axis gather `(input_shape, indices_shape, axes) -> out_shape`
    with its result reshaped to `target`, as one gather (shapes hold None for
    `?`); NoMatch when it is not one.

    The reshape's dim groups (`align_shapes`) must each be read from the
    indices alone (the axis, and dims where the input has size 1: the
    indices are reshaped the same way and the axis goes to the group's last
    dim), or be one input dim the indices do not vary along (kept, unit dims
    added or dropped around it).
    """
    require(len(axes) == 1, "not a single-axis gather")
    (axis,) = axes
    logical = logical_indices_shape(indices_shape, axes)
    groups = align_shapes(out_shape, target)
    require(groups is not None, "the reshape's dims do not pair with the gather's output dims")
    new_input, new_logical, new_axes = [1] * len(target), [1] * len(target), []
    for group_out, group_target in groups:
        if axis in group_out or all(input_shape[d] == 1 for d in group_out):
            require(all(input_shape[d] == 1 for d in group_out if d != axis), "an input dim merged with the axis")
            for t in group_target:
                new_logical[t] = target[t]
            if axis in group_out:
                new_input[group_target[-1]] = input_shape[axis]
                new_axes.append(group_target[-1])
            continue
        kept = [d for d in group_out if out_shape[d] != 1]
        placed = [t for t in group_target if target[t] != 1]
        require(len(kept) == 1 and len(placed) == 1, "a reshape of an input dim (or of one with the indices)")
        require(logical[kept[0]] == 1, "the indices vary along a dim the input has too")
        new_input[placed[0]] = input_shape[kept[0]]
    try:
        inferred = infer_output_shape(new_input, new_logical, new_axes)
    except GatherShapeError as error:
        require(False, str(error))
    require(inferred == list(target), f"the gather would give {inferred}, not {list(target)}")
    return ReshapedGather(new_input, new_logical, new_axes)


def _dynamic_gather_under_views(value: ir.Value):
    """The dynamic gmx op whose result reaches `value` (a view's operand)
    through views used once, besides `tensor.dim`s of them (what
    `--tosa-to-tensor` computes an expand's sizes from; such a dim used
    elsewhere too keeps the old gather alive, still right)."""
    while True:
        data_uses = [use for use in value.uses if use.owner.name != "tensor.dim"]
        require(len(data_uses) == 1, "a view of a value with other uses")
        if op_name(value) == OP_NAME:
            require(is_dynamic_gather(defining_op(value)), "a static gather (fold-result-reshape)")
            return defining_op(value)
        value = any_view_source(value)
        require(value is not None, "not a view of a gmx result")


def _viewable_from(value: ir.Value, shape: list) -> ir.Value:
    """The deepest value in the view chain under `value` that one view
    (`emit_view`) takes to `shape`."""
    for candidate in reversed(view_chain(value)):
        if view_groups(shape_of(candidate), shape) is not None:
            return candidate
    require(False, f"no view of {shape_of(value)} gives {shape}")


def fold_dynamic_result_reshape(op, rewriter):
    """A reshape of a dynamic gmx result folds into the gather: its indices
    (and its input, with unit dims) are reshaped instead.

        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<1x?x1xi32>) -> tensor<1x?x8xf32>
        %r = tosa.reshape %g, %s : (tensor<1x?x8xf32>, !tosa.shape<3>) -> tensor<2x?x8xf32>      (%s = [2, -1, 8])
    becomes
        %i2 = tensor.expand_shape (tensor.collapse_shape %i) ... output_shape [2, %n, 1]        (%n = dim / 2)
        %r = "gmx.gather_multiaxis"(%x, %i2) {axes = array<i64: 1>} : (tensor<1x10x8xf32>, tensor<2x?x1xi32>) -> tensor<2x?x8xf32>
    Chains of views count as one reshape (`--tosa-to-tensor`'s collapse to 1-D
    and expand). Left alone: two `?` in one group (`1x?x8 -> ?x?x8`), a `?`
    row merged with the gathered one (`1x10x? -> 1x?`), a gather of tuples.
    """
    gather = _dynamic_gather_under_views(op.operands[0])
    x, indices = gather.operands
    plan = reshaped_gather(shape_of(x), shape_of(indices), read_axes(gather), shape_of(gather.results[0]),
                           shape_of(op.results[0]))
    x_source, indices_source = _viewable_from(x, plan.input), _viewable_from(indices, plan.indices)
    with rewriter.ip, op.location:
        # The axis keeps its size and the index values stay: so does the mode.
        value = emit_gather(RaisedGather(Viewed(x_source, plan.input), Viewed(indices_source, plan.indices),
                                         plan.axes, **mode_kwargs(gather)))
    rewriter.replace_op(op, [value])
    return False


# --- fold-dynamic-input-views / fold-dynamic-index-views ----------------------------------------


def _is_canonical(chain: list[ir.Value], groups) -> bool:
    """Whether the views of `chain` (value first, source last) are already
    no more than `emit_view` would emit, and none is a reshape op."""
    views = chain[:-1]
    needed = views_needed(shape_of(chain[-1]), shape_of(chain[0]), groups)
    return len(views) <= needed and not any(op_name(v) in RESHAPE_OPS for v in views)


def _replace_operand(op, rewriter, position: int, value_builder) -> bool:
    """`op` rebuilt with operand `position` replaced by `value_builder()`, a
    value of the same type (so the rebuilt op has `op`'s result type)."""
    with rewriter.ip, op.location:
        operands = [Viewed(value) for value in op.operands]
        operands[position] = Viewed(value_builder)
        rewriter.replace_op(op, [emit_gather(RaisedGather(*operands, read_axes(op), **mode_kwargs(op)))])
    return False


def fold_dynamic_input_views(op, rewriter):
    """Views of a dynamic gmx op's input become the one view `emit_view` emits.

        %x = tosa.reshape %w, %s : (tensor<?x8xf32>, !tosa.shape<3>) -> tensor<1x?x8xf32>   (%s = [1, -1, 8])
        %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} ...
    becomes
        %x = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, %d, 8] ...   (%d = tensor.dim %w, 0)
    Left alone: views that are already that view, or that it cannot express.
    """
    require(is_dynamic_gather(op), "a static gather")
    chain = view_chain(op.operands[0])
    groups = view_groups(shape_of(chain[-1]), shape_of(chain[0]))
    require(groups is not None, "the views' dims do not pair with certainty")
    require(not _is_canonical(chain, groups), "the input is already one view")
    return _replace_operand(op, rewriter, 0, lambda: emit_view(chain[-1], shape_of(chain[0])))


def fold_dynamic_index_views(op, rewriter):
    """Views around a cast of a dynamic gmx op's indices become one view of
    the cast of the source (casts commute with reshapes).

        %i = tosa.reshape %ids, %s : (tensor<2x?xi64>, !tosa.shape<2>) -> tensor<1x?xi64>
        %c = tosa.cast %i : (tensor<1x?xi64>) -> tensor<1x?xi32>
        %g = "gmx.gather_multiaxis"(%x, reshape(%c) : tensor<2x?x1xi32>) ...
    becomes
        %c = tosa.cast %ids : (tensor<2x?xi64>) -> tensor<2x?xi32>
        %g = "gmx.gather_multiaxis"(%x, tensor.expand_shape %c [[0], [1, 2]] output_shape [2, %d, 1]) ...
    Without a cast, the views alone become one. Left alone: views that are
    already that one view, or that it cannot express.
    """
    require(is_dynamic_gather(op), "a static gather")
    indices = op.operands[1]
    chain = view_chain(indices)
    shape = shape_of(indices)
    below = chain[-1]
    if op_name(below) == "tosa.cast":
        cast = defining_op(below)
        source = view_chain(cast.operands[0])[-1]
        if source != cast.operands[0] and view_groups(shape_of(source), shape) is not None:
            element_type = ir.RankedTensorType(below.type).element_type
            return _replace_operand(op, rewriter, 1, lambda: emit_view(
                tosa.cast(ir.RankedTensorType.get(mlir_shape(shape_of(source)), element_type), source), shape))
    groups = view_groups(shape_of(below), shape)
    require(groups is not None, "the views' dims do not pair with certainty")
    require(not _is_canonical(chain, groups), "the indices are already one view")
    return _replace_operand(op, rewriter, 1, lambda: emit_view(below, shape))


PATTERNS = (
    pattern(fold_dynamic_input_views, OP_NAME),
    pattern(fold_dynamic_index_views, OP_NAME),
    pattern(fold_dynamic_result_reshape, *VIEW_OPS),
)
