"""`--gmx-row-ranges`: an entry that takes its result's buffer computes any
range of the result's rows (dim 0) it is asked for, so that threads can
each compute a range of one call.

Applies to a function of `--gmx-destination-passing` whose one result is a
gmx.gather_multiaxis of static shape, under views that keep dim 0 (rows R):

    func.func @main(%x: tensor<256x64xf32>, %i: tensor<256x8xi64>, %out: memref<256x8xf32>)
        attributes {gmx.destinations} {
      %c = tosa.cast %i : (tensor<256x8xi64>) -> tensor<256x8xi32>
      %g = "gmx.gather_multiaxis"(%x, %c) {axes = array<i64: 1>} : ... -> tensor<256x8xf32>
      bufferization.materialize_in_destination %g in restrict writable %out
      return
    }

becomes a loop over tiles of T rows (`row_tile`) from `%first` to `%last`,
two index arguments after the destination, each tile gathering from the
rows of its operands that it reads (the elementwise ops and views they
are made of replayed on slices, each value once per tile, so that nothing
is computed for rows outside the range) into its rows of the destination:

    func.func @main(%x: ..., %i: ..., %out: memref<256x8xf32>, %first: index, %last: index)
        attributes {gmx.destinations, gmx.row_ranges = array<i64: 256, 32>} {
      scf.for %r = %first to %last step %c32 {
        %xs = tensor.extract_slice %x[%r, 0] [32, 64] [1, 1]
        %is = tensor.extract_slice %i[%r, 0] [32, 8] [1, 1]
        %cs = tosa.cast %is : (tensor<32x8xi64>) -> tensor<32x8xi32>
        %g = "gmx.gather_multiaxis"(%xs, %cs) {axes = array<i64: 1>} : ... -> tensor<32x8xf32>
        %o = memref.subview %out[%r, 0] [32, 8] [1, 1]
        bufferization.materialize_in_destination %g in restrict writable %o
      }
      return
    }

`gmx.row_ranges = [R, T]` (`runtime_abi`) tells the runtime: `%first` and
`%last` are multiples of T (or R), 0 <= first <= last <= R, and the rows
outside the range are left as they were. An operand whose dim 0 is
broadcast (size 1) or gathered (an axis) is read whole by every tile.

Exactness: a tile reads each index of its rows once, so in checked mode
the indices must be sliced with the rows (their logical dim 0 is R):
then the bad indices of a range are reported in the order one call over
all rows reports them, and ranges in row order concatenate to that
order. Indices broadcast along the rows would be checked, and reported,
once per tile: such a gather is split only unchecked or in a mode that
reports nothing (wrap, clip, fill). Left alone otherwise: a gather that
runs in column tiles (`splits_rows`), several results,
a result not a gather (under dim-0-keeping views), a dynamic or small
(`row_tile` says None) output.
"""

from __future__ import annotations

import math

from gmx.dialect import OP_NAME
from gmx.dialect.mlir import arith, ir, scf, tensor

from . import gather_plan
from ..registry import PassInfo, PassOption, add_python_pass
from ..views import VIEW_OPS, defining_op, emit_view, static_shape_of
from .runtime_abi import DESTINATIONS_ATTR, ROW_RANGES_ATTR

# Outputs smaller than this are not split: a thread's share of a call
# would cost less than handing it to the thread.
SPLIT_MIN_BYTES = 512 << 10
# Outputs per tile, at most (when R has a divisor that fits): the unit the
# runtime hands to threads, small enough that a tile's indices and outputs
# stay in L2 between its scan and its gather (as many index values as the
# checked gather's own row tiles hold, `gather_plan.TILE_INDICES`).
TILE_ELEMENTS = gather_plan.TILE_INDICES
# Elementwise ops (TOSA's broadcast operands of dim 0 size 1) replayed on
# slices of their operands: the rows of their result are their result on
# the rows of their operands. torch-mlir's index arithmetic (the floor
# modulo of take_along_dim, the narrowing cast) is made of them.
_ELEMENTWISE = frozenset(
    [f"tosa.{name}" for name in (
        "cast", "add", "sub", "mul", "intdiv", "select", "greater", "greater_equal", "equal",
        "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or",
        "bitwise_xor", "bitwise_not", "maximum", "minimum", "abs", "negate", "clamp",
    )]
    + [f"arith.{name}" for name in (
        "trunci", "extsi", "extui", "index_cast", "addi", "subi", "muli", "select", "cmpi",
        "andi", "ori", "xori", "remsi", "divsi", "floordivsi", "maxsi", "minsi",
    )]
)
_REPORTING_MODES = ("raise",)


def row_tile(rows: int, row_elements: int, element_bytes: int) -> int | None:
    """Rows per tile of an output of `rows` rows of `row_elements` elements
    of `element_bytes` bytes: the largest divisor of `rows` whose tile holds
    at most TILE_ELEMENTS (at least one row); None when the output is not
    worth splitting (under SPLIT_MIN_BYTES, or fewer than two rows)."""
    if rows < 2 or rows * row_elements * element_bytes < SPLIT_MIN_BYTES:
        return None
    fitting = max(1, TILE_ELEMENTS // max(row_elements, 1))
    return max(d for d in range(1, min(rows, fitting) + 1) if rows % d == 0)


def splits_rows(plan: gather_plan.GatherPlan) -> bool:
    """Whether a gather may be cut into tiles of rows: not when it runs in
    column tiles (`x[i, :, j]`), whose every tile reads the input lines
    that all rows share while they are in cache; tiles of rows would read
    them once per tile."""
    return not isinstance(plan.strategy, gather_plan.ColumnTiles)


def _row_keeping_view(value: ir.Value) -> ir.Value | None:
    """The source of `value` when it is a static view that keeps dim 0 (the
    same size on both sides: row r of one is row r of the other)."""
    op = defining_op(value)
    if op is None or op.name not in VIEW_OPS:
        return None
    source = op.operands[0]
    a, b = static_shape_of(source), static_shape_of(value)
    if not a or not b or a[0] != b[0]:
        return None
    return source


def _by_rows(operand: ir.Value, result: ir.Value) -> bool:
    """Whether an elementwise op reads `operand` by the rows of `result`
    (same rank, same dim 0), rather than broadcast (dim 0 of size 1, or
    tosa.mul's rank-1 shift)."""
    a, b = static_shape_of(operand), static_shape_of(result)
    return len(a) == len(b) and a[0] == b[0]


def _row_local(op, rows: int) -> bool:
    """Whether `op` computes each row of its result from the same row of
    the operands it reads by rows, the others broadcast (dim 0 of size 1):
    an elementwise op of one static result whose dim 0 is `rows`."""
    if op.name not in _ELEMENTWISE or len(op.results) != 1 or len(op.regions):
        return False
    result = static_shape_of(op.results[0])
    if not result or result[0] != rows:
        return False
    shapes = [static_shape_of(v) for v in op.operands]
    return all(shape and (shape[0] == 1 or _by_rows(v, op.results[0])) for v, shape in zip(op.operands, shapes))


def _element_bytes(value: ir.Value) -> int:
    """Bytes per element as stored (i1 in a byte; complex as two floats)."""
    element = ir.RankedTensorType(value.type).element_type
    if isinstance(element, ir.ComplexType):
        return 2 * _element_bytes_of(element.element_type)
    return _element_bytes_of(element)


def _element_bytes_of(element: ir.Type) -> int:
    width = element.width if isinstance(element, (ir.IntegerType, ir.FloatType)) else 64
    return max(width // 8, 1)


def _attributes(op) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def _static(value: ir.Value) -> list[int] | None:
    shape = static_shape_of(value)
    return shape if shape else None


class _Split:
    """What the rewrite of one function needs: the gather, the views from
    it to the result, the destination and how each operand is sliced."""

    def __init__(self, function, checked: bool):
        self.function = function
        self.checked = checked

    def match(self) -> bool:
        block = self.function.regions[0].blocks[0]
        out = block.arguments[len(block.arguments) - 1]
        if len(list(out.uses)) != 1:
            return False
        self.out = out
        # The destination, or a dim-0-keeping view of it (the gather's shape
        # when the result is a view of the gather: gmx-destination-passing).
        user = next(iter(out.uses)).owner
        self.destination_views = []
        while user.name in VIEW_OPS and _row_keeping_view(user.results[0]) is not None:
            if len(list(user.results[0].uses)) != 1:
                return False
            self.destination_views.append(user)
            user = next(iter(user.results[0].uses)).owner
        self.materialize = user
        if self.materialize.name != "bufferization.materialize_in_destination" or self.materialize.parent != self.function:
            return False
        views = []
        value = self.materialize.operands[0]
        while (source := _row_keeping_view(value)) is not None:
            views.append(value)
            value = source
        gather = defining_op(value)
        if gather is None or gather.name != OP_NAME:
            return False
        self.gather, self.views = gather, views[::-1]
        shapes = [_static(v) for v in (*gather.operands, gather.results[0])]
        if None in shapes:
            return False
        self.input_shape, self.indices_shape, self.output_shape = shapes
        if not splits_rows(self._plan()):
            return False
        rows = self.output_shape[0]
        self.tile = row_tile(rows, math.prod(self.output_shape[1:]), _element_bytes(gather.results[0]))
        if self.tile is None:
            return False
        return self._operands_sliceable(rows)

    def _plan(self) -> gather_plan.GatherPlan:
        """How the whole gather would be lowered on one thread."""
        axes = list(ir.DenseI64ArrayAttr(self.gather.attributes["axes"]))
        bits = 8 * _element_bytes(self.gather.results[0])
        return gather_plan.plan_gather(
            self.input_shape, self.indices_shape, axes, element_bits=bits, checked=self.checked
        )

    def _operands_sliceable(self, rows: int) -> bool:
        """Whether each operand is read by rows (sliced with the tile) or
        whole, and whether that is exact. The indices' dim 0 is their
        logical dim 0 (only the last dim folds coordinates, and a rank-1
        gather has one coordinate)."""
        axes = list(ir.DenseI64ArrayAttr(self.gather.attributes["axes"]))
        self.slice_indices = self.indices_shape[0] == rows
        self.slice_input = 0 not in axes and self.input_shape[0] == rows
        if not self.slice_indices and self.checked and self._reports_indices():
            return False  # each tile would check, and report, the same indices
        return True

    def _reports_indices(self) -> bool:
        if "mode" not in self.gather.attributes:
            return True
        return ir.StringAttr(self.gather.attributes["mode"]).value in _REPORTING_MODES

    # -- the rewrite ------------------------------------------------------------
    def rewrite(self) -> None:
        function, block = self.function, self.function.regions[0].blocks[0]
        index = ir.IndexType.get()
        first = block.add_argument(index, function.location)
        last = block.add_argument(index, function.location)
        with ir.InsertionPoint(self.materialize), self.gather.location:
            step = arith.constant(index, self.tile)
            loop = scf.ForOp(first, last, step, [self.out])
            with ir.InsertionPoint(loop.body):
                scf.YieldOp([self._tile(loop.induction_variable, loop.inner_iter_args[0])])
        # The loop writes the destination in place: it is the result (viewed
        # as the materialization's destination was).
        with ir.InsertionPoint(self.materialize), self.gather.location:
            written = emit_view(loop.results[0], static_shape_of(self.materialize.results[0]))
        self.materialize.results[0].replace_all_uses_with(written)
        self.materialize.erase()
        for view in reversed(self.destination_views):
            if not list(view.results[0].uses):
                view.erase()
        self._erase_replaced()
        ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        function.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([*ftype.inputs, index, index], ftype.results)
        )
        if "arg_attrs" in function.attributes:
            old = list(ir.ArrayAttr(function.attributes["arg_attrs"]))
            function.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get({})] * 2)
        function.attributes[ROW_RANGES_ATTR] = ir.DenseI64ArrayAttr.get([self.output_shape[0], self.tile])

    def _tile(self, row: ir.Value, rows: ir.Value) -> ir.Value:
        """`rows` with the tile's gather written into its rows, from `row` on."""
        input, indices = self.gather.operands
        replayed: dict = {}
        input = self._rows_of(input, row, replayed) if self.slice_input else input
        indices = self._rows_of(indices, row, replayed) if self.slice_indices else indices
        shape = [self.tile, *self.output_shape[1:]]
        element = ir.RankedTensorType(self.gather.results[0].type).element_type
        attributes = _attributes(self.gather)
        gathered = ir.Operation.create(
            OP_NAME, results=[ir.RankedTensorType.get(shape, element)], operands=[input, indices], attributes=attributes
        ).results[0]
        shape = list(ir.RankedTensorType(self.out.type).shape)
        for view in self.views:
            gathered = emit_view(gathered, [self.tile, *static_shape_of(view)[1:]])
        gathered = emit_view(gathered, [self.tile, *shape[1:]])  # as the destination
        rank = len(shape)
        dynamic = ir.ShapedType.get_dynamic_size()
        return tensor.insert_slice(
            gathered, rows, [row], [], [], [dynamic] + [0] * (rank - 1), [self.tile, *shape[1:]], [1] * rank
        )

    def _rows_of(self, value: ir.Value, row: ir.Value, replayed: dict | None = None) -> ir.Value:
        """Rows [row, row + tile) of `value` (its dim 0 has the output's
        rows): the elementwise ops and dim-0-keeping views it is made of
        replayed on the rows of their operands, down to values sliced with
        `tensor.extract_slice` (each once per tile: `replayed`)."""
        replayed = {} if replayed is None else replayed
        if value in replayed:
            return replayed[value]
        rows = static_shape_of(value)[0]
        op = defining_op(value)
        shape = [self.tile, *static_shape_of(value)[1:]]
        if op is not None and _row_local(op, rows):
            operands = [
                self._rows_of(v, row, replayed) if _by_rows(v, value) and rows > 1 else v for v in op.operands
            ]
            element = ir.RankedTensorType(value.type).element_type
            result = ir.Operation.create(
                op.name, results=[ir.RankedTensorType.get(shape, element)], operands=operands,
                attributes=_attributes(op),
            ).results[0]
        elif (source := _row_keeping_view(value)) is not None:
            result = emit_view(self._rows_of(source, row, replayed), shape)
        else:
            rank = len(shape)
            dynamic = ir.ShapedType.get_dynamic_size()
            result = tensor.extract_slice(
                ir.RankedTensorType.get(shape, ir.RankedTensorType(value.type).element_type), value, [row], [], [],
                [dynamic] + [0] * (rank - 1), shape, [1] * rank,
            )
        replayed[value] = result
        return result

    def _erase_replaced(self) -> None:
        """The whole gather and its views, now unused; what only they used
        goes with canonicalization."""
        for view in reversed(self.views):
            op = defining_op(view)
            if not list(view.uses):
                op.erase()
        if not list(self.gather.results[0].uses):
            self.gather.erase()


def split_rows(module, checked: bool = True) -> None:
    """Rewrite every function of one destination that can compute row ranges."""
    for op in list(module.regions[0].blocks[0].operations):
        function = op.operation
        if function.name != "func.func" or DESTINATIONS_ATTR not in function.attributes:
            continue
        if ROW_RANGES_ATTR in function.attributes:
            continue
        ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        if len(ftype.results) != 1:
            continue
        split = _Split(function, checked)
        if split.match():
            split.rewrite()


def _build(pm, options) -> None:
    add_python_pass(pm, lambda module: split_rows(module, options["checked"]), PASS)


PASS = PassInfo(
    argument="gmx-row-ranges",
    description="An entry with one destination computes a range of its result's rows, in tiles (for threads)",
    build=_build,
    options=(PassOption("checked", True, "the gathers are bounds-checked (each index is checked by one tile)"),),
)
