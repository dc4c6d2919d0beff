"""Builds the linalg form of one gmx.gather_multiaxis: what its plan
(`gather_plan`) says, folded as it is built (`folding`). The IR is described
in `convert_gmx_to_linalg`, the pass that calls `build_gather` on each op;
the callbacks and attributes it uses are `runtime_abi`'s.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gmx.dialect import GatherMultiaxisOp, read_mode
from gmx.dialect.gmx import mlir_shape, static_shape
from gmx.dialect.modes import FILL_VALUE_ATTR, Mode
from gmx.dialect.mlir import arith, func, ir, linalg, scf, tensor

from .folding import Constants, Folded, Folder
from .gmx_parallel_loops import PARALLEL_ATTR
from .gather_plan import Access, ColumnTiles, Flagged, GatherPlan, RowTiles, plan_gather
from .runtime_abi import INDEX_ERROR_FN, SHAPE_ERROR_EMPTY_AXIS, SHAPE_ERROR_FN, SHAPE_ERROR_NOT_DIVISIBLE
from ..views import defining_op, emit_view, static_shape_of, strip_views

_NARROWING = ("tosa.cast", "arith.trunci")
# Marks the gather generics built for IREE (`iree_cpu_config` configures them).
IREE_GATHER_MARK = "gmx.iree_gather"


# -- reading the operands ----------------------------------------------------------


def read_through_narrowing(indices: ir.Value) -> tuple[ir.Value, ir.Type | None]:
    """(wide indices, narrow element type) when `indices` is an integer
    truncation (tosa.cast, arith.trunci), possibly under static views, of
    wider integer indices; the view is emitted on the wide tensor (at the
    insertion point). Else (indices, None)."""
    narrowed, views = strip_views(indices)
    cast = defining_op(narrowed)
    if cast is None or cast.name not in _NARROWING:
        return indices, None
    wide, narrow = cast.operands[0], ir.RankedTensorType(narrowed.type).element_type
    wide_element = ir.RankedTensorType(wide.type).element_type
    if not (isinstance(wide_element, ir.IntegerType) and isinstance(narrow, ir.IntegerType)):
        return indices, None
    if wide_element.width <= narrow.width or not (wide_element.is_signless and narrow.is_signless):
        return indices, None
    return (emit_view(wide, static_shape_of(indices)) if views else wide), narrow


def element_bits_of(element_type: ir.Type) -> int:
    """Bit width of an int or float element type (32 if it has none)."""
    if isinstance(element_type, (ir.IntegerType, ir.FloatType)):
        return element_type.width
    return 32


@dataclass(frozen=True)
class Sizes:
    """Per-dim sizes of a gather's operands and output: ints where static,
    values (tensor.dim and what follows from it) where dynamic; and, for
    the non-axis dims whose broadcast only the run time decides, whether
    each side is 1."""

    input: list[Folded]
    indices: list[Folded]
    logical: list[Folded]  # the indices' with the last dim divided by c
    output: list[Folded]
    input_is_one: dict[int, Folded]
    logical_is_one: dict[int, Folded]


def _dims(fold: Folder, value: ir.Value) -> list[Folded]:
    """Each dim of a ranked tensor: its static size, or a tensor.dim."""
    shape = static_shape(value.type)
    return [tensor.dim(value, fold.index(d)) if n is None else n for d, n in enumerate(shape)]


def emit_sizes(fold: Folder, plan: GatherPlan, input: ir.Value, indices: ir.Value) -> Sizes:
    """The gather's sizes, emitting what only the run time knows (once, at
    the insertion point, where they dominate the whole lowering)."""
    input_sizes, indices_sizes = _dims(fold, input), _dims(fold, indices)
    logical = list(indices_sizes)
    if logical:
        logical[-1] = fold.divui(logical[-1], plan.coordinate_size)
    # Broadcast checks and RUNTIME reads ask it of both sides; a dynamic
    # non-axis output dim, of the input (its size is the other side's if 1).
    dynamic = [d for d, n in enumerate(plan.output_shape) if n is None and d not in plan.axes]
    input_is_one = {d: fold.cmp("eq", input_sizes[d], 1) for d in sorted({*plan.broadcast_checks, *dynamic})}
    logical_is_one = {d: fold.cmp("eq", logical[d], 1) for d in plan.broadcast_checks}
    output = list(plan.output_shape)
    for d in dynamic:
        output[d] = fold.select(input_is_one[d], logical[d], input_sizes[d])
    for d in plan.axes:
        output[d] = logical[d]
    return Sizes(input_sizes, indices_sizes, logical, output, input_is_one, logical_is_one)


# -- static windows of tiles ----------------------------------------------------------


def _window(shape: list[int], dim: int, size: int) -> tuple[list[int], list[int], list[int]]:
    """Static offsets, sizes and strides of `size` entries along `dim` of a
    static shape from a dynamic start (passed as the one dynamic offset)."""
    rank = len(shape)
    offsets, sizes = [0] * rank, list(shape)
    offsets[dim], sizes[dim] = ir.ShapedType.get_dynamic_size(), size
    return offsets, sizes, [1] * rank


def _slice(source: ir.Value, start: ir.Value, size: int, dim: int = 0) -> ir.Value:
    """`size` entries of a static tensor along `dim` from `start` on."""
    source_type = ir.RankedTensorType(source.type)
    offsets, sizes, strides = _window(list(source_type.shape), dim, size)
    result = ir.RankedTensorType.get(sizes, source_type.element_type)
    return tensor.extract_slice(result, source, [start], [], [], offsets, sizes, strides)


def _insert(tile: ir.Value, dest: ir.Value, start: ir.Value, size: int, dim: int = 0) -> ir.Value:
    """`tile` written into `dest` along `dim` from `start` on."""
    offsets, sizes, strides = _window(list(ir.RankedTensorType(dest.type).shape), dim, size)
    return tensor.insert_slice(tile, dest, [start], [], [], offsets, sizes, strides)


def _iterators(kind: str, rank: int) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{kind}>")] * rank)


def _maps(maps: Sequence[ir.AffineMap]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])


def true_flag(fold: Folder) -> ir.Value:
    """A rank-0 i1 tensor holding true: the init of an and-reduction."""
    true = fold.value(True)
    return linalg.fill(true, outs=[tensor.empty([], true.type)])


def and_reduction(values: ir.Value, init: ir.Value, step: Callable[[Folded, ir.Value], Folded], fold: Folder) -> ir.Value:
    """A rank-0 i1 tensor: `step(acc, value)` folded over every element of
    `values` from `init` (one linalg.generic, all its loops reductions);
    `step` builds inside the generic's body."""
    rank = ir.RankedTensorType(values.type).rank
    maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [])]
    generic = linalg.GenericOp_([values], [init], _maps(maps), _iterators("reduction", rank))
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, acc = block.arguments
        linalg.YieldOp([fold.value(step(acc, value))])
    return generic.results[0]


def row_flags(values: ir.Value, rows: Folded, step: Callable[[Folded, ir.Value], Folded], fold: Folder) -> ir.Value:
    """A rank-1 i1 tensor of `rows` flags: per row (dim 0) of `values`,
    `step(acc, value)` folded over the row's elements from true (one
    linalg.generic, parallel over the rows: each row's flag is its own,
    no flag is shared between threads)."""
    rank = ir.RankedTensorType(values.type).rank
    true = fold.value(True)
    flags = linalg.fill(true, outs=[tensor.empty([rows], true.type)])
    maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(0)])]
    iterators = ir.ArrayAttr.get(
        [ir.Attribute.parse(f"#linalg.iterator_type<{'parallel' if d == 0 else 'reduction'}>") for d in range(rank)]
    )
    generic = linalg.GenericOp_([values], [flags], _maps(maps), iterators)
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, acc = block.arguments
        linalg.YieldOp([fold.value(step(acc, value))])
    return generic.results[0]


def mark_parallel(loop: scf.ForOp) -> None:
    """Tell gmx-parallel-loops that the iterations of `loop` are independent
    (each writes its own part of what it carries)."""
    loop.operation.attributes[PARALLEL_ATTR] = ir.UnitAttr.get()


def _collapse_groups(rank: int, dim: int, keep_tail: bool = True) -> list[list[int]]:
    """Reassociation of a rank-`rank` shape into [dims before `dim`, `dim`,
    dims after it] (keep_tail, when there are any after it), or [dims
    before `dim`, `dim` and the dims after it]."""
    head, tail = list(range(dim)), list(range(dim + 1, rank))
    return [head, [dim], tail] if keep_tail and tail else [head, [dim, *tail]]


def _collapse(value: ir.Value, groups: list[list[int]]) -> ir.Value:
    """A static tensor collapsed by `groups` (no copy); itself if that
    changes nothing."""
    value_type = ir.RankedTensorType(value.type)
    if len(groups) == value_type.rank:
        return value
    shape = [math.prod(value_type.shape[d] for d in group) for group in groups]
    return tensor.collapse_shape(ir.RankedTensorType.get(shape, value_type.element_type), value, groups)


def _counting_sort(fold: Folder, keys: ir.Value, buckets: int) -> tuple[ir.Value, ir.Value]:
    """(order, ends): positions 0..n-1 of the rank-1 index tensor `keys`
    (each in [0, buckets)) sorted by key, stably, and the end in `order` of
    each key's bucket (its start is the previous one's end). Three loops
    of n, buckets and n steps over a tensor of `buckets` counters."""
    index, n = fold.index, ir.RankedTensorType(keys.type).shape[0]
    counters = linalg.fill(index(0), outs=[tensor.empty([buckets], ir.IndexType.get())])

    def loop(upper: int, inits: list[ir.Value], body) -> list[ir.Value]:
        for_op = scf.ForOp(index(0), index(upper), index(1), inits)
        with ir.InsertionPoint(for_op.body):
            scf.YieldOp(body(for_op.induction_variable, *for_op.inner_iter_args))
        return list(for_op.results)

    def count(i, counts):
        key = tensor.extract(keys, [i])
        return [tensor.insert(fold.index(fold.add(tensor.extract(counts, [key]), 1)), counts, [key])]

    def starts(b, counts, total):  # exclusive prefix sum, in place
        here = tensor.extract(counts, [b])
        return [tensor.insert(total, counts, [b]), fold.index(fold.add(total, here))]

    def place(i, next_slot, order):
        key = tensor.extract(keys, [i])
        slot = tensor.extract(next_slot, [key])
        return [tensor.insert(fold.index(fold.add(slot, 1)), next_slot, [key]), tensor.insert(i, order, [slot])]

    (counts,) = loop(n, [counters], count)
    first, _ = loop(buckets, [counts, index(0)], starts)
    ends, order = loop(n, [first, tensor.empty([n], ir.IndexType.get())], place)
    return order, ends


# LLVM's loop vectorizer turns copies of columns read far apart into
# masked gathers and scatters, and once it has unrolled them its SLP
# vectorizer does the same: 3x to 4x slower, on the AMD EPYC (AVX-512) we
# measured, than the scalar loads and stores they replace.
_NO_VECTORIZE = "#llvm.loop_annotation<vectorize = <disable = true>, unroll = <disable = true>>"


def _scalar_loop(loop: scf.ForOp) -> None:
    """Ask LLVM neither to vectorize nor to unroll `loop`: `loop_annotation`
    (an LLVM dialect attribute) goes with the loop to its back edge
    (convert-scf-to-cf), where the LLVM IR translation reads it."""
    loop.operation.attributes["loop_annotation"] = ir.Attribute.parse(_NO_VECTORIZE)


# -- the builder ----------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """What one gather generic covers: `outs` (the output or a tile of it),
    the `indices` and `input` it reads (whole, or sliced as the tile is),
    and, in a row tile, the output row its row 0 is."""

    outs: ir.Value
    indices: ir.Value
    input: ir.Value
    row_offset: ir.Value | None = None


@dataclass(frozen=True)
class GatherBuilder:
    """Builds the IR of one planned gather at the current insertion point:
    the plan has decided the strategy, this only builds it."""

    plan: GatherPlan
    sizes: Sizes
    input: ir.Value
    indices: ir.Value  # read wide when narrowed by a cast
    narrow_type: ir.Type | None  # the element type the op read them as
    result_type: ir.RankedTensorType
    site: int
    fold: Folder
    fill: ir.Attribute | None = None  # fill mode: the value an index outside its axis yields

    def build(self) -> ir.Value:
        """The gather's result, behind its run-time shape checks if any."""
        # A failed check is reported whatever the values: nothing to gather.
        return self._either(self.fold.all_of(self._shape_checks()), self._gather, self._empty_output)

    def _gather(self) -> ir.Value:
        """The gather; in fill mode, all fill values where an axis has size
        0 (then no index is in range, and nothing may be read)."""
        empty = self.fold.any_of([self.fold.cmp("eq", self.sizes.input[axis], 0) for axis in self.plan.fill_axes])
        return self._either(empty, self._filled_output, self._strategy_gather)

    def _filled_output(self) -> ir.Value:
        return linalg.fill(self.fold.constants.attribute(self.fill), outs=[self._empty_output()])

    def _strategy_gather(self) -> ir.Value:
        """The gather as its strategy builds it."""
        match self.plan.strategy:
            case Flagged(rows=rows):
                return self._flagged_gather(rows)
            case RowTiles(rows=rows):
                return self._row_tiled_gather(rows)
        whole = Part(self._empty_output(), self.indices, self.input)
        if not self.plan.checks_indices:
            return self._unchecked_gather(whole)
        return self._scanned_gather(whole)

    def _empty_output(self) -> ir.Value:
        static = self.plan.output_shape
        sizes = [self.fold.index(n) if s is None else s for s, n in zip(static, self.sizes.output)]
        return tensor.empty(sizes, self.result_type.element_type)

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
            flags.append(self._report_unless(ok, SHAPE_ERROR_FN, [d, a, b]))
        return flags

    def _divisibility_checks(self) -> list[Folded]:
        if not self.plan.divisibility_check:
            return []
        last, c = self.sizes.indices[-1], self.plan.coordinate_size
        ok = self.fold.cmp("eq", self.fold.remui(last, c), 0)
        return [self._report_unless(ok, SHAPE_ERROR_FN, [SHAPE_ERROR_NOT_DIVISIBLE, last, c])]

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
            ok = fold.or_(fold.cmp("ne", size, 0), nothing_read)
            flags.append(self._report_unless(ok, SHAPE_ERROR_FN, [SHAPE_ERROR_EMPTY_AXIS, axis, size]))
        return flags

    def _report_unless(self, ok: Folded, callee: str, args: list[Folded]) -> Folded:
        """`callee(site, *args)` (as i64) unless `ok`; returns `ok`."""
        if ok is True:
            return ok
        i64 = ir.IntegerType.get_signless(64)
        values = [self.fold.value(self.fold.to_i64(a), i64) for a in [self.site, *args]]
        self._unless(ok, lambda: func.CallOp([], callee, values))
        return ok

    def _either(self, condition: Folded, then: Callable[[], ir.Value], otherwise: Callable[[], ir.Value],
                result_type: ir.Type | None = None) -> ir.Value:
        """`then()` where `condition` holds, else `otherwise()`: only the one
        built when the condition folded, else an `scf.if` yielding either
        (of `result_type`, the gather's by default)."""
        if condition is True:
            return then()
        if condition is False:
            return otherwise()
        guard = scf.IfOp(condition, [result_type or self.result_type], has_else=True)
        with ir.InsertionPoint(guard.then_block):
            scf.YieldOp([then()])
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp([otherwise()])
        return guard.results[0]

    def _unless(self, ok: Folded, body: Callable[[], None]) -> None:
        """`scf.if !ok { body() }`; folded when `ok` is static."""
        failed = self.fold.not_(ok)
        if failed is True:
            body()
        elif failed is not False:
            branch = scf.IfOp(failed)
            with ir.InsertionPoint(branch.then_block):
                body()
                scf.YieldOp([])

    # -- the strategies ----------------------------------------------------------
    def _scanned_gather(self, part: Part) -> ir.Value:
        """Scan the whole gather's indices (flags per row, in parallel);
        report them if one is out of range; gather, a bad index read as 0
        (the value the gather reads is made safe where it is read, so an
        index rewritten during the call never reads outside the input)."""
        self._unless(self._scanned_flags(part.indices), self._report_all)
        return self._checked_gather(part)

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

    def _checked_gather(self, part: Part) -> ir.Value:
        """The gather of checked indices: in column tiles if planned, else
        one generic; a bad index is read as 0."""
        strategy = self.plan.strategy
        if isinstance(strategy, ColumnTiles):
            return self._column_tiled_gather(part.outs, strategy)
        return self._gather_generic(part, clamp=True)

    def _unchecked_gather(self, part: Part) -> ir.Value:
        """The gather without a check: in column tiles if planned, else one generic."""
        strategy = self.plan.strategy
        if isinstance(strategy, ColumnTiles):
            return self._column_tiled_gather(part.outs, strategy)
        return self._gather_generic(part, clamp=False)

    def _report_all(self) -> None:
        """The cold path: scan every index in row-major order on the
        caller's thread, reporting each one out of range."""
        self._scan_indices(self._scan_view(self.indices), true_flag(self.fold), self._report_out_of_range)

    def _flagged_gather(self, rows: int) -> ir.Value:
        """A loop over tiles of `rows` output rows, in parallel: in each,
        one generic gathers with bad indices read as 0 and and-reduces
        whether every index of the tile was in range (into a flag of the
        tile's own, a stack slot), written to the tile's entry of the
        flags; only when one is false, the report scan runs."""
        fold, index = self.fold, self.fold.index
        height = self.plan.output_shape[0]
        if rows == height:  # one tile: no loop
            gathered, valid = self._flagged_generic(Part(self._empty_output(), self.indices, self.input),
                                                    true_flag(fold))
            self._unless(tensor.extract(valid, []), self._report_all)
            return gathered
        slice_indices = self.plan.indices_access[0] is Access.ITER
        flags = tensor.empty([height // rows], ir.IntegerType.get_signless(1))
        loop = scf.ForOp(index(0), index(height), index(rows), [self._empty_output(), flags])
        mark_parallel(loop)
        with ir.InsertionPoint(loop.body):
            start, acc, tile_flags = loop.induction_variable, *loop.inner_iter_args
            indices = _slice(self.indices, start, rows) if slice_indices else self.indices
            part = Part(_slice(acc, start, rows), indices, self.input, start)
            tile, valid = self._flagged_generic(part, true_flag(fold))
            k = index(fold.divui(start, rows))
            scf.YieldOp([_insert(tile, acc, start, rows), tensor.insert(tensor.extract(valid, []), tile_flags, [k])])
        gathered, flags = loop.results
        self._unless(self._all_flags(flags), self._report_all)
        return gathered

    def _column_tiled_gather(self, outs: ir.Value, tiles: ColumnTiles) -> ir.Value:
        """The rows (output dims before `dim`) sorted into buckets by the
        input slab they read; then per slab, per tile of `width` entries
        of `dim`, each row of its bucket copies its column of the tile:

            scf.for %s = 0 to slabs          (iter_args: the output, the bucket's start)
              scf.for %c = 0 to C step width
                scf.for %q = start to end    (the bucket's rows, sorted)
                  scf.for %k = 0 to width
                    out[order[q], c + k] = in[s, c + k, column[order[q]]]
        """
        fold, index, dim, width = self.fold, self.fold.index, tiles.dim, tiles.width
        slabs, columns = self._row_reads(dim)
        order, ends = _counting_sort(fold, slabs, tiles.slabs)
        rank = self.plan.rank
        source = _collapse(self.input, _collapse_groups(rank, dim))  # [slabs, C, T]
        rows = _collapse(outs, _collapse_groups(rank, dim, keep_tail=False))  # [R, C]
        size = self.plan.output_shape[dim]
        # Slabs write disjoint rows (each row is in one bucket): in parallel.
        per_slab = scf.ForOp(index(0), index(tiles.slabs), index(1), [rows])
        mark_parallel(per_slab)
        with ir.InsertionPoint(per_slab.body):
            slab, acc = per_slab.induction_variable, per_slab.inner_iter_args[0]
            end = tensor.extract(ends, [slab])
            # The bucket starts where the previous slab's ends (ends[-1]
            # is never read: slab 0 reads ends[0] and starts at 0).
            previous = tensor.extract(ends, [fold.index(fold.add(fold.maxsi(slab, 1), -1))])
            start = arith.select(fold.value(fold.cmp("eq", slab, 0)), index(0), previous)
            per_tile = scf.ForOp(index(0), index(size), index(width), [acc])
            with ir.InsertionPoint(per_tile.body):
                column0, acc = per_tile.induction_variable, per_tile.inner_iter_args[0]
                per_row = scf.ForOp(start, end, index(1), [acc])
                with ir.InsertionPoint(per_row.body):
                    row = tensor.extract(order, [per_row.induction_variable])
                    column = tensor.extract(columns, [row])
                    per_entry = scf.ForOp(index(0), index(width), index(1), [per_row.inner_iter_args[0]])
                    with ir.InsertionPoint(per_entry.body):
                        at = fold.index(fold.add(column0, per_entry.induction_variable))
                        value = tensor.extract(source, [slab, at, column])
                        scf.YieldOp([tensor.insert(value, per_entry.inner_iter_args[0], [row, at])])
                    scf.YieldOp([per_entry.results[0]])
                    _scalar_loop(per_entry)
                scf.YieldOp([per_row.results[0]])
                _scalar_loop(per_row)
            scf.YieldOp([per_tile.results[0]])
        result_type = ir.RankedTensorType(outs.type)
        groups = _collapse_groups(rank, dim, keep_tail=False)
        return tensor.expand_shape(result_type, per_slab.results[0], groups, [], result_type.shape)

    def _row_reads(self, dim: int) -> tuple[ir.Value, ir.Value]:
        """(slab, column) per output row (dims before `dim`, rank-1 tensors
        of index): the linear position of the input dims before `dim` and
        after it that the row reads (one generic over the indices). A bad
        index is read as 0 (each index is read once, here, checked or not),
        so that the sort never writes outside its counters; "wrap" and "clip"
        map every index into its axis ("fill" is never column-tiled)."""
        rank, shape = self.plan.rank, self.plan.input_shape
        row_shape = [1 if d >= dim else n for d, n in enumerate(self.plan.output_shape)]
        inits = [tensor.empty(row_shape, ir.IndexType.get()) for _ in range(2)]
        index_inputs = [self.indices] * len(self.plan.axes)
        maps = [self._indices_map(j) for j in range(len(index_inputs))] + [ir.AffineMap.get_identity(rank)] * 2
        generic = linalg.GenericOp_(index_inputs, inits, _maps(maps), _iterators("parallel", rank))
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            loop_index = functools.cache(lambda d: linalg.IndexOp(d).result)
            raw = list(block.arguments)[: len(index_inputs)]
            # A bad index (or one rewritten since it was checked) is read
            # as 0: the sort never writes outside its counters.
            gathered = {a: self._axis_position(a, self._narrowed(v), True)[0] for a, v in zip(self.plan.axes, raw)}

            def position(d: int) -> Folded:
                return gathered[d] if d in gathered else self._kept_position(d, loop_index, None)

            slab = column = 0
            for d in range(dim):
                slab = self.fold.add(self.fold.mul(slab, shape[d]), position(d))
            for d in range(dim + 1, rank):
                column = self.fold.add(self.fold.mul(column, shape[d]), position(d))
            linalg.YieldOp([self.fold.index(slab), self.fold.index(column)])
        return tuple(_collapse(r, [list(range(rank))]) for r in generic.results)

    def _row_tiled_gather(self, rows: int) -> ir.Value:
        """A loop over tiles of `rows` output rows, in parallel, each
        scanned into its own flag (a flag per tile: no flag is written by
        two threads) and gathered with bad indices read as 0; then, only if
        a tile's flag is false, the report scan over all the indices. The
        indices run along dim 0 (ITER access), so their dim 0 is the
        output's and is sliced the same way."""
        fold, index = self.fold, self.fold.index
        height = self.plan.output_shape[0]
        flags = tensor.empty([height // rows], ir.IntegerType.get_signless(1))
        loop = scf.ForOp(index(0), index(height), index(rows), [self._empty_output(), flags])
        mark_parallel(loop)
        with ir.InsertionPoint(loop.body):
            start, acc, tile_flags = loop.induction_variable, *loop.inner_iter_args
            part = Part(_slice(acc, start, rows), _slice(self.indices, start, rows), self.input, start)
            # The tile's scan reduces into a flag of its own (a stack slot
            # of the loop body, gmx-parallel-bodies' function), copied to the
            # tile's entry (by value: a slice of the flags would alias them).
            valid = self._scan_indices(self._scan_view(part.indices), true_flag(fold), self._in_range)
            tile = self._checked_gather(part)
            k = index(fold.divui(start, rows))
            scf.YieldOp([_insert(tile, acc, start, rows), tensor.insert(tensor.extract(valid, []), tile_flags, [k])])
        gathered, flags = loop.results
        self._unless(self._all_flags(flags), self._report_all)
        return gathered

    # -- the scan of the indices ---------------------------------------------
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
        chosen = [values[0] for values in options]
        for j in range(1, len(self.plan.axes)):
            here = self.fold.cmp("eq", position, j)
            chosen = [self.fold.select(here, values[j], c) for values, c in zip(options, chosen)]
        return chosen

    def _axis_sizes(self) -> list[Folded]:
        return [self.sizes.input[axis] for axis in self.plan.axes]

    def _index_ok(self, value: ir.Value, size: Folded) -> Folded:
        """value in [-size, size), branch-free: value + size <u 2 size (i64)."""
        fold = self.fold
        size = fold.to_i64(size)
        return fold.cmp("ult", fold.add(fold.to_i64(value), size), fold.add(size, size))

    def _in_range(self, acc: Folded, value: ir.Value, position: ir.Value | None) -> Folded:
        """acc and (value in range of its axis)."""
        (size,) = self._by_coordinate(position, self._axis_sizes())
        return self.fold.and_(acc, self._index_ok(value, size))

    def _report_out_of_range(self, acc: Folded, value: ir.Value, position: ir.Value | None) -> Folded:
        """Report a value outside its axis (the cold path's scan); and it into acc."""
        axis, size = self._by_coordinate(position, self.plan.axes, self._axis_sizes())
        value, size = self.fold.to_i64(value), self.fold.to_i64(size)  # cast once, for both uses
        ok = self._report_unless(self._index_ok(value, size), INDEX_ERROR_FN, [axis, value, size])
        return self.fold.and_(acc, ok)

    # -- the gather generic ----------------------------------------------------------
    def _gather_generic(self, part: Part, clamp: bool) -> ir.Value:
        """The gather generic over `part` (parallel loops); with `clamp`, a
        bad index is read as 0."""
        generic = self._generic_op(part, [], "parallel")
        if self.plan.target == "iree":
            generic.operation.attributes[IREE_GATHER_MARK] = ir.UnitAttr.get()  # for `iree_cpu_config`
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            value, _ = self._gathered_value(block, part, clamp)
            linalg.YieldOp([value])
        return generic.results[0]

    def _flagged_generic(self, part: Part, init: ir.Value) -> tuple[ir.Value, ir.Value]:
        """(gathered, rank-0 i1: every index in range): the gather generic
        over `part`, a bad index read as 0, and-reducing the in-range flag
        into `init` (so all its loops are reductions)."""
        generic = self._generic_op(part, [init], "reduction")
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            value, in_range = self._gathered_value(block, part, clamp=True)
            valid = self.fold.and_(block.arguments[-1], self.fold.all_of(in_range))
            linalg.YieldOp([value, self.fold.value(valid)])
        return generic.results[0], generic.results[1]

    def _generic_op(self, part: Part, flags: list[ir.Value], iterator: str) -> linalg.GenericOp_:
        """The gather's generic over `part.outs` (and rank-0 `flags`), the
        indices as inputs when maps can read them; its body is left empty."""
        rank = self.plan.rank
        index_inputs = [part.indices] * len(self.plan.axes) if self.plan.indices_by_map else []
        maps = [self._indices_map(j) for j in range(len(index_inputs))]
        maps += [ir.AffineMap.get_identity(rank)] + [ir.AffineMap.get(rank, 0, [])] * len(flags)
        return linalg.GenericOp_(index_inputs, [part.outs, *flags], _maps(maps), _iterators(iterator, rank))

    def _gathered_value(self, block: ir.Block, part: Part, clamp: bool) -> tuple[ir.Value, list[Folded]]:
        """In the generic's body: (the input element this output reads, and
        with `clamp` whether each index is in range)."""
        inputs = len(self.plan.axes) if self.plan.indices_by_map else 0
        loop_index = functools.cache(lambda d: linalg.IndexOp(d).result)  # one linalg.index per dim
        raw = list(block.arguments)[:inputs] or self._extract_indices(part.indices, loop_index)
        narrowed = [self._narrowed(v) for v in raw]
        positions, in_range = self._input_positions(narrowed, clamp, loop_index, part.row_offset)
        value = tensor.extract(part.input, [self.fold.index(p) for p in positions])
        if self.plan.mode is Mode.FILL:
            fill = self.fold.constants.attribute(self.fill)
            return self.fold.select(self.fold.all_of(in_range), value, fill), []
        return value, in_range

    def _indices_map(self, j: int) -> ir.AffineMap:
        """Indexing map of coordinate j: broadcast dims at 0, last at d*c + j."""
        exprs = []
        for d, access in enumerate(self.plan.indices_access):
            expr = ir.AffineConstantExpr.get(0) if access is Access.ZERO else ir.AffineDimExpr.get(d)
            exprs.append(expr)
        last = self.plan.rank - 1
        exprs[last] = exprs[last] * self.plan.coordinate_size + j
        return ir.AffineMap.get(self.plan.rank, 0, exprs)

    def _position(self, access: Access, here: Callable[[], Folded], is_one: Folded | None) -> Folded:
        """Read position along a dim for an ITER/ZERO/RUNTIME access, given
        the output position `here()` and whether the dim is 1 (RUNTIME)."""
        if access is Access.ZERO:
            return 0
        if access is Access.ITER:
            return here()
        return self.fold.select(is_one, 0, here())

    def _extract_indices(self, indices: ir.Value, loop_index: Callable[[int], ir.Value]) -> list[ir.Value]:
        """Read each coordinate with tensor.extract (used when a dim of the
        indices may broadcast at run time; never in a tile)."""
        fold = self.fold
        base = [
            self._position(access, functools.partial(loop_index, d), self.sizes.logical_is_one.get(d))
            for d, access in enumerate(self.plan.indices_access)
        ]
        last = fold.mul(base[-1], self.plan.coordinate_size)
        return [
            tensor.extract(indices, [fold.index(p) for p in [*base[:-1], fold.add(last, j)]])
            for j in range(len(self.plan.axes))
        ]

    def _narrowed(self, value: ir.Value) -> ir.Value:
        """An index value as the op sees it (after a looked-through cast)."""
        return value if self.narrow_type is None else arith.trunci(self.narrow_type, value)

    def _input_positions(
        self, raw_values: list[ir.Value], clamp: bool, loop_index: Callable[[int], ir.Value], row_offset
    ) -> tuple[list[Folded], list[Folded]]:
        """(read position in the input per dim, and with `clamp` whether each
        index is in range)."""
        gathered, in_range = {}, []
        for axis, raw in zip(self.plan.axes, raw_values):
            gathered[axis], ok = self._axis_position(axis, raw, clamp)
            in_range.append(ok)
        positions = [
            gathered[d] if d in gathered else self._kept_position(d, loop_index, row_offset)
            for d in range(self.plan.rank)
        ]
        return positions, (in_range if clamp or self.plan.mode is Mode.FILL else [])

    def _kept_position(self, d: int, loop_index: Callable[[int], ir.Value], row_offset) -> Folded:
        """Where non-axis dim d of the input is read, as its access says.
        Inside a row tile, output row 0 is row `row_offset` of the whole
        output."""

        def here() -> Folded:
            position = loop_index(d)
            return self.fold.add(position, row_offset) if d == 0 and row_offset is not None else position

        return self._position(self.plan.input_access[d], here, self.sizes.input_is_one.get(d))

    def _axis_position(self, axis: int, raw: ir.Value, clamp: bool) -> tuple[Folded, Folded | None]:
        """(position, in range) of an index value on its axis, as the mode
        maps it (`gmx.dialect.modes.normalize_index`):

          raise  a negative one wraps once; with `clamp`, one still outside
                 [0, size) is read as 0 (after, or while finding out, that
                 it is out of range). Without, `in range` is None.
          wrap   floor modulo of the size (the size is not 0: checked);
          clip   clamped to [0, size - 1] (likewise);
          fill   as raise with `clamp`: one outside is read as 0 (the size
                 is not 0 there: `_gather`), and `in range` chooses between
                 the element and the fill value.
        """
        fold, size = self.fold, self.sizes.input[axis]
        if self.plan.target == "iree" and self.plan.mode in (Mode.WRAP, Mode.CLIP):
            raw = self._selected_for_iree(raw, size)
        value = arith.index_cast(ir.IndexType.get(), raw)
        if self.plan.mode is Mode.WRAP:
            if isinstance(size, int) and size & (size - 1) == 0:
                return fold.andi(value, size - 1), None  # two's complement: floor modulo
            rem = fold.remsi(value, size)
            return fold.select(fold.cmp("slt", rem, 0), fold.add(rem, size), rem), None
        if self.plan.mode is Mode.CLIP:
            return fold.minsi(fold.maxsi(value, 0), fold.add(size, -1)), None
        wrapped = fold.select(fold.cmp("slt", value, 0), fold.add(value, size), value)
        if not clamp and self.plan.mode is not Mode.FILL:
            return wrapped, None
        in_range = fold.cmp("ult", wrapped, size)
        return fold.select(in_range, wrapped, 0), in_range


    def _selected_for_iree(self, raw: ir.Value, size: Folded) -> ir.Value:
        """A "wrap" or "clip" index value with a negative one wrapped once
        ("wrap") or made -1 ("clip"), which the mode then maps as it would
        have: a select on the value read. IREE 3.13's CollapseDimensions
        leaves the dims of a generic with no inputs that selects on a value
        it extracts (its rule for bounds-checked gathers, as "fill" and
        "raise" read); folded into one dim, a gathered row is read element
        by element (take_along_dim_bcast, 2 cores: 4.0 ms folded, about the
        engine's time kept)."""
        fold = self.fold
        # "clip": -1, which it clips to 0 as it would the value (0 here would
        # be canonicalized into an arith.maxsi, and the select lost).
        replacement = -1 if self.plan.mode is Mode.CLIP else fold.add(raw, _as_type(fold, size, raw.type))
        return fold.value(fold.select(fold.cmp("slt", raw, 0), replacement, raw, raw.type), raw.type)


def _as_type(fold: Folder, size: Folded, integer_type: ir.Type) -> Folded:
    """An index-typed size as `integer_type` (an int stays an int)."""
    return size if isinstance(size, int) else arith.index_cast(integer_type, size)


def build_gather(op: GatherMultiaxisOp, site: int, checked: bool, constants: Constants, target: str = "llvm") -> ir.Value:
    """Emit the linalg form of `op` at the current insertion point (its
    constants through `constants`); return the value that replaces it."""
    # Indices narrowed by a cast (torch-mlir's i64 -> i32 for tosa.gather)
    # are read wide and truncated where read: no pass over them first.
    indices, narrow_type = read_through_narrowing(op.indices)
    result_type = ir.RankedTensorType(op.output.type)
    mode, _ = read_mode(op)
    plan = plan_gather(
        static_shape(op.input.type),
        static_shape(indices.type),
        op.axes_list,
        element_bits=element_bits_of(result_type.element_type),
        checked=checked,
        mode=mode,
        target=target,
    )
    fold = Folder(constants)
    sizes = emit_sizes(fold, plan, op.input, indices)
    fill = op.attributes[FILL_VALUE_ATTR] if mode is Mode.FILL else None
    return GatherBuilder(plan, sizes, op.input, indices, narrow_type, result_type, site, fold, fill).build()
