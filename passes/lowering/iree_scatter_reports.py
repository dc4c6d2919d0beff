"""Checked scatters for IREE: each reports its indices, as a gather does,
and writes only inside its output.

The engine checks a scatter's indices through callbacks and writes nothing
when one is bad (`--gmx-check-scatter-indices` for tosa.scatter,
`--gmx-check-tm-tensor-scatter` for torch-mlir's tm_tensor.scatter). On
IREE, `add_scatter_reports` gives each scatter in the entry's body a report
(`iree_reports.build_report`: the same results as a gather's, so the
runtime raises the engine's IndexError from them) and makes it write at
its indices clamped into range, so that a bad one writes inside the output
(the call then raises: the output is never returned):

    %r = tosa.scatter %values, %indices, %input : (tensor<1x6x5xf32>, tensor<1x3xi32>, tensor<1x3x5xf32>) -> ...
    ->
    %count, %first = linalg.generic {iterator_types = ["reduction", "reduction"]} ins(%wide_indices) ...
    %safe = linalg.generic ins(%indices) {  select(v <u 6, v, 0)  }
    %r = tosa.scatter %values, %safe, %input : ...

As the engine checks them: a value must lie in [0, size) of the dim it
indexes (dim 1 of `values` for tosa.scatter; dim `dimension_map[j]` of the
original for coordinate j of a tm_tensor.scatter), read before a narrowing
cast. Sites follow those already recorded, tosa.scatter's first, as the
engine's two checks number them. A tm_tensor.scatter whose updates dims
are written into original dims of which one is dynamic also reports
whether they fit (a shape report, `SHAPE_ERROR_SCATTER_ROWS`) and writes
only when they do.
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, ir, linalg, scf, tensor

from . import gmx_check_scatter_indices, gmx_check_tm_tensor_scatter
from .folding import Constants, Folded, Folder
from .index_checks import in_range
from .index_reading import read_through_narrowing
from .gmx_check_tm_tensor_scatter import rows_fit
from .iree_reports import IndexReport, _axis_size, build_report, shape_report
from .ir_helpers import empty_generic, tensor_dim
from .runtime_abi import SHAPE_ERROR_SCATTER_ROWS, number_error_sites
from ..registry import PassFailed
from ..walking import ops_named

# The scatters checked, in the order the engine's checks number their
# sites (--gmx-lower-to-llvm runs them so), each with what it indexes (the
# engine check's own `indexing`).
INDEXING = {
    gmx_check_scatter_indices.SCATTER: gmx_check_scatter_indices.indexing,
    gmx_check_tm_tensor_scatter.SCATTER: gmx_check_tm_tensor_scatter.indexing,
}
# Both take (values or updates, indices, input or original): the indices second.
INDICES_OPERAND = 1


def add_scatter_reports(module, entry, details: bool) -> list[IndexReport]:
    """Report and clamp each scatter of `entry` (module docstring); returns
    their IndexReports. PassFailed (errors emitted) for a scatter outside
    the entry's body."""
    scatters = [op for name in INDEXING for op in ops_named(module, name)]
    outside = [op for op in scatters if op.parent != entry.operation]
    for op in outside:
        op.location.emit_error(
            f"this scatter is inside '{op.parent.name}', not in the body of the entry: "
            "the iree backend cannot bounds-check it (compile with checked=False)"
        )
    if outside:
        raise PassFailed(f"{len(outside)} scatters cannot be checked on iree")
    constants = Constants(entry.regions[0].blocks[0])
    reports = []
    for op, site in zip(scatters, number_error_sites(module, scatters)):
        fold = Folder(constants)
        with ir.InsertionPoint(op), op.location:
            axes, sizes = INDEXING[op.name](op, fold)
            indices = op.operands[INDICES_OPERAND]
            wide, _ = read_through_narrowing(indices)
            build_report(fold, wide, None, sizes, 0, details, site, negatives_wrap=False)
            op.operands[INDICES_OPERAND] = _clamped(fold, indices, sizes)
            if op.name == gmx_check_tm_tensor_scatter.SCATTER:
                _write_if_rows_fit(op, fold, site)
        reports.append(IndexReport(site, axes))
    return reports


def _write_if_rows_fit(op, fold: Folder, site: int) -> None:
    """Where the tm_tensor.scatter `op`'s updates dims may not fit the
    original's (`rows_fit`: a dynamic dim), their shape report, and `op`
    behind an scf.if on their fit (the original otherwise). At the
    insertion point, just before `op`."""
    fits, size, room = rows_fit(op, fold)
    if fits is True:
        return
    i64 = ir.IntegerType.get_signless(64)
    failed = arith.extui(i64, fold.not_(fits))
    shape_report([failed, *(fold.value(v, i64) for v in (site, SHAPE_ERROR_SCATTER_ROWS, size, room))])
    result, original = op.results[0], op.operands[2]
    branch = scf.IfOp(fits, [result.type], has_else=True)
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([original])
    result.replace_all_uses_with(branch.results[0])
    with ir.InsertionPoint(branch.then_block):
        kept = scf.YieldOp([result])
    op.move_before(kept.operation)


def _clamped(fold: Folder, indices: ir.Value, sizes: list[Folded]) -> ir.Value:
    """`indices` with each value outside [0, size) of its coordinate made 0."""
    indices_type = ir.RankedTensorType(indices.type)
    rank = indices_type.rank
    dims = [tensor_dim(fold, indices, d) for d in range(rank)]
    out = tensor.empty([fold.index(d) if not isinstance(d, int) else d for d in dims], indices_type.element_type)
    identity = ir.AffineMap.get_identity(rank)
    op = empty_generic([indices], [out], [identity, identity], ["parallel"] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value = block.arguments[0]
        column = fold.to_i64(linalg.IndexOp(rank - 1).result) if len(sizes) > 1 else 0
        size = _axis_size(fold, sizes, fold.value(column, ir.IntegerType.get_signless(64)))
        ok = in_range(fold, value, size)
        linalg.YieldOp([fold.value(fold.select(ok, value, 0, indices_type.element_type), indices_type.element_type)])
    return op.results[0]
