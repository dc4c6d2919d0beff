"""`--convert-gmx-to-linalg`: each gmx.gather_multiaxis becomes one gather
linalg.generic, preceded in checked mode by a scan of its indices.

Before:

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>}
           : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>

After (checked mode, the default; constants hoisted, names shortened):

    // 1. Are all indices in [-4, 4)? One branch-free and-reduction over the
    //    indices tensor (vectorisable): v + 4 <u 8.
    %ok = linalg.generic {iterator_types = ["reduction", "reduction"]}
            ins(%i : tensor<2x1xi64>) outs(%true : tensor<i1>) {...}
    %r = scf.if %ok -> tensor<2x3xf32> {
      // 2. The gather: the output's iteration space, indices through
      //    indexing maps, the input through tensor.extract; negative
      //    indices wrap once. No check, no branch: LLVM hoists the index
      //    load, turns rows into memcpy and vectorises element gathers.
      %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>,
                                            affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
             ins(%i : tensor<2x1xi64>) outs(%e : tensor<2x3xf32>) {
      ^bb0(%v: i64, %out: f32):
        %raw = arith.index_cast %v : i64 to index
        %idx = arith.select (%raw < 0), %raw + 4, %raw : index
        %d1 = linalg.index 1 : index
        %x = tensor.extract %x[%idx, %d1] : tensor<4x3xf32>
        linalg.yield %x : f32
      }
      scf.yield %g
    } else {
      // 3. Cold path: report every bad index through
      //    @gmx_index_error(site, axis, value, size), in index order, then
      //    gather with bad indices read as 0 (never outside the input).
      ...
    }

Scanning the indices rather than the output also reports bad indices that
no output element reads (an empty output).

Other shapes of the same generic, for speed on large static gathers:

- Elementwise gathers (the indices vary along the innermost output dim, so
  every output reads its own index) check while they gather: one generic,
  its loops all reductions, yields the gathered value (a bad index read as
  0) and and-reduces the in-range flag; the reporting scan runs only if the
  flag is false. Reading the indices once instead of twice is what matters
  there.
- Row tiles: the scan and the gather of TILE_ELEMENTS outputs at a time, so
  the gather re-reads the tile's indices from cache.
- Column tiles (x[i, :, j]): a loop over slices of a kept dim read far
  apart, so all rows share the input cache lines of one slice.

`checked=false` emits the gather alone (for benchmarks). Indices are read through indexing maps (coordinate
j of a tuple at `d_last * c + j`; broadcast dims at 0), or with
`tensor.extract` when a dynamic dim may broadcast at run time. Dynamic
shapes that turn out incompatible at run time are reported through
`@gmx_shape_error(site, dim, input_size, indices_size)` and the gather is
skipped (an `scf.if` guards it). `site` indexes the module attribute
`gmx.error_sites`, which holds each gather's source location (the
contract with the runtime is `runtime_abi`).
"""

from __future__ import annotations

import math

from gmx.dialect import GatherMultiaxisOp
from gmx.dialect.gmx import static_shape
from gmx.dialect.locations import location_text
from gmx.dialect.mlir import arith, func, ir, linalg, scf, tensor

from .gather_plan import Access, GatherPlan, plan_gather
from .runtime_abi import (
    INDEX_ERROR_FN,
    SHAPE_ERROR_EMPTY_AXIS,
    SHAPE_ERROR_FN,
    SHAPE_ERROR_NOT_DIVISIBLE,
    declare_error_callbacks,
    error_sites,
    set_error_sites,
)
from ..registry import PassInfo, PassOption, add_python_pass
from ..views import defining_op, emit_view, static_shape_of, strip_views

# Outputs per tile of a checked gather: its indices (up to 8 bytes each) and
# outputs stay in the L2 cache between the scan and the gather.
TILE_ELEMENTS = 1 << 15
# Column tiles (x[i, :, j]) are at least this many bytes wide: a few cache
# lines of output per row, while the input lines they read stay in L2.
COLUMN_TILE_BYTES = 128


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _i64(value: ir.Value) -> ir.Value:
    """An index or integer value as i64, for the error callbacks."""
    i64 = ir.IntegerType.get_signless(64)
    if isinstance(value.type, ir.IndexType):
        return arith.index_cast(i64, value)
    if ir.IntegerType(value.type).width < 64:
        return arith.extsi(i64, value)
    return value


def _dim(tensor_value: ir.Value, d: int) -> ir.Value:
    size = ir.RankedTensorType(tensor_value.type).shape[d]
    if ir.ShapedType.is_dynamic_size(size):
        return tensor.dim(tensor_value, _index(d))
    return _index(size)


def _cmp(predicate: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return arith.cmpi(getattr(arith.CmpIPredicate, predicate), lhs, rhs)


def _any(values: list[ir.Value]) -> ir.Value:
    result = values[0]
    for v in values[1:]:
        result = arith.ori(result, v)
    return result


def _all(values: list[ir.Value]) -> ir.Value:
    result = values[0]
    for v in values[1:]:
        result = arith.andi(result, v)
    return result


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


_NARROWING = ("tosa.cast", "arith.trunci")


def _read_through_narrowing(indices: ir.Value) -> tuple[ir.Value, ir.Type | None]:
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


def _element_bits(element_type: ir.Type) -> int:
    """Bit width of an int or float element type (32 if it has none)."""
    if isinstance(element_type, (ir.IntegerType, ir.FloatType)):
        return element_type.width
    return 32


def _call_on_failure(ok: ir.Value, callee: str, args: list[ir.Value]) -> None:
    """`scf.if !ok { func.call @callee(args) }`, args converted to i64."""
    args = [_i64(a) for a in args]
    true = arith.constant(ir.IntegerType.get_signless(1), 1)
    failed = arith.xori(ok, true)
    if_op = scf.IfOp(failed)
    with ir.InsertionPoint(if_op.then_block):
        func.CallOp([], callee, args)
        scf.YieldOp([])


class GatherLowering:
    """Builds the IR of one gather at the current insertion point."""

    def __init__(self, op: GatherMultiaxisOp, site: int, checked: bool):
        self.input = op.input
        # Indices narrowed by a cast (torch-mlir's i64 -> i32 for tosa.gather)
        # are read wide and truncated where read: no pass over them first.
        self.indices, self.narrow_type = _read_through_narrowing(op.indices)
        self.result_type = ir.RankedTensorType(op.output.type)
        self.axes = op.axes_list
        self.site = _index(site)
        self.checked = checked
        self.plan: GatherPlan = plan_gather(
            static_shape(self.input.type), static_shape(self.indices.type), self.axes
        )
        self.rank = self.plan.rank
        self.input_sizes = [_dim(self.input, d) for d in range(self.rank)]
        self.logical_sizes = self._logical_sizes()
        self.output_sizes = [self._output_size(d) for d in range(self.rank)]
        self.column_tile = self._column_tile()

    # -- sizes -------------------------------------------------------------
    def _logical_sizes(self) -> list[ir.Value]:
        sizes = [_dim(self.indices, d) for d in range(self.rank)]
        c = self.plan.coordinate_size
        if sizes and c > 1:
            sizes[-1] = arith.divui(sizes[-1], _index(c))
        return sizes

    def _output_size(self, d: int) -> ir.Value:
        static = self.result_type.shape[d]
        if not ir.ShapedType.is_dynamic_size(static):
            return _index(static)
        if d in self.axes:
            return self.logical_sizes[d]
        input_is_one = _cmp("eq", self.input_sizes[d], _index(1))
        return arith.select(input_is_one, self.logical_sizes[d], self.input_sizes[d])

    # -- run-time shape checks --------------------------------------------
    def _shape_checks(self) -> list[ir.Value]:
        """Emit every run-time shape check; return their success flags."""
        flags = []
        one = _index(1)
        for d in self.plan.broadcast_checks:
            a, b = self.input_sizes[d], self.logical_sizes[d]
            ok = _any([_cmp("eq", a, b), _cmp("eq", a, one), _cmp("eq", b, one)])
            _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(d), a, b])
            flags.append(ok)
        if self.plan.divisibility_check:
            last = _dim(self.indices, self.rank - 1)
            c = _index(self.plan.coordinate_size)
            ok = _cmp("eq", arith.remui(last, c), _index(0))
            _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(SHAPE_ERROR_NOT_DIVISIBLE), last, c])
            flags.append(ok)
        if self.plan.nonempty_axis_checks:
            output_empty = _any([_cmp("eq", s, _index(0)) for s in self.output_sizes])
            for axis in self.plan.nonempty_axis_checks:
                size = self.input_sizes[axis]
                ok = arith.ori(_cmp("ne", size, _index(0)), output_empty)
                _call_on_failure(ok, SHAPE_ERROR_FN, [self.site, _index(SHAPE_ERROR_EMPTY_AXIS), _index(axis), size])
                flags.append(ok)
        return flags

    # -- the generic ---------------------------------------------------------
    def build(self) -> ir.Value:
        flags = self._shape_checks()
        if not flags:
            return self._checked_gather()
        guard = scf.IfOp(_all(flags), [self.result_type], has_else=True)
        with ir.InsertionPoint(guard.then_block):
            scf.YieldOp([self._checked_gather()])
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp([self._empty_output()])
        return guard.results[0]

    def _empty_output(self) -> ir.Value:
        sizes = [
            self.output_sizes[d] if ir.ShapedType.is_dynamic_size(size) else size
            for d, size in enumerate(self.result_type.shape)
        ]
        return tensor.empty(sizes, self.result_type.element_type)

    def _checked_gather(self) -> ir.Value:
        """The gather; in checked mode behind a scan of the indices, with the
        reporting, clamping gather as the cold path."""
        if not self.checked or not self.axes:  # without axes no index value is read
            return self._gather(self._empty_output())
        if self._reads_an_index_per_output():
            return self._flagged_gather()
        # Column tiles read the indices once per tile: scan them once, whole.
        rows = None if self.column_tile else self._rows_per_tile()
        if rows is None:
            return self._scanned_gather(self._empty_output(), self.indices, None)
        return self._tiled_gather(rows)

    def _scanned_gather(self, outs: ir.Value, indices: ir.Value, row_offset) -> ir.Value:
        """Scan `indices`; gather into `outs` without a check when all are
        in range, else report them and gather with bad indices read as 0."""
        valid = self._scan_indices(self._in_range, indices)
        branch = scf.IfOp(valid, [outs.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([self._gather(outs, indices, row_offset)])
        with ir.InsertionPoint(branch.else_block):
            self._scan_indices(self._report_out_of_range, indices)
            scf.YieldOp([self._generic(True, outs, indices, row_offset)])
        return branch.results[0]

    def _gather(self, outs: ir.Value, indices=None, row_offset=None) -> ir.Value:
        """The unchecked gather into `outs`: in column tiles when that keeps
        input lines in cache, else one generic."""
        if self.column_tile is None:
            return self._generic(False, outs, indices, row_offset)
        return self._column_tiled_gather(outs, *self.column_tile)

    # -- gathers that read an index per output: check while gathering ------------
    def _reads_an_index_per_output(self) -> bool:
        """Whether the indices vary along the innermost non-unit output dim,
        so each output reads its own index (elementwise gathers such as
        take_along_axis) and no row can be copied whole. A scan first would
        then read as many indices as the gather does. Static, non-empty
        outputs only: there every index is read by some output, so checking
        while gathering sees them all."""
        dim = self._innermost_wide_dim()
        return dim is not None and self.plan.indices_access[dim] is Access.ITER

    def _flagged_gather(self) -> ir.Value:
        """One generic gathers with bad indices read as 0 and and-reduces
        whether every index was in range (all its loops are reductions for
        the flag); only when one was not, the report scan runs."""
        gathered, valid = self._generic(True, flag=True)
        failed = arith.xori(valid, arith.constant(ir.IntegerType.get_signless(1), 1))
        report = scf.IfOp(failed)
        with ir.InsertionPoint(report.then_block):
            self._scan_indices(self._report_out_of_range, self.indices)
            scf.YieldOp([])
        return gathered

    # -- column tiles: strided reads along a kept dim -----------------------------
    def _column_tile(self) -> tuple[int, int] | None:
        """(dim, width) of column tiles, or None to gather in output order.

        When the innermost non-unit output dim d is kept from the input (not
        gathered, not broadcast) but gathered dims follow it in the input,
        as in x[i, :, j], consecutive outputs of a row read the input a cache
        line or more apart. In output order each row then touches one line
        per element and leaves it before the next row, which may read the
        same line, comes. Looping over tiles of d first lets all rows share
        the lines of one tile while they are in cache. Tiled: static shapes,
        indices broadcast along d (so every row of a tile reads the same
        columns), rows outside d, and a divisor of d as the width."""
        dim = self._innermost_wide_dim()
        if not self.axes or dim is None:
            return None
        shape = list(self.result_type.shape)
        input_shape = static_shape(self.input.type)
        kept = dim not in self.axes and self.plan.input_access[dim] is Access.ITER
        if not kept or self.plan.indices_access[dim] is not Access.ZERO or math.prod(shape[:dim]) == 1:
            return None
        min_width = max(1, COLUMN_TILE_BYTES * 8 // _element_bits(self.result_type.element_type))
        if math.prod(input_shape[dim + 1:]) < min_width or shape[dim] <= min_width:
            return None
        divisors = [w for w in range(min_width, shape[dim]) if shape[dim] % w == 0]
        return (dim, divisors[0]) if divisors else None

    def _column_tiled_gather(self, outs: ir.Value, dim: int, width: int) -> ir.Value:
        """A loop over tiles of `width` entries along output dim `dim`; input
        and output are sliced alike (the indices are broadcast along it)."""
        loop = scf.ForOp(_index(0), _index(self.result_type.shape[dim]), _index(width), [outs])
        with ir.InsertionPoint(loop.body):
            start = loop.induction_variable
            acc = loop.inner_iter_args[0]
            source = _slice(self.input, start, width, dim)
            tile = self._generic(False, _slice(acc, start, width, dim), source=source)
            scf.YieldOp([_insert(tile, acc, start, width, dim)])
        return loop.results[0]

    def _innermost_wide_dim(self) -> int | None:
        """The innermost output dim of size > 1, for a static non-empty
        gather (else None)."""
        shape = list(self.result_type.shape)
        if not self._static() or 0 in shape:
            return None
        wide = [d for d in range(self.rank) if shape[d] > 1]
        return wide[-1] if wide else None

    def _static(self) -> bool:
        types = (self.input.type, self.indices.type, self.result_type)
        return all(None not in static_shape(t) for t in types)

    # -- row tiles: scan and gather a block of output rows at a time -------------
    def _rows_per_tile(self) -> int | None:
        """Output rows (dim 0) per tile, or None to scan and gather whole.

        Scanning all indices and then gathering reads large indices twice
        from memory; a tile of TILE_ELEMENTS outputs keeps its indices in
        cache between the two. Tiled: static shapes, rank >= 2, a non-empty
        output larger than one tile, indices that run along dim 0 (not
        broadcast there), and a divisor of dim 0 as the tile height, so
        every tile has the same static shape."""
        shape = self.result_type.shape
        if not self._static() or self.rank < 2 or 0 in shape or self.plan.indices_access[0] is not Access.ITER:
            return None
        row = math.prod(shape[1:])
        if shape[0] * row <= TILE_ELEMENTS:
            return None
        fitting = max(1, TILE_ELEMENTS // row)
        return max(t for t in range(1, min(fitting, shape[0]) + 1) if shape[0] % t == 0)

    def _tiled_gather(self, rows: int) -> ir.Value:
        """A loop over tiles of `rows` output rows. The indices run along
        dim 0 (ITER access), so their dim 0 is the output's and is sliced
        the same way."""
        loop = scf.ForOp(_index(0), _index(self.result_type.shape[0]), _index(rows), [self._empty_output()])
        with ir.InsertionPoint(loop.body):
            start = loop.induction_variable
            acc = loop.inner_iter_args[0]
            outs = _slice(acc, start, rows)
            indices = _slice(self.indices, start, rows)
            tile = self._scanned_gather(outs, indices, start)
            scf.YieldOp([_insert(tile, acc, start, rows)])
        return loop.results[0]

    # -- the scan of the indices ---------------------------------------------
    def _scan_indices(self, step, indices: ir.Value) -> ir.Value:
        """An and-reduction over every index value: `step(acc, value, axis,
        size)` gives the new i1 accumulator. Coordinates of folded tuples
        (c > 1) are told apart by viewing the last dim as [L, c]."""
        c = self.plan.coordinate_size
        indices = indices if c == 1 else self._split_coordinates(indices)
        rank = ir.RankedTensorType(indices.type).rank
        i1 = ir.IntegerType.get_signless(1)
        true = arith.constant(i1, 1)
        init = linalg.fill(true, outs=[tensor.empty([], i1)])
        reduction = ir.Attribute.parse("#linalg.iterator_type<reduction>")
        maps = [ir.AffineMap.get_identity(rank), ir.AffineMap.get(rank, 0, [])]
        generic = linalg.GenericOp_(
            [indices], [init],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
            ir.ArrayAttr.get([reduction] * rank),
        )
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            value, acc = block.arguments
            value = self._narrowed(value)
            axis, size = self._coordinate_axis(linalg.IndexOp(rank - 1).result if c > 1 else None)
            linalg.YieldOp([step(acc, value, axis, size)])
        return tensor.extract(generic.results[0], [])

    def _split_coordinates(self, indices: ir.Value) -> ir.Value:
        """The indices with the last dim viewed as [L, c] (no copy)."""
        c = self.plan.coordinate_size
        shape = list(ir.RankedTensorType(indices.type).shape)
        element = ir.RankedTensorType(indices.type).element_type
        last = shape[-1]
        logical = last if ir.ShapedType.is_dynamic_size(last) else last // c
        static = shape[:-1] + [logical, c]
        # Tiles slice dim 0 only: the last dim is the op's, L = logical_sizes[-1].
        sizes = [_dim(indices, d) for d in range(self.rank - 1)] + [self.logical_sizes[-1], _index(c)]
        dynamic = [v for v, n in zip(sizes, static) if ir.ShapedType.is_dynamic_size(n)]
        groups = [[d] for d in range(self.rank - 1)] + [[self.rank - 1, self.rank]]
        result = ir.RankedTensorType.get(static, element)
        return tensor.expand_shape(result, indices, groups, dynamic, static)

    def _coordinate_axis(self, position: ir.Value | None) -> tuple[ir.Value, ir.Value]:
        """(axis, input size along it) of the coordinate at `position` in its
        tuple (None: the only coordinate)."""
        axis, size = _index(self.axes[0]), self.input_sizes[self.axes[0]]
        for j in range(1, len(self.axes)):
            here = _cmp("eq", position, _index(j))
            axis = arith.select(here, _index(self.axes[j]), axis)
            size = arith.select(here, self.input_sizes[self.axes[j]], size)
        return axis, size

    @staticmethod
    def _in_range(acc, value, axis, size) -> ir.Value:
        """acc and (value in [-size, size)), branch-free: value + size <u 2 size."""
        i64 = ir.IntegerType.get_signless(64)
        v, n = _i64(value), arith.index_cast(i64, size)
        ok = _cmp("ult", arith.addi(v, n), arith.addi(n, n))
        return arith.andi(acc, ok)

    def _report_out_of_range(self, acc, value, axis, size) -> ir.Value:
        """Report a value outside [-size, size) (the cold path's scan)."""
        ok = self._in_range(arith.constant(ir.IntegerType.get_signless(1), 1), value, axis, size)
        _call_on_failure(ok, INDEX_ERROR_FN, [self.site, axis, value, size])
        return arith.andi(acc, ok)

    # -- the gather -------------------------------------------------------------
    def _generic(self, clamp: bool, outs=None, indices=None, row_offset=None, source=None, flag=False):
        """The gather generic over `outs` (default: a new output), reading
        `indices` (default: the op's) and `source` (default: the op's
        input); a row tile passes its first output row as `row_offset`.
        With `flag` (and `clamp`) it also and-reduces whether every index
        read was in range and returns (gathered, i1 flag)."""
        rank, c = self.rank, self.plan.coordinate_size
        outs = [self._empty_output() if outs is None else outs]
        indices = self.indices if indices is None else indices
        index_inputs = [indices] * len(self.axes) if self.plan.indices_by_map else []
        maps = [self._indices_map(j) for j in range(len(index_inputs))]
        maps.append(ir.AffineMap.get_identity(rank))
        iterator = "parallel"
        if flag:
            i1 = ir.IntegerType.get_signless(1)
            outs.append(linalg.fill(arith.constant(i1, 1), outs=[tensor.empty([], i1)]))
            maps.append(ir.AffineMap.get(rank, 0, []))
            iterator = "reduction"
        generic = linalg.GenericOp_(
            index_inputs,
            outs,
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
            ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{iterator}>")] * rank),
        )
        block = generic.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            raw_values = list(block.arguments)[: len(index_inputs)] or self._extract_indices(c)
            raw_values = [self._narrowed(v) for v in raw_values]
            positions, valid = self._input_positions(raw_values, clamp, row_offset)
            value = tensor.extract(self.input if source is None else source, positions)
            linalg.YieldOp([value, arith.andi(block.arguments[-1], valid)] if flag else [value])
        if flag:
            return generic.results[0], tensor.extract(generic.results[1], [])
        return generic.results[0]

    def _indices_map(self, j: int) -> ir.AffineMap:
        """Indexing map of coordinate j: broadcast dims at 0, last at d*c + j."""
        exprs = []
        for d, access in enumerate(self.plan.indices_access):
            expr = ir.AffineConstantExpr.get(0) if access is Access.ZERO else ir.AffineDimExpr.get(d)
            exprs.append(expr)
        last = self.rank - 1
        exprs[last] = exprs[last] * self.plan.coordinate_size + j
        return ir.AffineMap.get(self.rank, 0, exprs)

    def _position(self, access: Access, d: int, size: ir.Value, row_offset=None) -> ir.Value:
        """Read position of dim d for an ITER/ZERO/RUNTIME access; inside a
        tile, output row 0 is row `row_offset` of the whole output."""
        if access is Access.ZERO:
            return _index(0)
        here = linalg.IndexOp(d).result
        if d == 0 and row_offset is not None:
            here = arith.addi(here, row_offset)
        if access is Access.ITER:
            return here
        return arith.select(_cmp("eq", size, _index(1)), _index(0), here)

    def _extract_indices(self, c: int) -> list[ir.Value]:
        """Read each coordinate with tensor.extract (used when a dim of the
        indices may broadcast at run time)."""
        base = [
            self._position(access, d, self.logical_sizes[d])
            for d, access in enumerate(self.plan.indices_access)
        ]
        last = base[-1]
        if c > 1:
            last = arith.muli(last, _index(c))
        values = []
        for j in range(len(self.axes)):
            column = arith.addi(last, _index(j)) if j else last
            values.append(tensor.extract(self.indices, base[:-1] + [column]))
        return values

    def _narrowed(self, value: ir.Value) -> ir.Value:
        """An index value as the op sees it (after a looked-through cast)."""
        return value if self.narrow_type is None else arith.trunci(self.narrow_type, value)

    def _input_positions(self, raw_values: list[ir.Value], clamp: bool, row_offset):
        """(read position in the input, i1: every index in range or None
        without `clamp`)."""
        wrapped = [self._wrapped_index(axis, v, clamp) for axis, v in zip(self.axes, raw_values)]
        gathered = {axis: position for axis, (position, _) in zip(self.axes, wrapped)}
        positions = [
            gathered[d]
            if d in gathered
            else self._position(self.plan.input_access[d], d, self.input_sizes[d], row_offset)
            for d in range(self.rank)
        ]
        return positions, (_all([ok for _, ok in wrapped]) if clamp else None)

    def _wrapped_index(self, axis: int, raw: ir.Value, clamp: bool):
        """(position, in range) of an index: a negative one wraps once; with
        `clamp`, one still outside [0, size) is read as 0 (after, or while
        finding out, that it is out of range). Without, `in range` is None."""
        size = self.input_sizes[axis]
        value = arith.index_cast(ir.IndexType.get(), raw)
        zero = _index(0)
        wrapped = arith.select(_cmp("slt", value, zero), arith.addi(value, size), value)
        if not clamp:
            return wrapped, None
        in_range = _cmp("ult", wrapped, size)
        return arith.select(in_range, wrapped, zero), in_range


# -- the pass -----------------------------------------------------------------


def _gather_ops(module) -> list:
    ops = []

    def collect(op):
        if op.name == GatherMultiaxisOp.OPERATION_NAME:
            ops.append(op.opview)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return ops


def convert_gmx_to_linalg(module, checked: bool = True) -> None:
    """Replace every gmx.gather_multiaxis in `module` by its linalg form.

    A plain walk rather than `rewrite.apply_partial_conversion`: in this
    bindings build the Python dialect-conversion driver crashes (SIGSEGV) on
    IRDL-defined ops, even for a pattern that only replaces the op by its
    operand, so the ops are rewritten in place.
    """
    sites = error_sites(module)
    lowered_any = False
    for op in _gather_ops(module):
        if ir.RankedTensorType(op.input.type).rank == 0:
            value = op.input  # a rank-0 gather is its input
        else:
            with ir.InsertionPoint(op), op.location:
                value = GatherLowering(op, len(sites), checked).build()
            sites.append(location_text(op.location))
            lowered_any = True
        op.output.replace_all_uses_with(value)
        op.erase()
    if lowered_any:
        set_error_sites(module, sites)
        declare_error_callbacks(module)


def _build(pm, options) -> None:
    add_python_pass(pm, lambda module: convert_gmx_to_linalg(module, options["checked"]), PASS)


PASS = PassInfo(
    argument="convert-gmx-to-linalg",
    description="Lower every gmx.gather_multiaxis to a gather linalg.generic "
    "(checked: behind a scan of its indices, or and-reducing their validity as it gathers)",
    build=_build,
    options=(
        PassOption(
            "checked",
            True,
            "report indices outside their axis at run time (false: no check, for benchmarks)",
        ),
    ),
)
