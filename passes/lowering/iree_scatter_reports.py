"""Checked scatters for IREE: each reports its indices, as a gather does,
and writes only inside its output.

The engine checks a scatter's indices through callbacks and writes nothing
when one is bad (`--gmx-check-scatter-indices` for tosa.scatter,
`--gmx-check-tm-tensor-scatter` for torch-mlir's tm_tensor.scatter). On
IREE, `add_scatter_reports` gives each scatter in the entry's body a report
(`iree_reports.Tensors.bad_indices`, of the values the engine's check
scans: the same results as a gather's, so the runtime raises the engine's
IndexError from them) and makes it write at
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

import dataclasses

from gmx.dialect.mlir import ir, linalg, scf, tensor

from . import gmx_check_scatter_indices, gmx_check_tm_tensor_scatter
from .folding import Constants, Folder
from .gmx_check_scatter_indices import index_values
from .index_reading import read_through_narrowing
from .gmx_check_tm_tensor_scatter import rows_fit
from .iree_reports import IndexReport, Tensors
from .ir_helpers import empty_generic, tensor_dim
from .reporters import IndexValues, checked_in_scan
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


def add_scatter_reports(module, reporter: Tensors) -> list[IndexReport]:
    """Report and clamp each scatter of `reporter.entry` (module
    docstring); returns their IndexReports. PassFailed (errors emitted) for
    a scatter outside the entry's body."""
    entry = reporter.entry
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
            indices = op.operands[INDICES_OPERAND]
            wide, _ = read_through_narrowing(indices)
            axes, values = index_values(op, INDEXING[op.name], wide, fold)
            reporter.bad_indices(fold, site, values)
            op.operands[INDICES_OPERAND] = _clamped(fold, dataclasses.replace(values, indices=indices))
            if op.name == gmx_check_tm_tensor_scatter.SCATTER:
                _write_if_rows_fit(op, fold, site, reporter)
        reports.append(IndexReport(site, axes))
    return reports


def _write_if_rows_fit(op, fold: Folder, site: int, reporter: Tensors) -> None:
    """Where the tm_tensor.scatter `op`'s updates dims may not fit the
    original's (`rows_fit`: a dynamic dim), their shape report, and `op`
    behind an scf.if on their fit (the original otherwise). At the
    insertion point, just before `op`."""
    fits, size, room = rows_fit(op, fold)
    if fits is True:
        return
    reporter.shape_error(fold, site, fits, SHAPE_ERROR_SCATTER_ROWS, size, room)
    result, original = op.results[0], op.operands[2]
    branch = scf.IfOp(fits, [result.type], has_else=True)
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([original])
    result.replace_all_uses_with(branch.results[0])
    with ir.InsertionPoint(branch.then_block):
        kept = scf.YieldOp([result])
    op.move_before(kept.operation)


def _clamped(fold: Folder, values: IndexValues) -> ir.Value:
    """`values.indices` with each value its check finds bad made 0."""
    indices = values.indices
    indices_type = ir.RankedTensorType(indices.type)
    rank = indices_type.rank
    dims = [tensor_dim(fold, indices, d) for d in range(rank)]
    out = tensor.empty([fold.index(d) if not isinstance(d, int) else d for d in dims], indices_type.element_type)
    identity = ir.AffineMap.get_identity(rank)
    op = empty_generic([indices], [out], [identity, identity], ["parallel"] * rank)
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        value = block.arguments[0]
        ok = checked_in_scan(values, value).ok
        linalg.YieldOp([fold.value(fold.select(ok, value, 0, indices_type.element_type), indices_type.element_type)])
    return op.results[0]
