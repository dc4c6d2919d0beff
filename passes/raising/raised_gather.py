"""A raised gather, as every frontend reader hands it over, and the one
function that emits its `gmx.gather_multiaxis` (`emit_gather`).

The readers (`gather_spec.synthesize` for the static TOSA and index
patterns, `loop_gathers` for linalg and `tensor.gather`, `stablehlo_gathers`,
`dynamic_gathers`, `tosa_gathers`, `index_folds`' floor modulo) work out, each
in its own terms, which gmx op computes the gather; what they hand over is
a `RaisedGather`: each operand and how the gmx op reads it (a view of it,
through `views.emit_view`; shapes may hold None for `?`), the axes, the
mode, and how the gmx result becomes the value replaced (a view, a cast).
Nothing but `emit_gather` builds a gmx op while raising.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gmx.dialect.gmx import gather_multiaxis
from gmx.dialect.mlir import ir, tensor
from gmx.dialect.modes import Mode

from ..views import emit_view


@dataclass(frozen=True)
class Viewed:
    """One operand (or the result) of the gmx op: `value` read as `shape`
    (None: as it is) by `views.emit_view`, with its options. `value` may be a
    function building it, called when the gmx op is emitted (in operand
    order: the input's ops come first in the IR)."""

    value: ir.Value | Callable[[], ir.Value] | None = None
    shape: Sequence | None = None
    unit_dims_first: bool = False
    fold_constant: bool = False

    def emit(self, value: ir.Value | None = None) -> ir.Value:
        """The operand (or `value`, for the result) viewed as `shape`."""
        if value is None:
            value = self.value if isinstance(self.value, ir.Value) else self.value()
        if self.shape is None:
            return value
        return emit_view(value, self.shape, unit_dims_first=self.unit_dims_first, fold_constant=self.fold_constant)


AS_IS = Viewed()  # a result used as the gmx op gives it


@dataclass(frozen=True)
class RaisedGather:
    """`result = cast(view(gmx.gather_multiaxis(view(input), view(indices), axes, mode)))`."""

    input: Viewed
    indices: Viewed
    axes: Sequence[int]
    mode: Mode = Mode.RAISE
    fill_value: object = None  # a number or a scalar attribute, in mode fill
    result: Viewed = AS_IS  # the view of the gmx result that replaces the gather
    result_type: ir.RankedTensorType | None = None  # a tensor.cast to it, where the view's type differs


def emit_gather(gather: RaisedGather) -> ir.Value:
    """Emit `gather` at the current insertion point: its operands' views,
    the gmx op (no mode attribute in mode raise), the result's view and cast."""
    x = gather.input.emit()
    indices = gather.indices.emit()
    value = gather_multiaxis(x, indices, list(gather.axes), mode=gather.mode, fill_value=gather.fill_value)
    value = gather.result.emit(value)
    if gather.result_type is not None and value.type != gather.result_type:
        value = tensor.cast(gather.result_type, value)
    return value
