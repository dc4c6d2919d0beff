"""A raised scatter, as every frontend reader hands it over, and the one
function that emits its `gmx.scatter_multiaxis` (`emit_scatter`).

The scatter's counterpart of `raised_gather`: a reader works out which gmx
op writes what the frontend's scatter writes and hands over a
`RaisedScatter`: each operand and how the gmx op reads it (a view, through
`views.emit_view`), the axes, the mode, the reduction, the promise of
unique indices, and how the gmx result becomes the value replaced (a view
back to the frontend's shape, a cast). Nothing but `emit_scatter` builds a
gmx scatter while raising.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmx.dialect.mlir import ir, tensor
from gmx.dialect.modes import Mode
from gmx.dialect.reductions import Reduction
from gmx.dialect.scatter import scatter_multiaxis

from .raised_gather import AS_IS, Viewed


@dataclass(frozen=True)
class RaisedScatter:
    """`result = cast(view(gmx.scatter_multiaxis(view(input), view(indices), view(updates), axes, ...)))`."""

    input: Viewed
    indices: Viewed
    updates: Viewed
    axes: Sequence[int]
    mode: Mode = Mode.RAISE
    reduction: Reduction = Reduction.NONE
    unique_indices: bool = False
    result: Viewed = AS_IS  # the view of the gmx result that replaces the scatter
    result_type: ir.RankedTensorType | None = None  # a tensor.cast to it, where the view's type differs


def emit_scatter(scatter: RaisedScatter) -> ir.Value:
    """Emit `scatter` at the current insertion point: its operands' views
    (in operand order), the gmx op (no attribute for mode raise and
    reduction none), the result's view and cast."""
    x = scatter.input.emit()
    indices = scatter.indices.emit()
    updates = scatter.updates.emit()
    value = scatter_multiaxis(x, indices, updates, list(scatter.axes), reduction=scatter.reduction,
                              mode=scatter.mode, unique_indices=scatter.unique_indices)
    value = scatter.result.emit(value)
    if scatter.result_type is not None and value.type != scatter.result_type:
        value = tensor.cast(scatter.result_type, value)
    return value
