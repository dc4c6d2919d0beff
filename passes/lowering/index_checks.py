"""The run-time checks both ops make, reported through the builder's
`reporter` (`reporters.Reporter`: the engine's callbacks, IREE's
tensors): shapes that only the run time knows (broadcasts, divisibility,
empty axes) and index values outside their axis ("raise" mode). A scan
reduces the validity of every index value into a flag (parallel, a flag
per row of indices); only when it is false, the cold path reports the bad
ones (`Reporter.bad_indices`: the engine scans them again on the caller's
thread in row-major order, calling `@gmx_index_error(site, axis, value,
size)` for each): reports are the same for gathers and scatters, whose
sites share one numbering.

`IndexChecks` is a mixin of the builders: it asks them for `plan`,
`sizes`, `fold`, `site`, `reporter`, `indices`, `result_type` and
(through `IndexReading`) `_narrowed`.

The decisions every index check makes, on either backend, are the
functions below, which the builders, the checks of the frontends'
unraised scatters (`gmx_check_scatter_indices`,
`gmx_check_tm_tensor_scatter`) and IREE's reports (`iree_reports`,
`iree_scatter_reports`) all read: whether a value lies on its axis
(`in_range`), which axis a value of a tuple indexes (`by_coordinate`,
`coordinate_at`) and when an empty axis is an error (`empty_axis_ok`);
`value_check` puts them together for one value of the frontends'
scatters and of IREE's reports. Each works on a `Folder`'s values, so
that on static ones it is the decision alone (the IREE runtime's reading
of a report).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gmx.dialect.gmx import mlir_shape, static_shape
from gmx.dialect.mlir import ir, linalg, scf, tensor

from .folding import Folded, Folder
from .ir_helpers import and_reduction, row_flags, true_flag
from .reporters import Checked, IndexValues, ValueCheck
from .runtime_abi import SHAPE_ERROR_EMPTY_AXIS, SHAPE_ERROR_NOT_DIVISIBLE


def in_range(fold: Folder, value: Folded, size: Folded, negatives_wrap: bool = False) -> Folded:
    """Whether the index `value` lies on an axis of `size`: in [0, size),
    or in [-size, size) where a negative value wraps once (a gmx op's
    "raise"); branch-free, one unsigned compare of i64s (a negative value
    is a huge unsigned one): value <u size, or value + size <u 2 size."""
    size = fold.to_i64(size)
    value = fold.to_i64(value)
    if negatives_wrap:
        return fold.cmp("ult", fold.add(value, size), fold.add(size, size))
    return fold.cmp("ult", value, size)


def coordinate_at(fold: Folder, position: Folded, coordinates: int) -> Folded:
    """Which coordinate of its tuple the index value at row-major
    `position` of the indices is: their last dim runs over the tuple's
    `coordinates`, in order (position mod their number)."""
    return fold.remui(position, coordinates) if coordinates > 1 else 0


def by_coordinate(fold: Folder, coordinate: Folded | None, *options: Sequence[Folded],
                  result_type: ir.Type | None = None) -> list[Folded]:
    """For each list of per-coordinate values (the axis each coordinate
    indexes, its size), the one of `coordinate` (None: the only one), by a
    chain of selects (a tuple is short)."""
    chosen = [values[0] for values in options]
    for j in range(1, max(len(values) for values in options)):
        here = fold.cmp("eq", coordinate, j)
        chosen = [fold.select(here, values[j], c, result_type) for values, c in zip(options, chosen)]
    return chosen


def value_check(fold: Folder, axes: Sequence[Folded], sizes: Sequence[Folded],
                read: Callable[[ir.Value], ir.Value] | None = None, negatives_wrap: bool = False) -> ValueCheck:
    """How a value indexing one of `axes` (one per coordinate of a tuple, of
    `sizes`: i64) is checked: read (through `read`, if given) as i64, it
    must lie on the axis of its coordinate (`in_range`); that axis is
    chosen only where a bad value is reported."""
    i64 = ir.IntegerType.get_signless(64)

    def check(value: ir.Value, coordinate: Folded | None) -> Checked:
        (size,) = by_coordinate(fold, coordinate, sizes, result_type=i64)
        value = fold.to_i64(value if read is None else read(value))
        axis = lambda: by_coordinate(fold, coordinate, axes, result_type=i64)[0]  # noqa: E731
        return Checked(in_range(fold, value, size, negatives_wrap), value, size, axis)

    return check


def empty_axis_ok(fold: Folder, size: Folded, nothing_read: Folded) -> Folded:
    """Whether an axis of `size` is no SHAPE_ERROR_EMPTY_AXIS: it is not
    empty, or nothing is read from it (`nothing_read`: an empty output in
    "raise" mode, empty indices in "wrap" and "clip",
    `GatherPlan.empty_axis_needs_indices`)."""
    return fold.or_(fold.cmp("ne", size, 0), nothing_read)


def either_of(condition: Folded, then: Callable[[], list], otherwise: Callable[[], list], types: list) -> list:
    """`then()` where `condition` holds, else `otherwise()` (each a list of
    values of `types`): only the one built when the condition folded, else
    an `scf.if` yielding either."""
    if condition is True:
        return then()
    if condition is False:
        return otherwise()
    guard = scf.IfOp(condition, types, has_else=True)
    with ir.InsertionPoint(guard.then_block):
        scf.YieldOp(then())
    with ir.InsertionPoint(guard.else_block):
        scf.YieldOp(otherwise())
    return list(guard.results)


class IndexChecks:
    """Run-time shape and index checks, with their reports."""

    # -- run-time shape checks --------------------------------------------
    def _shape_checks(self) -> list[Folded]:
        """Emit every run-time shape check (each reports its failure);
        return whether each passed."""
        return [*self._broadcast_checks(), *self._divisibility_checks(), *self._nonempty_axis_checks()]

    def _broadcast_checks(self) -> list[Folded]:
        fold, flags = self.fold, []
        for d in self.plan.broadcast_checks:
            a, b = self.sizes.input[d], self.sizes.logical[d]
            ok = fold.any_of([fold.cmp("eq", a, b), self.sizes.input_is_one[d], self.sizes.logical_is_one[d]])
            flags.append(self.reporter.shape_error(self.fold, self.site, ok, d, a, b))
        return flags

    def _divisibility_checks(self) -> list[Folded]:
        if not self.plan.divisibility_check:
            return []
        last, c = self.sizes.indices[-1], self.plan.coordinate_size
        ok = self.fold.cmp("eq", self.fold.remui(last, c), 0)
        return [self.reporter.shape_error(self.fold, self.site, ok, SHAPE_ERROR_NOT_DIVISIBLE, last, c)]

    def _nonempty_axis_checks(self) -> list[Folded]:
        fold, flags = self.fold, []
        if not self.plan.nonempty_axis_checks:
            return flags
        # Nothing is read from an empty output; "wrap" and "clip" map any
        # index value into the axis, so theirs must have none.
        escape = self.sizes.indices if self.plan.empty_axis_needs_indices else self.sizes.output
        nothing_read = fold.any_of([fold.cmp("eq", s, 0) for s in escape])
        for axis in self.plan.nonempty_axis_checks:
            size = self.sizes.input[axis]
            ok = empty_axis_ok(fold, size, nothing_read)
            flags.append(self.reporter.shape_error(self.fold, self.site, ok, SHAPE_ERROR_EMPTY_AXIS, axis, size))
        return flags

    def _either(self, condition: Folded, then: Callable[[], ir.Value], otherwise: Callable[[], ir.Value],
                result_type: ir.Type | None = None) -> ir.Value:
        """`then()` where `condition` holds, else `otherwise()`: only the one
        built when the condition folded, else an `scf.if` yielding either
        (of `result_type`, the gather's by default)."""
        (chosen,) = either_of(condition, lambda: [then()], lambda: [otherwise()], [result_type or self.result_type])
        return chosen

    # -- the scan of the indices ---------------------------------------------
    def _scanned_flags(self, indices: ir.Value) -> ir.Value:
        """i1: every index of the gather's `indices` in range (a parallel scan into a
        flag per row, then their and)."""
        view = self._scan_view(indices)
        rows = self.sizes.logical[0]  # the whole gather's: dim 0 of the view
        flags = row_flags(view, rows, self._scan_step(view, self._in_range), self.fold)
        return self._all_flags(flags)

    def _all_flags(self, flags: ir.Value) -> ir.Value:
        """i1: every flag of a rank-1 i1 tensor is true."""
        return tensor.extract(and_reduction(flags, true_flag(self.fold), self.fold.and_, self.fold), [])

    def _report_all(self) -> None:
        """The cold path: report every index out of range."""
        values = IndexValues(self.indices, self.plan.coordinate_size, self._checked, view=self._scan_view(self.indices))
        self.reporter.bad_indices(self.fold, self.site, values)

    def _scan_view(self, indices: ir.Value) -> ir.Value:
        """The indices as scanned: coordinates of folded tuples (c > 1) are
        told apart by viewing the last dim as [L, c] (no copy)."""
        c, rank = self.plan.coordinate_size, self.plan.rank
        if c == 1:
            return indices
        indices_type = ir.RankedTensorType(indices.type)
        shape = static_shape(indices_type)
        # Only the op's whole indices have dynamic dims (tiles are static).
        sizes = [*self.sizes.indices[:-1], self.sizes.logical[-1], c]
        static = [*shape[:-1], None if shape[-1] is None else shape[-1] // c, c]
        dynamic = [self.fold.index(n) for n, s in zip(sizes, static) if s is None]
        groups = [[d] for d in range(rank - 1)] + [[rank - 1, rank]]
        result = ir.RankedTensorType.get(mlir_shape(static), indices_type.element_type)
        return tensor.expand_shape(result, indices, groups, dynamic, result.shape)

    def _scan_indices(self, view: ir.Value, init: ir.Value, step) -> ir.Value:
        """An and-reduction over every index value of `view` (a _scan_view)
        into a rank-0 i1 tensor: `step(acc, value, position)` gives the new
        accumulator, `position` being that of the value in its tuple."""
        return and_reduction(view, init, self._scan_step(view, step), self.fold)

    def _scan_step(self, view: ir.Value, step) -> Callable[[Folded, ir.Value], Folded]:
        """The body of a scan of `view`: `step(acc, value, position)` on the
        value as the op reads it."""
        rank = ir.RankedTensorType(view.type).rank

        def body(acc: Folded, value: ir.Value) -> Folded:
            position = linalg.IndexOp(rank - 1).result if self.plan.coordinate_size > 1 else None
            return step(acc, self._narrowed(value), position)

        return body

    def _by_coordinate(self, position: ir.Value | None, *options: Sequence[Folded]) -> list[Folded]:
        """For each list of per-coordinate values, the one of the coordinate
        at `position` in its tuple (None: the only coordinate)."""
        return by_coordinate(self.fold, position, *options)

    def _axis_sizes(self) -> list[Folded]:
        return [self.sizes.input[axis] for axis in self.plan.axes]

    def _in_range(self, acc: Folded, value: ir.Value, position: ir.Value | None) -> Folded:
        """acc and (value in range of its axis)."""
        (size,) = self._by_coordinate(position, self._axis_sizes())
        return self.fold.and_(acc, in_range(self.fold, value, size, negatives_wrap=True))

    def _checked(self, value: ir.Value, position: ir.Value | None) -> Checked:
        """A stored index value checked for the cold path's report: read
        as the op reads it, in range of its axis (a negative one wrapping
        once), that axis and its size chosen together."""
        value = self._narrowed(value)
        axis, size = self._by_coordinate(position, self.plan.axes, self._axis_sizes())
        value, size = self.fold.to_i64(value), self.fold.to_i64(size)  # cast once, for both uses
        ok = in_range(self.fold, value, size, negatives_wrap=True)
        axis = self.fold.to_i64(axis)
        return Checked(ok, value, size, lambda: axis)

