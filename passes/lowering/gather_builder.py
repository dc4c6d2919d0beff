"""Builds the linalg form of one gmx.gather_multiaxis: what its plan
(`gather_plan`) says, folded as it is built (`folding`). The IR is described
in `convert_gmx_to_linalg`, the pass that calls `build_gather` on each op;
the callbacks and attributes it uses are `runtime_abi`'s.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from gmx.dialect import GatherMultiaxisOp
from gmx.dialect.gmx import static_shape
from gmx.dialect.modes import FILL_VALUE_ATTR, Mode
from gmx.dialect.mlir import ir, linalg, scf, tensor

from .counting_sort import bucket_start, counting_sort
from .folding import Constants, Folded, Folder
from .gather_plan import Access, ColumnTiles, Flagged, GatherPlan, RowTiles, plan_gather
from .index_checks import IndexChecks
from .index_reading import IndexReading, element_bits_of, emit_sizes, read_operands
from .ir_helpers import (
    affine_maps,
    collapse,
    collapse_groups,
    insert_along,
    iterator_types,
    mark_parallel,
    slice_along,
    true_flag,
)
from .reporters import CALLBACKS, Reporter, unless

# Marks the gather generics built for IREE (`iree_cpu_config` configures them).
IREE_GATHER_MARK = "gmx.iree_gather"


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
class GatherBuilder(IndexChecks, IndexReading):
    """Builds the IR of one planned gather at the current insertion point:
    the plan has decided the strategy, this only builds it."""

    plan: GatherPlan
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

    # -- the strategies ----------------------------------------------------------
    def _scanned_gather(self, part: Part) -> ir.Value:
        """Scan the whole gather's indices (flags per row, in parallel);
        report them if one is out of range; gather, a bad index read as 0
        (the value the gather reads is made safe where it is read, so an
        index rewritten during the call never reads outside the input)."""
        unless(self.fold, self._scanned_flags(part.indices), self._report_all)
        return self._checked_gather(part)

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
            unless(self.fold, tensor.extract(valid, []), self._report_all)
            return gathered
        slice_indices = self.plan.indices_access[0] is Access.ITER
        flags = tensor.empty([height // rows], ir.IntegerType.get_signless(1))
        loop = scf.ForOp(index(0), index(height), index(rows), [self._empty_output(), flags])
        mark_parallel(loop)
        with ir.InsertionPoint(loop.body):
            start, acc, tile_flags = loop.induction_variable, *loop.inner_iter_args
            indices = slice_along(self.indices, start, rows) if slice_indices else self.indices
            part = Part(slice_along(acc, start, rows), indices, self.input, start)
            tile, valid = self._flagged_generic(part, true_flag(fold))
            k = index(fold.divui(start, rows))
            scf.YieldOp([insert_along(tile, acc, start, rows), tensor.insert(tensor.extract(valid, []), tile_flags, [k])])
        gathered, flags = loop.results
        unless(self.fold, self._all_flags(flags), self._report_all)
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
        order, ends = counting_sort(fold, slabs, tiles.slabs)
        rank = self.plan.rank
        source = collapse(self.input, collapse_groups(rank, dim))  # [slabs, C, T]
        rows = collapse(outs, collapse_groups(rank, dim, keep_tail=False))  # [R, C]
        size = self.plan.output_shape[dim]
        # Slabs write disjoint rows (each row is in one bucket): in parallel.
        per_slab = scf.ForOp(index(0), index(tiles.slabs), index(1), [rows])
        mark_parallel(per_slab)
        with ir.InsertionPoint(per_slab.body):
            slab, acc = per_slab.induction_variable, per_slab.inner_iter_args[0]
            end = tensor.extract(ends, [slab])
            start = bucket_start(fold, ends, slab)
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
        groups = collapse_groups(rank, dim, keep_tail=False)
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
        generic = linalg.GenericOp_(index_inputs, inits, affine_maps(maps), iterator_types("parallel", rank))
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
        return tuple(collapse(r, [list(range(rank))]) for r in generic.results)

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
            part = Part(slice_along(acc, start, rows), slice_along(self.indices, start, rows), self.input, start)
            # The tile's scan reduces into a flag of its own (a stack slot
            # of the loop body, gmx-parallel-bodies' function), copied to the
            # tile's entry (by value: a slice of the flags would alias them).
            valid = self._scan_indices(self._scan_view(part.indices), true_flag(fold), self._in_range)
            tile = self._checked_gather(part)
            k = index(fold.divui(start, rows))
            scf.YieldOp([insert_along(tile, acc, start, rows), tensor.insert(tensor.extract(valid, []), tile_flags, [k])])
        gathered, flags = loop.results
        unless(self.fold, self._all_flags(flags), self._report_all)
        return gathered

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
        return linalg.GenericOp_(index_inputs, [part.outs, *flags], affine_maps(maps), iterator_types(iterator, rank))

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


def build_gather(op: GatherMultiaxisOp, site: int, checked: bool, constants: Constants, target: str = "llvm",
                 reporter: Reporter = CALLBACKS) -> ir.Value:
    """Emit the linalg form of `op` at the current insertion point (its
    constants through `constants`, its checks reported through
    `reporter`); return the value that replaces it."""
    indices, narrow_type, result_type, mode = read_operands(op)
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
    return GatherBuilder(sizes=sizes, input=op.input, indices=indices, narrow_type=narrow_type, result_type=result_type,
                         site=site, fold=fold, reporter=reporter, plan=plan, fill=fill).build()
