"""What a check site reports, and how each backend renders it.

Every run-time check decides what is wrong (`index_checks`' functions) and
hands it to a `Reporter`, never knowing which backend renders it:
`shape_error(fold, site, ok, what, a, b)`, a shape error unless the i1
`ok` holds (`what`: a dim that does not broadcast or a SHAPE_ERROR_* kind
of `runtime_abi`, `a`, `b` its operands); `bad_indices(fold, site,
values)`, each value of a tensor of indices off its axis (`IndexValues`,
each value's check saying what its report holds: `Checked`).

`CALLBACKS`, the engine's, calls `runtime_abi`'s callbacks on a failing
branch, the bad indices found by a scan in row-major order on the
caller's thread (the cold path):

    scf.if %failed { func.call @gmx_shape_error(%site, %what, %a, %b) }
    %all = linalg.generic {iterator_types = ["reduction", "reduction"]} ins(%view) outs(%true : tensor<i1>) {
      %ok = arith.cmpi ult, %v, %size : i64
      scf.if %bad { func.call @gmx_index_error(%site, %axis, %v, %size) }
      ...

IREE's dispatches cannot call the host: `iree_reports.Tensors` renders
the same reports as tensors its entry returns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from gmx.dialect.mlir import func, ir, linalg, scf

from .folding import Folded, Folder
from .ir_helpers import and_reduction, true_flag
from .runtime_abi import INDEX_ERROR_FN, SHAPE_ERROR_FN, declare_error_callbacks


@dataclass(frozen=True)
class Checked:
    """One index value checked: whether it lies on its axis (`ok`), the
    value and the size it was checked against (i64), and the axis it
    indexes (`axis()`, built only where a bad value is reported)."""

    ok: Folded
    value: Folded
    size: Folded
    axis: Callable[[], Folded]


# How a check site checks one stored index value, given its coordinate in
# its tuple (None: a tuple of one).
ValueCheck = Callable[[ir.Value, Folded | None], Checked]


@dataclass(frozen=True)
class IndexValues:
    """A tensor of index values whose bad ones a check reports: `indices`
    in row-major order, the value at position p coordinate p mod
    `coordinates` of its tuple, each checked by `check`; `view`, the same
    values with the coordinates along the last dim where the indices have
    them otherwise (the engine's scan reads it); `elements`, how many the
    op's output has (an empty axis is an error only then:
    `index_checks.empty_axis_ok`)."""

    indices: ir.Value
    coordinates: int
    check: ValueCheck
    view: ir.Value | None = None
    elements: Folded = 0

    @property
    def scanned(self) -> ir.Value:
        """The values as a scan reads them (`view`, else `indices`)."""
        return self.indices if self.view is None else self.view


def checked_in_scan(values: IndexValues, value: ir.Value) -> Checked:
    """`values.check` of `value` in the body of a linalg op over
    `values.scanned`, its coordinate that op's last dim."""
    rank = ir.RankedTensorType(values.scanned.type).rank
    coordinate = linalg.IndexOp(rank - 1).result if values.coordinates > 1 else None
    return values.check(value, coordinate)


def unless(fold: Folder, ok: Folded, body: Callable[[], None]) -> None:
    """`scf.if !ok { body() }`; folded when `ok` is static."""
    failed = fold.not_(ok)
    if failed is True:
        body()
    elif failed is not False:
        branch = scf.IfOp(failed)
        with ir.InsertionPoint(branch.then_block):
            body()
            scf.YieldOp([])


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


class Reporter(ABC):
    """What a check reports at the insertion point (module docstring)."""

    @abstractmethod
    def shape_error(self, fold: Folder, site: int, ok: Folded, what: Folded, a: Folded, b: Folded) -> Folded:
        """Report (site, what, a, b) unless `ok`; returns `ok`."""

    @abstractmethod
    def bad_indices(self, fold: Folder, site: int, values: IndexValues) -> None:
        """Report the values of `values` off their axis."""

    def declare(self, module) -> None:
        """Declare what the reports of `module` call (nothing by default)."""


class Callbacks(Reporter):
    """The engine's reports: calls of `runtime_abi`'s error callbacks."""

    def shape_error(self, fold: Folder, site: int, ok: Folded, what: Folded, a: Folded, b: Folded) -> Folded:
        """`@gmx_shape_error(site, what, a, b)` unless `ok`, its operands
        cast to i64 where checked."""
        if ok is True:
            return ok
        operands = [fold.value(fold.to_i64(x), _i64()) for x in (site, what, a, b)]
        unless(fold, ok, lambda: func.CallOp([], SHAPE_ERROR_FN, operands))
        return ok

    def bad_indices(self, fold: Folder, site: int, values: IndexValues, init: ir.Value | None = None) -> None:
        """An and-reduction over `values.scanned` calling back for each bad
        value, from `init` (a rank-0 true flag, that of a scan before: else
        a new one)."""

        def step(acc: Folded, value: ir.Value) -> Folded:
            return fold.and_(acc, self.index_error(fold, site, checked_in_scan(values, value)))

        and_reduction(values.scanned, true_flag(fold) if init is None else init, step, fold)

    def index_error(self, fold: Folder, site: int, checked: Checked) -> Folded:
        """`@gmx_index_error(site, axis, value, size)` unless `checked.ok`
        (the axis built on that branch); returns `checked.ok`."""

        def call() -> None:
            operands = (site, checked.axis(), checked.value, checked.size)
            func.CallOp([], INDEX_ERROR_FN, [fold.value(fold.to_i64(x), _i64()) for x in operands])

        unless(fold, checked.ok, call)
        return checked.ok

    def declare(self, module) -> None:
        declare_error_callbacks(module)


CALLBACKS = Callbacks()
