"""A gmx.scatter_multiaxis for IREE: one `iree_linalg_ext.scatter`.

IREE does not compile the engine's loops (`scatter_builder`: scf.for on
tensors, which IREE leaves on the host, where a call failed with
`OUT_OF_RANGE ... hal.device.queue.alloca`), and has a scatter of its
own: for each position b of its batch dims, in row-major order unless
`unique_indices`, the update slice `updates[b, ...]` is combined (its
region: `combine(update, original)`) into `original` at the coordinates
`indices[b, :]` of the dims `dimension_map` names, the slice covering the
dims after them. So:

    %r = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"}
           : (tensor<50x128xf32>, tensor<8192x1xi64>, tensor<8192x128xf32>) -> tensor<50x128xf32>
    ->
    %c = linalg.generic {iterator_types = ["parallel", "parallel"]} outs(tensor<8192x1xi64>) {
           <the position of update (b) along dim j: the gather's, mapped as the mode says> }
    %r = "iree_linalg_ext.scatter"(%u, %c, %x) <{dimension_map = array<i64: 0>, unique_indices = false}> ({
         ^bb0(%new: f32, %old: f32):  %s = arith.addf %old, %new  "iree_linalg_ext.yield"(%s) })

The batch dims are G's leading dims up to the last one the positions
depend on (an axis, a dim the indices vary along, a broadcast input dim:
`batch_rank`); the rest of G is the slice, written where it is (a row
payload: index_add of rows, an embedding gradient). Updates that meet at
a position differ in their batch coordinates, so IREE's serial order of
the batch is G's row-major order: the engine's bits, float sums equal to
np.add.at's. Broadcast updates are expanded to G first.

An index that stays outside its axis writes inside the result: in "raise"
mode at position 0 (checked, its report, `iree_reports`, makes the call
raise and the result is never returned; unchecked, that is undefined
behaviour, and this one of its meanings); in "drop" mode into a row after
the input's dim 0 (the input padded by one row, sliced off after).

IREE writes the scatter into its input's memory when nothing reads the
input after it, an argument's too: the runtime hands IREE a copy of such
an argument (`iree_written_arguments`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect.modes import mode_rule
from gmx.dialect.mlir import arith, ir, linalg, tensor

from .folding import Folded
from .gather_plan import Access, GatherPlan
from .iree_linalg_ext import OPERAND_SEGMENTS, SEGMENTS, YIELDS
from .ir_helpers import empty_generic
from .scatter_builder import ScatterBuilder, scatter_fields

TM_TENSOR_SCATTER = "tm_tensor.scatter"  # IREE's scatter, torch-mlir's name for it
IREE_SCATTER, _SCATTER_SEGMENTS = OPERAND_SEGMENTS[TM_TENSOR_SCATTER]
IREE_YIELD = YIELDS["tm_tensor.yield"]


def batch_rank(reading: GatherPlan) -> int:
    """How many leading dims of G are the scatter's batch (at least 1):
    those up to the last dim that is an axis, that the indices vary along,
    or that the input does not take at the update's own position. The dims
    after it are the slice, written at the update's position."""
    k = reading.rank
    while k > 1:
        d = k - 1
        positioned = reading.indices_access[d] is not Access.ZERO or reading.input_access[d] is not Access.ITER
        if d in reading.axes or positioned:
            break
        k -= 1
    return max(k, 1)


def drops_into_padding(reading: GatherPlan) -> bool:
    """Whether an index outside its axis is skipped ("drop"), so that the
    scatter writes it into a padding row; else ("raise") at position 0."""
    return bool(reading.axes) and not mode_rule(reading.mode).reads_every_row


def coordinate_bits(input_shape) -> int:
    """The width of the scatter's coordinates: 32 where every position (a
    padding row's too) fits, halving what the scatter reads; else 64."""
    return 32 if max(input_shape, default=0) < (1 << 31) - 1 else 64


def build_iree_scatter(op, site: int, checked: bool, constants, reporter) -> ir.Value:
    """`build_scatter` for IREE: one `iree_linalg_ext.scatter` replacing
    `op`, written into the input it is handed (IREE runs no loops on
    tensors; the runtime hands it a copy of an argument it may write)."""
    return IreeScatterBuilder(**scatter_fields(op, site, checked, constants, reporter)).build()


@dataclass(frozen=True)
class IreeScatterBuilder(ScatterBuilder):
    """Builds one planned scatter as an iree_linalg_ext.scatter."""

    def _checked_scatter(self) -> ir.Value:
        """On IREE the indices are checked by their report (`iree_reports`,
        built before this pass), never by the engine's scan."""
        return self._scatter()

    def _scatter(self, enabled: Folded = True) -> ir.Value:
        """The result (IREE's scatter; `enabled` is the engine's)."""
        shape = self.plan.output_shape
        if 0 in shape:
            return self.input  # no update
        if not shape:
            return self._combined_scalar()
        k, pads = batch_rank(self.plan), drops_into_padding(self.plan)
        original = self._padded() if pads else self.input
        result = self._linalg_ext_scatter(self._g_updates(), self._coordinates(k, pads), original, k)
        if pads:
            rank = self.plan.rank
            result = tensor.extract_slice(self.result_type, result, [], [], [], [0] * rank,
                                          list(self.plan.input_shape), [1] * rank)
        return result

    def _combined_scalar(self) -> ir.Value:
        """A rank-0 scatter: its one update combined into its one element
        (a rank-0 generic; IREE's scatter needs a batch dim)."""
        scalar = ir.AffineMap.get(0, 0, [])
        generic = empty_generic([self.input, self.updates], [tensor.empty([], self.result_type.element_type)],
                           [scalar] * 3, [])
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            value, update, _ = block.arguments
            combiner = self._combiner()
            linalg.YieldOp([update if combiner is None else combiner(value, update)])
        return generic.results[0]

    def _padded(self) -> ir.Value:
        """The input with one more row along dim 0 (left undefined: only
        dropped updates are written there, and it is sliced off)."""
        shape = list(self.plan.input_shape)
        element = self.result_type.element_type
        empty = tensor.empty([shape[0] + 1, *shape[1:]], element)
        rank = len(shape)
        return tensor.insert_slice(self.input, empty, [], [], [], [0] * rank, shape, [1] * rank)

    def _g_updates(self) -> ir.Value:
        """The updates at G's shape (expanded where they broadcast)."""
        shape = list(self.plan.output_shape)
        if list(ir.RankedTensorType(self.updates.type).shape) == shape:
            return self.updates
        rank = len(shape)
        exprs = [ir.AffineConstantExpr.get(0) if access is Access.ZERO else ir.AffineDimExpr.get(d)
                 for d, access in enumerate(self.scatter.updates_access)]
        maps = [ir.AffineMap.get(rank, 0, exprs), ir.AffineMap.get_identity(rank)]
        out = tensor.empty(shape, self.result_type.element_type)
        generic = empty_generic([self.updates], [out], maps, ["parallel"] * rank)
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            linalg.YieldOp([block.arguments[0]])
        return generic.results[0]

    def _coordinates(self, k: int, pads: bool) -> ir.Value:
        """tensor<G[0] x .. x G[k-1] x k x iN>: per batch position, where
        its slice goes along dims 0..k-1 of the result, each coordinate
        tuple read once per coordinate, as the gather reads it (iN:
        `coordinate_bits`)."""
        fold = self.fold
        i64 = ir.IntegerType.get_signless(coordinate_bits(self.plan.input_shape))
        shape = [*self.plan.output_shape[:k], k]
        generic = empty_generic([], [tensor.empty(shape, i64)], [ir.AffineMap.get_identity(k + 1)], ["parallel"] * (k + 1))
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            at = {d: linalg.IndexOp(d).result for d in range(k)}
            positions, in_range = self._read_positions(at, None)
            where = [positions[d] if d in positions else self._kept_position(d, at.__getitem__, None) for d in range(k)]
            j = linalg.IndexOp(k).result
            chosen = where[0]
            for c in range(1, k):
                chosen = fold.select(fold.cmp("eq", j, c), where[c], chosen)
            ok = fold.all_of(in_range)
            if ok is not True:
                outside = fold.select(fold.cmp("eq", j, 0), self.plan.input_shape[0], 0) if pads else 0
                chosen = fold.select(ok, chosen, outside)
            linalg.YieldOp([fold.value(arith.index_cast(i64, fold.index(chosen)), i64)])
        return generic.results[0]

    def _linalg_ext_scatter(self, updates: ir.Value, coordinates: ir.Value, original: ir.Value, k: int) -> ir.Value:
        """IREE's scatter (an op of a dialect this context does not load:
        built unregistered, printed in generic form for iree-compile)."""
        context = original.context
        context.allow_unregistered_dialects = True
        segments = _SCATTER_SEGMENTS(1, 1)  # updates, indices, no mask, original
        op = ir.Operation.create(
            IREE_SCATTER, results=[original.type], operands=[updates, coordinates, original],
            attributes={
                "dimension_map": ir.DenseI64ArrayAttr.get(list(range(k))),
                "unique_indices": ir.BoolAttr.get(self.scatter.unique_indices),
                SEGMENTS: ir.DenseI32ArrayAttr.get(segments),
            },
            regions=1,
        )
        element = self.result_type.element_type
        block = op.regions[0].blocks.append(element, element)
        with ir.InsertionPoint(block):
            update, value = block.arguments
            combiner = self._combiner()
            combined = update if combiner is None else combiner(value, update)
            ir.Operation.create(IREE_YIELD, operands=[combined])
        return op.results[0]
