"""`--gmx-check-tm-tensor-scatter`: every torch-mlir `tm_tensor.scatter`
(its linalg-on-tensors export of `scatter`, `index_put`, `index_add`)
writes only when all its indices are in range, and reports each bad one
to the runtime as a checked gather does (IndexError); what
--gmx-check-scatter-indices does for tosa.scatter. tm-tensor-to-loops
stores at the indices unchecked.

Row `i` of the indices (`N x k`) holds the coordinates of update `i`:
coordinate `j` indexes dim `dimension_map[j]` of the original, and must
lie in `[0, size)` of that dim. The updates' other dims are written into
the original's trailing dims (`--gmx-verify-tm-tensor` has checked the
shapes); where one of such a pair is dynamic, the scatter also runs only
when the updates dim fits, else the runtime raises ValueError
(`SHAPE_ERROR_SCATTER_ROWS`: it would write into the next row, or past
the buffer).

Before:

    %r = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false)
           ins(%updates, %indices : tensor<6xf32>, tensor<6x2xi64>) outs(%x : tensor<3x5xf32>) {...}

After (names shortened):

    // 1. All in range? An and-reduction over the indices; the size a
    //    coordinate is checked against is chosen by its column.
    %flag = linalg.generic {iterator_types = ["reduction", "reduction"]}
              ins(%indices : tensor<6x2xi64>) outs(%true : tensor<i1>) {...}
    %ok = tensor.extract %flag[] : tensor<i1>
    %r = scf.if %ok -> (tensor<3x5xf32>) {
      %s = tm_tensor.scatter ...            // 2. as it was
      scf.yield %s : tensor<3x5xf32>
    } else {
      // 3. @gmx_index_error(site, dim, value, size) for each bad index,
      //    in index order; nothing is written (the original returned).
      ...
      scf.yield %x : tensor<3x5xf32>
    }
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from .folding import Folded, Folder
from .index_reading import tensor_dims
from .ir_helpers import tensor_dim
from .gmx_check_scatter_indices import guard_behind_scan, guard_each, index_values
from .reporters import CALLBACKS
from .runtime_abi import SHAPE_ERROR_SCATTER_ROWS
from ..registry import PassInfo, add_python_pass
from ..walking import ops_named

SCATTER = "tm_tensor.scatter"


def indexing(op, fold: Folder) -> tuple[tuple[int, ...], list[Folded]]:
    """The dims of the original a tm_tensor.scatter's coordinates index
    (`dimension_map`) and their sizes (i64): what its check and its IREE
    report (`iree_scatter_reports`) check each value against."""
    dims = tuple(ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))
    return dims, [fold.to_i64(tensor_dim(fold, op.operands[2], d)) for d in dims]


def rows_fit(op, fold: Folder) -> tuple[Folded, Folded, Folded]:
    """Whether each dim of the tm_tensor.scatter `op`'s updates after the
    first fits the original's dim it is written into (True where every
    pair is static: the op's verifier checked those), and the first that
    does not: (its size, the original dim's), i64. At the insertion point."""
    updates, original = op.operands[0], op.operands[2]
    depth = len(ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))
    i64 = ir.IntegerType.get_signless(64)
    fits, size, room = True, 0, 0
    rows, unindexed = tensor_dims(fold, updates)[1:], tensor_dims(fold, original)[depth:]
    # The slice covers the trailing dims: the unindexed ones are its last.
    for n, m in reversed(list(zip(rows[len(rows) - len(unindexed):], unindexed))):
        n, m = fold.to_i64(n), fold.to_i64(m)
        ok = fold.cmp("uge", m, n)
        fits = fold.and_(ok, fits)
        size, room = fold.select(ok, size, n, i64), fold.select(ok, room, m, i64)
    return fits, size, room


def guard_scatter(op, site: int, fold: Folder) -> None:
    """Put the tm_tensor.scatter `op` behind the scan of its indices and the
    fit of its updates' dims, the reports on the other branch (module
    docstring). Builds at the current insertion point, just before `op`."""
    indices, original = op.operands[1], op.operands[2]
    _, values = index_values(op, indexing, indices, fold)  # indices N x k
    fits, size, room = rows_fit(op, fold)
    guard_behind_scan(op, values, site, unchanged=lambda: original, fold=fold, also=fits,
                      report_also=lambda: CALLBACKS.shape_error(fold, site, fits, SHAPE_ERROR_SCATTER_ROWS, size, room))


def check_tm_tensor_scatters(module) -> None:
    """Guard every tm_tensor.scatter of `module` (module docstring). Its
    verifier makes it checkable: ranked tensors, indices `N x k`."""
    guard_each(module, ops_named(module, SCATTER), guard_scatter)


PASS = PassInfo(
    argument="gmx-check-tm-tensor-scatter",
    description="Put every tm_tensor.scatter behind a scan of its indices that reports each one outside its "
    "dim to the runtime (the scatter then writes nothing)",
    build=lambda pm, options: add_python_pass(pm, check_tm_tensor_scatters, PASS),
)
