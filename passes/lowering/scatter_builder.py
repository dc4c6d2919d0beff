"""Builds the loops of one gmx.scatter_multiaxis: what its plan
(`scatter_plan`) says, folded as it is built (`folding`).

The result is built on `input` as the destination (destination-passing
style): the loops carry it as their iter_arg and `tensor.insert` each
combined value into it, so one-shot bufferization writes in place when
`input` is dead (a donated argument), and copies it once when it is not.
A read-only function argument (`copies_input`) is copied first into a
`tensor.empty` (`linalg.copy`), which destination passing makes the
caller's result buffer: one copy, where bufferization's copy of the
argument and destination passing's copy of the result would be two. Positions are read as
the gather of the same operands reads them (`index_reading`); "raise"
indices are checked by the gather's scan (`index_checks`) before anything
is written:

    %ok = <scan of the indices: a flag per row, then their and>
    scf.if !%ok { <report every bad index in row-major order> }
    %r = scf.if %ok -> tensor<5x3xf32> {
      %s = scf.for %o0 = %c0 to %c4 step %c1 iter_args(%acc = %input) {
        %v = tensor.extract %indices[%o0, %c0] : tensor<4x1xi64>
        %p = <%v wrapped once>
        %in = arith.cmpi ult, %p, %c5 : index
        %next = scf.if %in -> tensor<5x3xf32> {
          %w = scf.for %o1 = %c0 to %c3 step %c1 iter_args(%a = %acc) {
            %old = tensor.extract %a[%p, %o1]
            %u = tensor.extract %updates[%o0, %o1]
            %new = arith.addf %old, %u : f32
            %b = tensor.insert %new into %a[%p, %o1]
            scf.yield %b
          }
          scf.yield %w
        } else { scf.yield %acc }
        scf.yield %next
      }
      scf.yield %s
    } else { scf.yield %input }     (nothing written: the caller raises)

Each index is read once per update, and the position is safe on the value
read: an index out of range (never in a checked program, unless another
thread rewrote it since the scan) is skipped, so no write lands outside
the result. The index is read in the loop of the innermost dim it varies
along; the loops of G's other dims run inside the skip. Where the plan
splits a dim (`Split`), the outermost loop runs over its tiles, marked
`gmx.parallel` (gmx-parallel-loops makes it an `scf.parallel`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from gmx.dialect.gmx import static_shape
from gmx.dialect.mlir import arith, ir, linalg, scf, tensor
from gmx.dialect.reductions import reduction_rule
from gmx.dialect.scatter import ScatterMultiaxisOp, has_unique_indices, read_reduction

from .counting_sort import bucket_start, counting_sort
from .folding import Constants, Folded, Folder
from .gather_plan import Access, GatherPlan
from .index_checks import IndexChecks, either_of
from .index_reading import IndexReading, element_bits_of, emit_sizes, read_operands
from .ir_helpers import (
    affine_maps,
    argument_writable,
    collapse,
    copy_into,
    insert_along,
    iterator_types,
    mark_parallel,
    slice_along,
    true_flags,
)
from .reporters import CALLBACKS, Reporter, unless
from .scatter_plan import ScatterPlan, Split, Targets, copies_input, plan_scatter, saves_tiles, scans_tile_by_tile


def element_kind(element_type: ir.Type) -> str:
    """The kind `ReductionRule.combiners` is keyed by."""
    if isinstance(element_type, ir.ComplexType):
        return "complex"
    if isinstance(element_type, ir.IntegerType):
        return "bool" if element_type.width == 1 else "int"
    return "float"


@dataclass(frozen=True)
class ScatterBuilder(IndexChecks, IndexReading):
    """Builds the IR of one planned scatter at the current insertion point."""

    scatter: ScatterPlan
    updates: ir.Value
    destination: ir.Value  # what the loops write: `input`, or a copy of it (`copies_input`)
    fresh: bool = False  # `destination` is that copy: a buffer of the call's own, dropped if it raises

    @property
    def plan(self) -> GatherPlan:
        """How positions are read (what the shared readers and checks ask)."""
        return self.scatter.reading

    def build(self) -> ir.Value:
        """The scatter's result: `input` unchanged where a shape or index
        check fails (reported), else with every update combined."""
        return self._either(self.fold.all_of(self._shape_checks()), self._checked_scatter, lambda: self.destination)

    def _checked_scatter(self) -> ir.Value:
        """In "raise" mode (checked), every index scanned before any write;
        the scatter runs only if all are in range."""
        if not self.scatter.checks_indices:
            return self._scatter()
        if scans_tile_by_tile(self.scatter, self.fresh):
            return self._flagged_split()
        if saves_tiles(self.scatter, self.fresh, element_bits_of(ir.RankedTensorType(self.indices.type).element_type)):
            return self._flagged_split(saved=True)
        ok = self._scanned_flags(self.indices)
        unless(self.fold, ok, self._report_all)
        return self._scatter(enabled=ok)

    def _flagged_split(self, saved: bool = False) -> ir.Value:
        """The Split loop on a fresh destination (`scans_tile_by_tile`),
        each tile scattered as unchecked (a bad index skipped), the skip
        also writing false into the tile's own flag (no flag is written by
        two threads; each index read once: no pass of its own over the
        indices; nothing computed for an index in range, the skip's branch
        being the only place a flag is written); then, only if a flag is
        false, the report scan over all the indices (the caller raises,
        dropping the result):

            %all = linalg.fill ins(%true) outs(tensor.empty() : tensor<1024xi1>)
            %r, %flags = scf.for %s = 0 to 1024 step 1 iter_args(%acc = %copy, %f = %all) {gmx.parallel}
              %w, %g = <the nest over the tile, as unchecked; where it skips an index: tensor.insert %false into %f[%s / 1]>
              scf.yield %w, %g
            scf.if !<and of %flags> { <report every bad index in row-major order> }

        `saved` (`saves_tiles`: the destination is the input itself, a
        donated one): each tile first copies the input entries it writes
        into a buffer of the call's own, and a call with a bad index
        copies them all back before it reports, leaving the input as it
        was:

            %r, %flags, %saved = scf.for %s ... iter_args(%acc = %input, %f = %all, %b = %empty) {gmx.parallel}
              %old = tensor.extract_slice %acc[%s, 0] [1, 4096] [1, 1]
              %c = tensor.insert_slice %old into %b[%s, 0] [1, 4096] [1, 1]
              %w, %g = <the nest, as above>
              scf.yield %w, %g, %c
            %ok = <and of %flags>
            %out = scf.if %ok { scf.yield %r } else { scf.yield (linalg.copy ins(%saved) outs(%r)) }
            scf.if !%ok { <report> }
        """
        fold, index = self.fold, self.fold.index
        dim, tile = self.scatter.strategy.dim, self.scatter.strategy.tile
        size = self.plan.output_shape[dim]
        state = [self.destination, true_flags(fold, [-(-size // tile)])]
        if saved:
            state.append(tensor.empty(list(self.plan.input_shape), self.result_type.element_type))
        loop = scf.ForOp(index(0), index(size), index(tile), state)
        mark_parallel(loop)
        with ir.InsertionPoint(loop.body):
            start, acc, tile_flags, *backup = loop.induction_variable, *loop.inner_iter_args
            slot = index(fold.divui(start, tile))
            backup = [self._saved_tile(acc, b, dim, start, tile) for b in backup]
            scf.YieldOp([*self._nest(list(range(self.plan.rank)), {}, (acc, tile_flags, slot), None,
                                     {dim: (start, tile)}), *backup])
        result, flags, *backup = loop.results
        ok = self._all_flags(flags)
        if saved:
            result = self._either(ok, lambda: result, lambda: copy_into(backup[0], result))
        unless(self.fold, ok, self._report_all)
        return result

    @staticmethod
    def _saved_tile(acc: ir.Value, saved: ir.Value, dim: int, start: ir.Value, tile: int) -> ir.Value:
        """`saved` with the input entries of a tile (`tile` along `dim`
        from `start`) copied from `acc`, before the tile writes them."""
        return insert_along(slice_along(acc, start, tile, dim), saved, start, tile, dim)

    # -- the loops ---------------------------------------------------------
    def _scatter(self, enabled: Folded = True) -> ir.Value:
        """The nest over G on `input`, split as planned; where `enabled`
        is false, its outermost loop runs no iteration (the result is
        `input`, and the loops stay the only producer of the result, which
        bufferization can then write where the caller wants it)."""
        strategy = self.scatter.strategy
        order = list(range(self.plan.rank))
        if isinstance(strategy, Split):
            dim, tile = strategy.dim, strategy.tile
            return self._parallel(self.plan.output_shape[dim], tile, enabled,
                                  lambda start, acc: self._nest(order, {}, acc, None, {dim: (start, tile)}))
        if isinstance(strategy, Targets) and strategy.sorted:
            return self._sorted_targets(strategy, enabled)
        if isinstance(strategy, Targets):
            size, chunk = self.plan.input_shape[strategy.axis], strategy.chunk(self.plan.input_shape)
            owned = lambda start: (strategy.axis, start, self.fold.add(start, chunk))  # noqa: E731
            return self._parallel(size, chunk, enabled,
                                  lambda start, acc: self._nest(order, {}, acc, None, owned=owned(start)))
        return self._nest(order, {}, self.destination, None, enabled=enabled)

    def _sorted_targets(self, strategy: Targets, enabled: Folded) -> ir.Value:
        """The index tuples sorted by the range of targets they write (each
        tuple's range read once, in parallel, into keys that a stable
        counting sort orders, serially), then a loop over the ranges, in
        parallel, each walking only its own tuples in row-major order and
        applying each one's updates (the loops of G's other dims): every
        update row read by one thread only. Each tuple is read again where
        it is applied and written only if in range and in the walking range
        (a bad index, sorted into range 0, or one rewritten since: skipped):

            %keys = linalg.generic <position of each tuple // chunk, a bad one 0>
            %order, %ends = <counting sort of 0..n-1 by %keys>
            %r = scf.for %b = %c0 to %c2 step %c1 iter_args(%acc = %dest) {gmx.parallel}
              %w = scf.for %q = <start of %b> to %ends[%b] step %c1 iter_args(%a = %acc) {
                %t = tensor.extract %order[%q]
                <the nest over the payload of tuple %t, on %a, if its position is in [%b * chunk, (%b + 1) * chunk)>
              }
              scf.yield %w
            }
        """
        fold, index = self.fold, self.fold.index
        shape, axis = self.plan.input_shape, strategy.axis
        chunk, ranges = strategy.chunk(shape), strategy.ranges(shape)
        tuple_dims = self._index_dims()
        payload = [d for d in range(self.plan.rank) if d not in tuple_dims]

        order, ends = counting_sort(fold, self._range_keys(axis, chunk, tuple_dims), ranges)

        def walk(part: ir.Value, acc: ir.Value) -> ir.Value:
            start = index(fold.mul(part, chunk))
            owned = (axis, start, fold.add(start, chunk))
            first = bucket_start(fold, ends, part)
            end = index(fold.select(enabled, tensor.extract(ends, [part]), first))
            loop = scf.ForOp(first, end, index(1), [acc])
            with ir.InsertionPoint(loop.body):
                at = self._tuple_at(tuple_dims, tensor.extract(order, [loop.induction_variable]))
                scf.YieldOp([self._nest(payload, at, loop.inner_iter_args[0], None, owned=owned)])
            return loop.results[0]

        # Not `enabled`: no update walked (the ranges loop keeps its static
        # trip count, which gmx-parallel-loops keeps parallel unguarded).
        return self._parallel(ranges, 1, True, walk)

    def _range_keys(self, axis: int, chunk: int, tuple_dims: list[int]) -> ir.Value:
        """The range of targets each index tuple writes (position along
        `axis` // `chunk`; a bad index reads as 0: range 0, which skips
        it), as a rank-1 tensor of index over the tuples in row-major
        order: one generic over G's `tuple_dims` (G's other dims 1), each
        index read once into a tensor of the program's own (the sort reads
        each key twice)."""
        rank = self.plan.rank
        shape = [n if d in tuple_dims else 1 for d, n in enumerate(self.plan.output_shape)]
        inputs = [self.indices] * len(self.plan.axes) if self.plan.indices_by_map else []
        maps = [self._indices_map(j) for j in range(len(inputs))] + [ir.AffineMap.get_identity(rank)]
        keys = tensor.empty(shape, ir.IndexType.get())
        generic = linalg.GenericOp_(inputs, [keys], affine_maps(maps), iterator_types("parallel", rank))
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            loop_index = functools.cache(lambda d: linalg.IndexOp(d).result)
            raw = list(block.arguments)[: len(inputs)] or self._extract_indices(self.indices, loop_index)
            value = raw[self.plan.axes.index(axis)]
            position, _ = self._axis_position(axis, self._narrowed(value), clamp=True)
            linalg.YieldOp([self.fold.index(self.fold.divui(position, chunk))])
        return collapse(generic.results[0], [list(range(rank))])

    def _tuple_at(self, dims: list[int], k: ir.Value) -> dict[int, Folded]:
        """The position along `dims` of G (in order) of their `k`th entry
        in row-major order."""
        at = {}
        for d in reversed(dims[1:]):
            extent = self.plan.output_shape[d]
            at[d], k = self.fold.index(self.fold.remui(k, extent)), self.fold.divui(k, extent)
        at[dims[0]] = self.fold.index(k)
        return at

    def _parallel(self, size: int, step: int, enabled: Folded,
                  body: Callable[[ir.Value, ir.Value], ir.Value]) -> ir.Value:
        """A loop over [0, size) by `step` (none where not `enabled`) on
        `input`, marked parallel (its iterations write disjoint parts):
        `body(start, acc)` per iteration."""
        index = self.fold.index
        loop = scf.ForOp(index(0), index(self.fold.select(enabled, size, 0)), index(step), [self.destination])
        mark_parallel(loop)
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([body(loop.induction_variable, loop.inner_iter_args[0])])
        return loop.results[0]

    def _nest(self, dims: list[int], at: dict[int, ir.Value], acc, written: tuple | None,
              bounds: dict | None = None, owned: tuple | None = None, enabled: Folded = True):
        """Loops over `dims` of G (in order) around the update at `at`, on
        `acc`; `written` is (positions per axis, in range) once the indices
        have been read (in the loop of the last dim they vary along).
        `bounds[d]`: (start, size) of dim d's tile in a split; `owned`:
        (axis, start, end) of the positions this nest may write (Targets);
        where `enabled` is false, the outermost loop runs no iteration.
        `acc` is the tensor written, or `(tensor, flags, slot)`: then the
        nest also writes false into `flags[slot]` (an i1 tensor) where it
        skips an index, and returns both tensors (`_flagged_split`: the
        check in the scatter's own loops; there `enabled` is true, so a
        skip is an index out of range)."""
        flagged = isinstance(acc, tuple)
        state, slot = (list(acc[:2]), acc[2]) if flagged else ([acc], None)
        built = self._nest_state(dims, at, state, written, bounds or {}, owned, enabled, slot)
        return tuple(built) if flagged else built[0]

    def _nest_state(self, dims: list[int], at: dict[int, ir.Value], state: list, written: tuple | None,
                    bounds: dict, owned: tuple | None, enabled: Folded, slot: ir.Value | None = None) -> list:
        """`_nest` on `state`: [the tensor written] or [it, the flags]."""
        fold = self.fold
        if written is None and all(d in at for d in self._index_dims()):
            written = self._read_positions(at, owned)
            # With no loop left to run no iteration, `enabled` joins the skip.
            last = not dims
            in_range = fold.all_of([*written[1], enabled] if last else written[1])
            inner = True if last else enabled
            return either_of(in_range, lambda: self._nest_state(dims, at, state, written, bounds, None, inner),
                             lambda: self._skipped(state, slot), [v.type for v in state])
        if not dims:
            return either_of(enabled, lambda: [self._combine(at, state[0], written[0]), *state[1:]],
                             lambda: state, [v.type for v in state])
        dim, rest = dims[0], dims[1:]
        start, size = bounds.get(dim, (0, self.plan.output_shape[dim]))
        if size == 1:
            return self._nest_state(rest, {**at, dim: fold.index(start)}, state, written, bounds, owned, enabled, slot)
        index = fold.index
        end = fold.add(start, size)
        loop = scf.ForOp(index(start), index(fold.select(enabled, end, start)), index(1), state)
        with ir.InsertionPoint(loop.body):
            inner = self._nest_state(rest, {**at, dim: loop.induction_variable}, list(loop.inner_iter_args), written,
                                     bounds, owned, True, slot)
            scf.YieldOp(inner)
        return list(loop.results)

    def _skipped(self, state: list, slot: ir.Value | None) -> list:
        """`state` where an index is skipped: with flags, false written
        into the tile's flag (`slot`)."""
        if slot is None:
            return state
        return [state[0], tensor.insert(self.fold.value(False), state[1], [slot])]

    def _index_dims(self) -> list[int]:
        """The dims of G the indices vary along (read there, not broadcast)."""
        return [d for d, access in enumerate(self.plan.indices_access) if access is not Access.ZERO]

    def _read_positions(self, at: dict[int, ir.Value], owned: tuple | None) -> tuple[dict[int, Folded], list[Folded]]:
        """(position per axis, whether each is written): each coordinate
        read once, at the update's position, mapped as the mode says; an
        index that stays outside its axis is not written ("raise": only
        if rewritten since the scan; "drop": skipped), nor one outside
        the `owned` range (axis, start, end)."""
        if not self.plan.axes:
            return {}, []
        raw = self._extract_indices(self.indices, at.__getitem__)
        positions, in_range = {}, []
        for axis, value in zip(self.plan.axes, raw):
            positions[axis], ok = self._axis_position(axis, self._narrowed(value), clamp=True, guarded=True)
            in_range.append(True if ok is None else ok)
        if owned is not None:
            axis, start, end = owned
            fold = self.fold
            in_range += [fold.cmp("uge", positions[axis], start), fold.cmp("ult", positions[axis], end)]
        return positions, in_range

    def _combine(self, at: dict[int, ir.Value], acc: ir.Value, axis_positions: dict[int, Folded]) -> ir.Value:
        """acc with the update at `at` combined into its position."""
        fold = self.fold
        where = [
            fold.index(axis_positions[d] if d in axis_positions else self._kept_position(d, at.__getitem__, None))
            for d in range(self.plan.rank)
        ]
        update = tensor.extract(self.updates, [
            fold.index(0 if access is Access.ZERO else at[d]) for d, access in enumerate(self.scatter.updates_access)
        ])
        combiner = self._combiner()
        if combiner is not None:
            update = combiner(tensor.extract(acc, where), update)
        return tensor.insert(update, acc, where)

    def _combiner(self) -> Callable[[ir.Value, ir.Value], ir.Value] | None:
        """combine(value, update) as the reduction table says for this
        element kind; None for "none" (the update replaces it)."""
        rule = reduction_rule(self.scatter.reduction)
        element, kind = self.result_type.element_type, element_kind(self.result_type.element_type)
        if kind == "float" and rule.float_keeps_value_if is not None:
            return functools.partial(_keep_value_if, rule.float_keeps_value_if)
        if not rule.combines:
            return None
        name = rule.combiners[kind]
        return lambda value, update: ir.Operation.create(name, results=[element], operands=[value, update]).result


def _keep_value_if(predicate: str, value: ir.Value, update: ir.Value) -> ir.Value:
    """numpy's max/min: `value <predicate> update or value is NaN ? value : update`."""
    keeps = arith.cmpf(getattr(arith.CmpFPredicate, predicate.upper()), value, update)
    keeps = arith.ori(keeps, arith.cmpf(arith.CmpFPredicate.UNO, value, value))
    return arith.select(keeps, value, update)

def scatter_refusal(reduction, element_type: ir.Type, static: bool) -> str | None:
    """Why a verified scatter has no lowering yet, or None."""
    if not static:
        return "dynamic shapes are not lowered yet"
    rule, kind = reduction_rule(reduction), element_kind(element_type)
    if rule.combines and kind not in rule.combiners and not (kind == "float" and rule.float_keeps_value_if):
        return f'reduction "{rule.reduction}" on {element_type} is not lowered yet'
    return None


def scatter_fields(op: ScatterMultiaxisOp, site: int, checked: bool, constants: Constants, reporter: Reporter) -> dict:
    """What a scatter builder (`ScatterBuilder`, `iree_scatter.IreeScatterBuilder`)
    is made of for `op` (verified, `scatter_refusal` None): its plan, sizes
    (emitted at the current insertion point) and operands; the destination
    is `input`."""
    indices, narrow_type, result_type, mode = read_operands(op)
    plan = plan_scatter(
        static_shape(op.input.type),
        static_shape(indices.type),
        static_shape(op.updates.type),
        op.axes_list,
        element_bits=element_bits_of(result_type.element_type),
        checked=checked,
        mode=mode,
        reduction=read_reduction(op),
        unique_indices=has_unique_indices(op),
    )
    fold = Folder(constants)
    sizes = emit_sizes(fold, plan.reading, op.input, indices)
    return dict(sizes=sizes, input=op.input, indices=indices, narrow_type=narrow_type, result_type=result_type,
                site=site, fold=fold, reporter=reporter, scatter=plan, updates=op.updates, destination=op.input)


def build_scatter(op: ScatterMultiaxisOp, site: int, checked: bool, constants: Constants,
                  reporter: Reporter = CALLBACKS) -> ir.Value:
    """Emit the loops of `op` (verified, `scatter_refusal` None) at the
    current insertion point (its constants through `constants`); return
    the value that replaces it. The loops write `input`, or one copy of it
    where it is a read-only argument (`copies_input`)."""
    fields = scatter_fields(op, site, checked, constants, reporter)
    if copies_input(isinstance(op.input, ir.BlockArgument), argument_writable(op.input)):
        empty = tensor.empty(static_shape(op.input.type), fields["result_type"].element_type)
        fields["destination"] = copy_into(op.input, empty)
        fields["fresh"] = True
    return ScatterBuilder(**fields).build()
