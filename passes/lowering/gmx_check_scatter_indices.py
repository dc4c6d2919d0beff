"""`--gmx-check-scatter-indices`: every `tosa.scatter` writes only when all
its indices are in range, and reports each bad one to the runtime as a
checked gather does.

Upstream's tosa-to-scf lowers a scatter to loops that `tensor.insert_slice`
each input row at its index, unchecked: a bad index writes outside the
output's buffer. TOSA requires every index in `[0, K)` (K: dim 1 of
`values_in`), and torch-mlir passes indices through unchanged (a negative
`index_put` index is not wrapped), so that range is what is checked.
`--gmx-lower-to-llvm` runs this pass in checked mode, before tosa-to-scf.

Before:

    %r = tosa.scatter %values, %indices, %input
           : (tensor<1x6x5xf32>, tensor<1x3xi32>, tensor<1x3x5xf32>) -> tensor<1x6x5xf32>

After (names shortened):

    // 1. Are all indices in [0, 6)? A branch-free and-reduction: v <u 6 (i64).
    %flag = linalg.generic {iterator_types = ["reduction", "reduction"]}
              ins(%indices : tensor<1x3xi32>) outs(%true : tensor<i1>) {...}
    %ok = tensor.extract %flag[] : tensor<i1>
    %r = scf.if %ok -> (tensor<1x6x5xf32>) {
      // 2. The scatter, as it was.
      %s = tosa.scatter %values, %indices, %input : ...
      scf.yield %s : tensor<1x6x5xf32>
    } else {
      // 3. Cold path: @gmx_index_error(site, 1, value, 6) for each bad
      //    index, in index order; nothing is written (`values` returned).
      ...
      scf.yield %values : tensor<1x6x5xf32>
    }

Indices narrowed by a cast (torch-mlir's i64 -> i32) are checked before
the cast, so an index that the truncation would bring into range is
reported too. The sites are `runtime_abi`'s, shared with
convert-gmx-to-linalg (the scatter's location joins `gmx.error_sites`),
and the reports the engine's `reporters.CALLBACKS`.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir, scf, tensor

from .folding import Constants, Folded, Folder
from .index_checks import value_check
from .index_reading import read_through_narrowing
from .ir_helpers import and_reduction, tensor_dim, true_flag
from .reporters import CALLBACKS, IndexValues, checked_in_scan
from .runtime_abi import number_error_sites
from ..registry import PassFailed, PassInfo, add_python_pass
from ..walking import ops_named

SCATTER = "tosa.scatter"
K_AXIS = 1  # the axis of `values_in` that TOSA's scatter indexes


def indexing(op: ir.Operation, fold: Folder) -> tuple[tuple[int, ...], list[Folded]]:
    """The dims of `values` a tosa.scatter's index values index (K_AXIS
    alone) and their sizes (i64): what its check and its IREE report
    (`iree_scatter_reports`) check each value against."""
    return (K_AXIS,), [fold.to_i64(tensor_dim(fold, op.operands[0], K_AXIS))]


def index_values(op: ir.Operation, indexing, indices: ir.Value, fold: Folder) -> tuple[tuple[int, ...], IndexValues]:
    """The dims a frontend scatter's coordinates index and the values of
    its `indices` (`N x k` for k > 1: the coordinate is the last dim), each
    in [0, size) of the dim its coordinate indexes (`indexing(op, fold)`:
    the dims and their sizes). Both scatter checks and their IREE reports
    check them so."""
    dims, sizes = indexing(op, fold)  # the sizes once, outside the scans
    return dims, IndexValues(indices, len(dims), value_check(fold, dims, sizes))


def guard_scatter(op: ir.Operation, site: int, fold: Folder) -> None:
    """Put `op` (a tosa.scatter) behind the scan of its indices, with the
    reporting scan on the other branch (IR in the module docstring).
    Builds at the current insertion point, which must be just before `op`."""
    values, indices, _ = op.operands
    scanned, _ = read_through_narrowing(indices)
    result_type = op.results[0].type
    guard_behind_scan(
        op, index_values(op, indexing, scanned, fold)[1], site,
        unchanged=lambda: values if values.type == result_type else tensor.cast(result_type, values),
        fold=fold,
    )


def guard_behind_scan(op: ir.Operation, values: IndexValues, site: int, *, unchanged, fold: Folder,
                      also: Folded = True, report_also=None) -> None:
    """Put `op` (one result) behind an and-reduction of the checks of
    `values` (and the i1 `also`, if not True); on the other branch,
    `report_also()` where `also` fails, the bad values' reports
    (`reporters.CALLBACKS`) and `unchanged()` for the result (the scatter
    writes nothing). Builds at the current insertion point, which must be
    just before `op`; both scatter checks share it."""
    result = op.results[0]
    init = true_flag(fold)
    flag = and_reduction(values.scanned, init, lambda acc, v: fold.and_(acc, checked_in_scan(values, v).ok), fold)
    branch = scf.IfOp(fold.and_(tensor.extract(flag, []), also), [result.type], has_else=True)
    with ir.InsertionPoint(branch.else_block):
        if also is not True:
            report_also()
        CALLBACKS.bad_indices(fold, site, values, init)
        scf.YieldOp([unchanged()])
    result.replace_all_uses_with(branch.results[0])
    with ir.InsertionPoint(branch.then_block):
        yield_op = scf.YieldOp([result])
    op.move_before(yield_op.operation)


def guard_each(module, ops: list[ir.Operation], guard) -> None:
    """`guard(op, site, fold)` before each op of `ops`, each op's location a
    new error site of `module` (`runtime_abi.number_error_sites`), the
    error callbacks declared."""
    constants: dict[ir.Block, Constants] = {}  # per function: its entry block's
    for op, site in zip(ops, number_error_sites(module, ops)):
        entry = Constants.entry_block(op)
        fold = Folder(constants.setdefault(entry, Constants(entry)))
        with ir.InsertionPoint(op), op.location:
            guard(op, site, fold)
    if ops:
        CALLBACKS.declare(module)


def _is_ranked(op: ir.Operation) -> bool:
    return all(isinstance(v.type, ir.RankedTensorType) for v in [*op.operands, *op.results])


def require_ranked(scatters: list[ir.Operation]) -> None:
    """Each scatter on an unranked tensor is a located error (PassFailed):
    without K and the indices' rank there is nothing to check against."""
    unranked = [op for op in scatters if not _is_ranked(op)]
    for op in unranked:
        op.location.emit_error("tosa.scatter on an unranked tensor cannot be bounds-checked")
    if unranked:
        raise PassFailed(f"{len(unranked)} unranked tosa.scatter")


def check_scatter_indices(module) -> None:
    """Guard every tosa.scatter in `module` (see the module docstring)."""
    scatters = ops_named(module, SCATTER)
    require_ranked(scatters)
    guard_each(module, scatters, guard_scatter)


PASS = PassInfo(
    argument="gmx-check-scatter-indices",
    description="Put every tosa.scatter behind a scan of its indices that reports each one "
    "outside [0, K) to the runtime (the scatter then writes nothing)",
    build=lambda pm, options: add_python_pass(pm, check_scatter_indices, PASS),
)
