"""Checked gathers for IREE: run-time errors as results of the entry.

IREE runs a module's linalg in dispatches on a device, which cannot call
back into the host as the engine's compiled code does (`runtime_abi`'s
callbacks). So, for IREE, the entry returns what went wrong as extra
results after its own, and `gmx.runtime.reports` raises from them the
same error the engine raises.

`add_index_reports` (gmx level, before convert-gmx-to-linalg), for each
checked ("raise") gather in the entry's body:

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>}
           : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>

becomes the same gather in "fill" mode with fill value 0 (an index outside
its axis reads nothing, as the engine's cold path reads nothing outside the
input; every result is the engine's whenever no error is raised), then one
reduction over the indices (`INDEX_REPORT`: how many are out of range, the
row-major position, value and axis size of the first, and how many elements
the output has):

    %r = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, fill_value = 0.0 : f32, mode = "fill"} ...
    %count, %first, %value, %size, %elements = linalg.generic
           {iterator_types = ["reduction", "reduction"]} ins(%i) outs(...)

`shape_reports` (after convert-gmx-to-linalg): each run-time shape check's
`scf.if %failed { func.call @gmx_shape_error(%site, %dim, %a, %b) }`
becomes `tensor.from_elements(%failed, %site, %dim, %a, %b)`
(`SHAPE_REPORT`). `return_reports` appends the reports to the entry's
results. Only gathers in the entry's own body can report (`inline` runs
first); one nested in a region is a located error.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect import read_mode
from gmx.dialect.modes import FILL_VALUE_ATTR, MODE_ATTR, Mode
from gmx.dialect.mlir import arith, func, ir, linalg, tensor

from .convert_gmx_to_linalg import _gather_ops
from .folding import Constants, Folded, Folder
from .runtime_abi import ERROR_CALLBACKS, SHAPE_ERROR_FN, error_sites
from ..registry import PassFailed

# The values of one gather's index report, in result order (rank-0 i64 each).
INDEX_REPORT = ("count", "first", "value", "size", "elements")
# The values of one shape check's report (one tensor<5xi64>).
SHAPE_REPORT = ("failed", "site", "dim", "input_size", "indices_size")
_NO_POSITION = (1 << 63) - 1


@dataclass(frozen=True)
class IndexReport:
    """A checked gather's report: its site and axes (a bad index's axis is
    `axes[first % len(axes)]`)."""

    site: int
    axes: tuple[int, ...]


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def _zero(element_type: ir.Type) -> ir.Attribute | None:
    if isinstance(element_type, ir.IntegerType):
        return ir.IntegerAttr.get(element_type, 0)
    if isinstance(element_type, ir.FloatType):
        return ir.FloatAttr.get(element_type, 0.0)
    return None


def _dim(fold: Folder, value: ir.Value, d: int) -> Folded:
    """Size of dim d of a ranked tensor: an int when static."""
    size = ir.RankedTensorType(value.type).shape[d]
    if not ir.ShapedType.is_dynamic_size(size):
        return size
    return tensor.dim(value, fold.index(d))


def add_index_reports(module, entry) -> list[IndexReport]:
    """Give each checked gather of `entry` (a func.func of `module`) its
    report and make it read nothing out of range (module docstring); site
    numbers are those convert-gmx-to-linalg will give (its walk order, after
    the sites already recorded). Raises PassFailed (errors emitted) for a
    checked gather it cannot report."""
    reports, failed = [], 0
    site = len(error_sites(module))
    constants = Constants(entry.regions[0].blocks[0])
    for op in _gather_ops(module):  # convert-gmx-to-linalg's order: its site numbers
        if ir.RankedTensorType(op.input.type).rank == 0:
            continue  # no site: it is its input
        site, this = site + 1, site
        mode, _ = read_mode(op)
        if mode is not Mode.RAISE or not op.axes_list:
            continue
        zero = _zero(ir.RankedTensorType(op.input.type).element_type)
        why = _unreportable(op, entry, zero)
        if why:
            op.location.emit_error(f"{why}: the iree backend cannot bounds-check it (compile with checked=False)")
            failed += 1
            continue
        op.attributes[MODE_ATTR] = ir.StringAttr.get(Mode.FILL.value)
        op.attributes[FILL_VALUE_ATTR] = zero
        with ir.InsertionPoint.after(op), op.location:
            _build_index_report(op, Folder(constants))
        reports.append(IndexReport(this, tuple(op.axes_list)))
    if failed:
        raise PassFailed(f"{failed} gathers cannot be checked on iree")
    return reports


def _unreportable(op, entry, zero) -> str | None:
    if op.operation.parent != entry.operation:
        return f"this gather is inside '{op.operation.parent.name}', not in the body of the entry '@{_name(entry)}'"
    if zero is None:
        return f"the element type {ir.RankedTensorType(op.input.type).element_type} is not an integer or float"
    return None


def _name(function) -> str:
    return ir.StringAttr(function.attributes["sym_name"]).value


def _build_index_report(op, fold: Folder) -> None:
    """The report reduction over `op`'s indices, after `op`; its results are
    found again by `_report_values` (the reduction is marked)."""
    indices = op.indices
    rank = ir.RankedTensorType(indices.type).rank
    axes = op.axes_list
    c = len(axes)
    i64 = _i64()
    sizes = [fold.to_i64(_dim(fold, op.input, axis)) for axis in axes]
    dims = [_dim(fold, indices, d) for d in range(rank)]
    strides: list[Folded] = [1] * rank
    for d in reversed(range(rank - 1)):
        strides[d] = fold.mul(strides[d + 1], dims[d + 1])
    elements: Folded = 1
    for d in range(rank):
        elements = fold.mul(elements, _dim(fold, op.output, d))
    elements = fold.value(fold.to_i64(elements), i64)
    inits = [0, _NO_POSITION, 0, 0, 0]
    outs = [linalg.fill(fold.value(v, i64), outs=[tensor.empty([], i64)]) for v in inits]
    maps = [ir.AffineMap.get_identity(rank)] + [ir.AffineMap.get(rank, 0, [])] * len(outs)
    reduction = ir.Attribute.parse("#linalg.iterator_type<reduction>")
    generic = linalg.GenericOp_(
        [indices], outs,
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([reduction] * rank),
    )
    generic.operation.attributes[_REPORT_MARK] = ir.UnitAttr.get()
    block = generic.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value, count, first, bad_value, bad_size, _ = block.arguments
        value = fold.to_i64(value)
        position = [linalg.IndexOp(d).result for d in range(rank)]
        size = sizes[0]
        if c > 1:
            j = fold.remui(position[-1], c)
            for k in range(1, c):
                size = fold.select(fold.cmp("eq", j, k), sizes[k], size, i64)
        size = fold.value(size, i64)
        ok = fold.cmp("ult", fold.add(value, size), fold.add(size, size))
        flat: Folded = 0
        for d in range(rank):
            flat = fold.add(flat, fold.mul(position[d], strides[d]))
        flat = fold.value(fold.to_i64(flat), i64)
        bad = fold.not_(ok)
        take = fold.and_(bad, fold.cmp("slt", flat, first))
        linalg.YieldOp([
            fold.value(fold.add(count, fold.select(bad, 1, 0, i64)), i64),
            fold.value(fold.select(take, flat, first, i64), i64),
            fold.value(fold.select(take, value, bad_value, i64), i64),
            fold.value(fold.select(take, size, bad_size, i64), i64),
            elements,
        ])


_REPORT_MARK = "gmx.iree_report"


def shape_reports(module, entry) -> int:
    """Turn each run-time shape check of `entry` into a report (module
    docstring), marked for `return_reports`; drop the callbacks'
    declarations. Returns how many there are; PassFailed (errors emitted)
    for a check that is not in the entry's body."""
    calls, failed = [], 0

    def collect(op):
        if op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value in ERROR_CALLBACKS:
            calls.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    for call in calls:
        guard = call.parent
        static = guard == entry.operation  # a check that failed at compile time
        if ir.FlatSymbolRefAttr(call.attributes["callee"]).value != SHAPE_ERROR_FN or not (
            static or (guard.name == "scf.if" and guard.parent == entry.operation)
        ):
            call.location.emit_error("a run-time check the iree backend cannot report (it is not in the entry's body)")
            failed += 1
            continue
        anchor = call if static else guard
        with ir.InsertionPoint(anchor), call.location:
            i64 = _i64()
            flag = arith.ConstantOp(i64, 1).result if static else arith.extui(i64, guard.operands[0])
            report = tensor.from_elements(ir.RankedTensorType.get([len(SHAPE_REPORT)], i64), [flag, *call.operands])
            report.owner.attributes[_REPORT_MARK] = ir.UnitAttr.get()
        anchor.erase()
    if failed:
        raise PassFailed(f"{failed} run-time checks cannot be reported on iree")
    _drop_callback_declarations(module)
    return len(calls)


def _drop_callback_declarations(module) -> None:
    body = module.regions[0].blocks[0]
    for op in list(body.operations):
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value in ERROR_CALLBACKS:
            op.erase()


def return_reports(entry) -> list[str]:
    """Append every marked report of `entry` (in program order) to its
    results; return their kinds in that order: "index" (INDEX_REPORT's
    values, one result each) or "shape" (one result)."""
    block = entry.regions[0].blocks[0]
    values, kinds = [], []
    for op in block.operations:
        if _REPORT_MARK in op.attributes:
            del op.attributes[_REPORT_MARK]
            values.extend(op.results)
            kinds.append("index" if len(op.results) == len(INDEX_REPORT) else "shape")
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
