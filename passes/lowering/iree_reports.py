"""Checked gathers for IREE: run-time errors as results of the entry.

IREE runs a module's linalg in dispatches on a device, which cannot call
back into the host as the engine's compiled code does (`runtime_abi`'s
callbacks, `reporters.CALLBACKS`). So, for IREE, the entry returns what
went wrong as extra results after its own, and `gmx.runtime.reports`
raises from them the same error the engine raises: `Tensors` is the
`reporters.Reporter` that renders every check's report so.

`add_index_reports` (gmx level, before convert-gmx-to-linalg), for each
checked ("raise") gather in the entry's body (and each checked scatter,
which keeps its mode: `iree_scatter` writes a bad index inside its
result):

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>}
           : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>

becomes the same gather in "fill" mode with fill value 0 (an index outside
its axis reads nothing, as the engine's cold path reads nothing outside the
input; every result is the engine's whenever no error is raised), then its
report over the indices (`Tensors.bad_indices`, `INDEX_REPORT`: how many are out of range, the
row-major position, value and axis size of the first, and how many elements
the output has), five rank-0 i64 tensors:

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, fill_value = 0.0 : f32, mode = "fill"} ...
    %count, %first, %value, %size, %elements = linalg.generic
           {iterator_types = ["reduction", "reduction"]} ins(%i) outs(...)

That is one reduction for up to 2 REPORT_TILE_MIN indices; more are scanned
in tiles (`report_tiles`), a count and a first position per tile in
parallel, then the tiles combined and the first bad value read again:

    %t = tensor.expand_shape (tensor.collapse_shape %i) -> tensor<64x65536xi64>
    %counts, %firsts = linalg.generic {iterator_types = ["parallel", "reduction"]} ins(%t) ...
    %count, %first = linalg.generic {iterator_types = ["reduction"]} ins(%counts, %firsts) ...
    %count, %first, %value, %size, %elements = linalg.generic {iterator_types = []} ins(%count, %first) ...

Indices narrowed by a cast are read wide and truncated where read, as the
gather reads them. Unchecked, `read_nothing_outside` makes each "raise"
gather a "fill" one with no report.

Each run-time shape check (convert-gmx-to-linalg's, given `Tensors` as
its reporter; a tm_tensor.scatter's rows, `iree_scatter_reports`) is,
where the engine calls `@gmx_shape_error(%site, %dim, %a, %b)` unless
it holds (`Tensors.shape_error`):

    %report = tensor.from_elements %failed, %site, %dim, %a, %b : tensor<5xi64>

(`SHAPE_REPORT`, `%failed` the failed check as an i64). `return_reports`
appends the reports to the entry's results. Only gathers in the entry's
own body can report (`inline` runs first); one nested in a region is a
located error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gmx.dialect import GatherMultiaxisOp, read_mode
from gmx.dialect.gmx import static_shape
from gmx.dialect.modes import FILL_VALUE_ATTR, MODE_ATTR, Mode
from gmx.dialect.shapes import infer_output_shape
from gmx.dialect.mlir import arith, func, ir, linalg, tensor

from .convert_gmx_to_linalg import gmx_ops, takes_a_site
from .folding import Constants, Folded, Folder
from .gather_plan import checks_index_values
from .index_checks import coordinate_at, empty_axis_ok, value_check
from .index_reading import read_through_narrowing
from .ir_helpers import empty_generic, tensor_dim
from .reporters import IndexValues, Reporter
from .runtime_abi import SHAPE_ERROR_EMPTY_AXIS, next_error_sites
from ..registry import PassFailed

# The values of one gather's index report, in result order (rank-0 i64 each):
# in full (`details`), or its count and first position alone, the rest read
# again when the count is not 0 (the runtime's fast path).
INDEX_REPORT = ("count", "first", "value", "size", "elements")
INDEX_COUNTS = INDEX_REPORT[:2]
INDEX_KIND, SHAPE_KIND = "index", "shape"  # the kinds of report (`return_reports`)
# The values of one shape check's report (one tensor<5xi64>).
SHAPE_REPORT = ("failed", "site", "dim", "input_size", "indices_size")
_NO_POSITION = (1 << 63) - 1
# A report over many indices is reduced in tiles (`report_tiles`): at most
# this many, of at least this many values each.
REPORT_TILES = 256
REPORT_TILE_MIN = 65536


# Decisions on ints alone (the runtime's reading of a report): builds nothing.
_STATIC = Folder(None)


@dataclass(frozen=True)
class IndexReport:
    """A checked gather's or scatter's report: its site and axes."""

    site: int
    axes: tuple[int, ...]

    def axis_at(self, position: int) -> int:
        """The axis the index value at row-major `position` of the indices
        indexes (`index_checks.coordinate_at`, as the scan chose its size)."""
        return self.axes[coordinate_at(_STATIC, position, len(self.axes))]

    def error(self, first: int, value: int, size: int, elements: int) -> tuple[bool, tuple[int, int, int, int]]:
        """What a full report (INDEX_REPORT) that counts bad values raises, as
        the engine would: (True, a shape error's operands) where the first
        bad value's axis is empty under an output with elements (the
        engine's `index_checks.empty_axis_ok`), else (False, the first bad
        value's index error's: site, axis, value, size)."""
        axis = self.axis_at(first)
        if not empty_axis_ok(_STATIC, size, elements == 0):
            return True, (self.site, SHAPE_ERROR_EMPTY_AXIS, axis, size)
        return False, (self.site, axis, value, size)


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _zero(element_type: ir.Type) -> ir.Attribute | None:
    if isinstance(element_type, ir.IntegerType):
        return ir.IntegerAttr.get(element_type, 0)
    if isinstance(element_type, ir.FloatType):
        return ir.FloatAttr.get(element_type, 0.0)
    return None


class Tensors(Reporter):
    """IREE's reports: tensors `return_reports` appends to the results of
    `entry` (module docstring); an index report in full with `details`
    (INDEX_REPORT), else its count and first position (INDEX_COUNTS)."""

    def __init__(self, entry, details: bool = True):
        self.entry, self.details, self.unreported = entry, details, 0

    def shape_error(self, fold: Folder, site: int, ok: Folded, what: Folded, a: Folded, b: Folded) -> Folded:
        """A SHAPE_REPORT at the insertion point (a located error where that
        is not the entry's body: `raise_unreported`); returns `ok`."""
        if ok is True:
            return ok
        if ir.InsertionPoint.current.block.owner != self.entry:
            ir.Location.current.emit_error("a run-time check the iree backend cannot report (it is not in the entry's body)")
            self.unreported += 1
            return ok
        values = [fold.value(fold.to_i64(x), _i64()) for x in (site, what, a, b)]
        failed = fold.not_(ok)
        flag = fold.value(1, _i64()) if failed is True else arith.extui(_i64(), failed)
        report = tensor.from_elements(ir.RankedTensorType.get([len(SHAPE_REPORT)], _i64()), [flag, *values])
        report.owner.attributes[_REPORT_MARK] = ir.StringAttr.get(SHAPE_KIND)
        return ok

    def bad_indices(self, fold: Folder, site: int, values: IndexValues) -> None:
        """A scan of the values for the count of bad ones and the row-major
        position of the first (in tiles, then combined, where
        `report_tiles` says so); with `details`, then one read of that value
        and its axis size. The last op is marked for `return_reports`, with
        the error site the report is of."""
        indices = values.indices
        shape = ir.RankedTensorType(indices.type).shape
        static = all(not ir.ShapedType.is_dynamic_size(n) for n in shape)
        tiles = report_tiles(math.prod(shape) if static else None)
        if tiles is None:
            count, first = _scan(fold, indices, values, []).results
        else:
            per_tile = _scan(fold, _tiled_view(indices, tiles), values, [tiles]).results
            count, first = _combine(fold, per_tile).results
        elements = fold.value(fold.to_i64(values.elements), _i64())
        report = _first_bad(fold, values, count, first, elements) if self.details else first.owner
        report.operation.attributes[_REPORT_MARK] = ir.StringAttr.get(INDEX_KIND)
        report.operation.attributes[_SITE_MARK] = ir.IntegerAttr.get(_i64(), site)

    def raise_unreported(self) -> None:
        """PassFailed (errors emitted) if a shape check could not be reported."""
        if self.unreported:
            raise PassFailed(f"{self.unreported} run-time checks cannot be reported on iree")


def add_index_reports(module, reporter: Tensors) -> list[IndexReport]:
    """Give each checked gather of `reporter.entry` (a func.func of
    `module`) its report and make it read nothing out of range (module
    docstring); site numbers are those convert-gmx-to-linalg will give (its
    walk order, after the sites already recorded). Raises PassFailed
    (errors emitted) for a checked gather it cannot report."""
    reports, failed, entry = [], 0, reporter.entry
    constants = Constants(entry.regions[0].blocks[0])
    sited = [op for op in gmx_ops(module) if takes_a_site(op)]  # the others are their input
    for op, this in zip(sited, next_error_sites(module, len(sited))):  # convert-gmx-to-linalg's numbers
        mode, _ = read_mode(op)
        if not checks_index_values(mode, op.axes_list):  # the engine's decision
            continue
        gather = op.operation.name == GatherMultiaxisOp.OPERATION_NAME
        zero = _zero(ir.RankedTensorType(op.input.type).element_type)
        why = _unreportable(op, entry, zero if gather else True)
        if why:
            op.location.emit_error(f"{why}: the iree backend cannot bounds-check it (compile with checked=False)")
            failed += 1
            continue
        if gather:  # a scatter writes a bad index inside its result (`iree_scatter`)
            _read_as_fill(op, zero)
        with ir.InsertionPoint.after(op), op.location:
            fold = Folder(constants)
            reporter.bad_indices(fold, this, _index_values(op, fold))
        reports.append(IndexReport(this, tuple(op.axes_list)))
    if failed:
        raise PassFailed(f"{failed} gathers or scatters cannot be checked on iree")
    return reports


def read_nothing_outside(module) -> None:
    """Unchecked, for IREE: each "raise" gather of an integer or float
    element type becomes the same gather in "fill" mode, fill value 0, as a
    checked one does. An index outside its axis is undefined behaviour
    unchecked, so this is one of its meanings, and the one that reads
    nothing outside the input. It is also the form IREE 3.13 compiles to
    contiguous row loads: it folds the dims of a plain "raise" generic
    into one and loads element by element (embedding: 4.3 ms against
    1.25 ms in "fill" mode, 2 cores)."""
    for op in gmx_ops(module, GatherMultiaxisOp.OPERATION_NAME):
        mode, _ = read_mode(op)
        zero = _zero(ir.RankedTensorType(op.input.type).element_type)
        if checks_index_values(mode, op.axes_list) and zero is not None:
            _read_as_fill(op, zero)


def _read_as_fill(op, zero: ir.Attribute) -> None:
    op.attributes[MODE_ATTR] = ir.StringAttr.get(Mode.FILL.value)
    op.attributes[FILL_VALUE_ATTR] = zero


def _unreportable(op, entry, zero) -> str | None:
    if op.operation.parent != entry.operation:
        kind = "gather" if op.operation.name == GatherMultiaxisOp.OPERATION_NAME else "scatter"
        return f"this {kind} is inside '{op.operation.parent.name}', not in the body of the entry '@{_name(entry)}'"
    if zero is None:
        return f"the element type {ir.RankedTensorType(op.input.type).element_type} is not an integer or float"
    return None


def _name(function) -> str:
    return ir.StringAttr(function.attributes["sym_name"]).value


def report_tiles(elements: int | None) -> int | None:
    """How many tiles the scan of `elements` index values is cut into (each
    scanned on its own, in parallel, then the tiles' counts added and first
    positions taken), or None for one scan: a dynamic or small count, or
    one with no divisor giving tiles of REPORT_TILE_MIN values or more.
    IREE runs a reduction to a scalar on one thread: 4M indices in one
    scan took 10 ms, twice the gather they check."""
    if elements is None:
        return None
    most = min(REPORT_TILES, elements // REPORT_TILE_MIN)
    return max((t for t in range(2, most + 1) if elements % t == 0), default=None)


def _index_values(op, fold: Folder) -> IndexValues:
    """The gmx op's indices as the op reads them (wide, truncated where
    read: `read_through_narrowing`, so no pass writes the truncated
    indices first), each on its axis, a negative value wrapping once."""
    indices, narrow_type = read_through_narrowing(op.indices)
    sizes = [fold.to_i64(tensor_dim(fold, op.input, axis)) for axis in op.axes_list]
    read = None if narrow_type is None else (lambda value: arith.trunci(narrow_type, value))
    check = value_check(fold, op.axes_list, sizes, read, negatives_wrap=True)
    return IndexValues(indices, len(sizes), check, elements=_output_elements(fold, op))


def _output_elements(fold: Folder, op) -> ir.Value:
    """How many elements the gather `op`'s output has, or the gather of a
    scatter's operands (its updates' positions, G: only static) (i64)."""
    if op.operation.name != GatherMultiaxisOp.OPERATION_NAME:
        shape = infer_output_shape(static_shape(op.input.type), static_shape(op.indices.type), op.axes_list)
        # A dynamic one has no lowering yet (convert-gmx-to-linalg refuses it, located).
        return fold.value(math.prod(1 if n is None else n for n in shape), _i64())
    elements: Folded = 1
    for d in range(ir.RankedTensorType(op.output.type).rank):
        elements = fold.mul(elements, tensor_dim(fold, op.output, d))
    return fold.value(fold.to_i64(elements), _i64())


def _position(fold: Folder, indices: ir.Value) -> ir.Value:
    """In a generic over `indices`' dims: the row-major position (i64)."""
    flat: Folded = 0
    for d, stride in enumerate(_strides(fold, indices)):
        flat = fold.add(flat, fold.mul(linalg.IndexOp(d).result, stride))
    return fold.value(fold.to_i64(flat), _i64())


def _tiled_view(indices: ir.Value, tiles: int) -> ir.Value:
    """The static `indices` as a (tiles, rest) tensor in row-major order."""
    indices_type = ir.RankedTensorType(indices.type)
    count = math.prod(indices_type.shape)
    element = indices_type.element_type
    flat = indices
    if indices_type.rank != 1:
        flat = tensor.collapse_shape(ir.RankedTensorType.get([count], element), indices, [list(range(indices_type.rank))])
    shape = [tiles, count // tiles]
    return tensor.expand_shape(ir.RankedTensorType.get(shape, element), flat, [[0, 1]], [], shape)


def _filled(fold: Folder, values: list[int], shape: list[int]) -> list[ir.Value]:
    """A tensor of `shape` filled with each of `values` (i64)."""
    i64 = _i64()
    return [linalg.fill(fold.value(v, i64), outs=[tensor.empty(shape, i64)]) for v in values]


def _scan(fold: Folder, indices: ir.Value, values: IndexValues, tiles: list[int]) -> linalg.GenericOp_:
    """(count of bad values, row-major position of the first or
    _NO_POSITION) of `indices` (those of `values`, or a view of them):
    with `tiles` ([T]), of each row of the (T, rest) `indices` into
    tensors of T (rows in parallel), else of all of them into rank-0
    tensors. A value's position is its row-major position in the indices;
    its coordinate, position mod their number. Only a sum and a min: IREE
    vectorizes both."""
    rank = ir.RankedTensorType(indices.type).rank
    outs = _filled(fold, [0, _NO_POSITION], tiles)
    kept = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in range(len(tiles))])
    iterators = ["parallel"] * len(tiles) + ["reduction"] * (rank - len(tiles))
    generic = empty_generic([indices], outs, [ir.AffineMap.get_identity(rank), kept, kept], iterators)
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, count, first = block.arguments
        flat = _position(fold, indices)
        bad = fold.not_(values.check(value, coordinate_at(fold, flat, values.coordinates)).ok)
        linalg.YieldOp([
            fold.value(fold.add(count, fold.select(bad, 1, 0, _i64())), _i64()),
            fold.value(fold.minsi(first, fold.select(bad, flat, _NO_POSITION, _i64())), _i64()),
        ])
    return generic


def _strides(fold: Folder, indices: ir.Value) -> list[Folded]:
    """Row-major strides of `indices`, in elements."""
    rank = ir.RankedTensorType(indices.type).rank
    strides: list[Folded] = [1] * rank
    for d in reversed(range(rank - 1)):
        strides[d] = fold.mul(strides[d + 1], tensor_dim(fold, indices, d + 1))
    return strides


def _combine(fold: Folder, per_tile: list[ir.Value]) -> linalg.GenericOp_:
    """The tiles' counts added and first positions' min, as rank-0 tensors."""
    outs = _filled(fold, [0, _NO_POSITION], [])
    maps = [ir.AffineMap.get_identity(1)] * 2 + [ir.AffineMap.get(1, 0, [])] * 2
    generic = empty_generic(per_tile, outs, maps, ["reduction"])
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        count, first, total, least = block.arguments
        linalg.YieldOp([fold.value(fold.add(total, count), _i64()), fold.value(fold.minsi(least, first), _i64())])
    return generic


def _first_bad(fold: Folder, values: IndexValues, count: ir.Value, first: ir.Value,
               elements: ir.Value) -> linalg.GenericOp_:
    """The report (INDEX_REPORT, rank-0 tensors) from the scan's count and
    first position: the value there and its axis size read again (position
    0's when there is none: they are then not looked at)."""
    scalar = ir.AffineMap.get(0, 0, [])
    outs = _filled(fold, [0] * len(INDEX_REPORT), [])
    generic = empty_generic([count, first], outs, [scalar] * (2 + len(outs)), [])
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        bad, position = block.arguments[:2]
        position = fold.value(fold.select(fold.cmp("eq", position, _NO_POSITION), 0, position, _i64()), _i64())
        coordinates, rest = [], arith.index_cast(ir.IndexType.get(), position)
        for stride in _strides(fold, values.indices):
            coordinates.append(fold.index(fold.divui(rest, stride)))
            rest = fold.remui(rest, stride)
        value = tensor.extract(values.indices, coordinates)
        checked = values.check(value, coordinate_at(fold, position, values.coordinates))
        linalg.YieldOp([bad, position, *(fold.value(x, _i64()) for x in (checked.value, checked.size)), elements])
    return generic


_REPORT_MARK = "gmx.iree_report"
_SITE_MARK = "gmx.iree_report_site"


def return_reports(entry) -> list[tuple[str, int | None]]:
    """Append every marked report of `entry` (in program order) to its
    results; return their kinds in that order, each with its site for an
    index report: INDEX_KIND (INDEX_REPORT's or INDEX_COUNTS' values, one
    result each) or SHAPE_KIND (one result)."""
    block = entry.regions[0].blocks[0]
    values, kinds = [], []
    for op in block.operations:
        if _REPORT_MARK in op.attributes:
            site = ir.IntegerAttr(op.attributes[_SITE_MARK]).value if _SITE_MARK in op.attributes else None
            kinds.append((ir.StringAttr(op.attributes[_REPORT_MARK]).value, site))
            for mark in (_REPORT_MARK, _SITE_MARK):
                if mark in op.attributes:
                    del op.attributes[mark]
            values.extend(op.results)
    ftype = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
    types = [v.type for v in values]
    entry.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ftype.inputs, [*ftype.results, *types]))
    if "res_attrs" in entry.attributes:
        kept = list(ir.ArrayAttr(entry.attributes["res_attrs"]))
        entry.attributes["res_attrs"] = ir.ArrayAttr.get(kept + [ir.DictAttr.get({})] * len(values))
    returns = []
    for region_block in entry.regions[0].blocks:
        for op in region_block.operations:
            if op.name == "func.return":
                returns.append(op)
    for ret in returns:
        with ir.InsertionPoint(ret), ret.location:
            func.ReturnOp([*ret.operands, *values])
        ret.erase()
    return kinds
