"""`--gmx-verify-tm-tensor`: every torch-mlir `tm_tensor` op's attributes
checked against its operands before anything lowers it, each op that
breaks a rule one located error (the pass fails), never a crash of
`tm-tensor-to-loops` or a write outside a buffer.

The wheel's own verifiers leave holes that its lowering then trusts:

- `tm_tensor.scan`: `dimension` must lie in `[0, rank)` of its input
  (`dimension(7)` on a rank-2 tensor verifies, the accumulator's shape
  compared by a zip that stops early, and tm-tensor-to-loops indexes the
  loops with it: SIGSEGV);
- `tm_tensor.sort`, `tm_tensor.topk`: `dimension` in `[0, rank)` of the
  operand (their verifiers check it too; stated here once with the rest);
- `tm_tensor.scatter` writes update `i` at `original[starts]`, where the
  update's dims after its first are written into the original's trailing
  dims and coordinate `j` of index row `i` is added to dim
  `dimension_map[j]`. Its writes stay inside the original exactly when
  each indexed dim is indexed alone and each written trailing dim fits,
  that is the scatter shape rule torch-mlir exports obey:
  - updates rank = 1 + (original rank - index depth), so that the updates
    cover the original's trailing dims and nothing more;
  - `dimension_map` names the original's leading `index depth` dims, in
    any order (a trailing dim indexed as well would be written at index +
    update position, a window the index check does not cover, and a
    leading dim left unnamed has no position: tm-tensor-to-loops crashes);
  - each update dim fits the original dim it is written into (the
    wheel's verifier checks this one where both dims are static; checked
    mode at run time where one is dynamic: --gmx-check-tm-tensor-scatter).

  A scatter whose update rows are longer than the non-indexed dims (both
  dims of a `3x5` original indexed, 3-element rows) breaks the first rule:
  it would write into the next row or past the end of the buffer.

    %r = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false)
           ins(%u, %i : tensor<2x3xf32>, tensor<2x2xi64>) outs(%x : tensor<3x5xf32>) {...}

is refused with

    error: 'tm_tensor.scatter' op expected updates of rank 1 + (original rank 2 - index depth 2) = 1, got rank 2
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..registry import PassInfo, Refused, add_python_pass
from ..walking import ops_named

SCAN, SORT, TOPK, SCATTER = "tm_tensor.scan", "tm_tensor.sort", "tm_tensor.topk", "tm_tensor.scatter"


def _shape(value: ir.Value) -> list[int | None]:
    """The dims of a ranked tensor or memref, None for a dynamic one."""
    shaped = ir.ShapedType(value.type)
    return [None if ir.ShapedType.is_dynamic_size(n) else n for n in shaped.shape]


def _dimension_problem(op, operand: ir.Value) -> str | None:
    """Why `op`'s `dimension` does not name a dim of `operand`, or None."""
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    rank = len(_shape(operand))
    if 0 <= dimension < rank:
        return None
    return f"dimension {dimension} is out of range for an operand of rank {rank} (expected 0 <= dimension < {rank})"


def _scatter_problem(op) -> str | None:
    """Why the tm_tensor.scatter `op` may write outside its original (module
    docstring), or None. Its own verifier has checked the dimension_map's
    length, range and uniqueness, the indices' rank, and that each update
    dim fits the original dim it is written into where both are static."""
    updates, original = _shape(op.operands[0]), _shape(op.operands[2])
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))
    depth = len(dims)
    if len(updates) != 1 + len(original) - depth:
        return (f"expected updates of rank 1 + (original rank {len(original)} - index depth {depth}) = "
                f"{1 + len(original) - depth}, got rank {len(updates)}")
    if sorted(dims) != list(range(depth)):
        return (f"dimension_map {dims} must name the original's first {depth} dims: its dims from {depth} on "
                "are written by the updates' dims")
    return None


_RULES = {
    SCAN: lambda op: _dimension_problem(op, op.operands[0]),
    SORT: lambda op: _dimension_problem(op, op.operands[-1]),
    TOPK: lambda op: _dimension_problem(op, op.operands[0]),
    SCATTER: _scatter_problem,
}


def verify_tm_tensor(module) -> None:
    """Check every tm_tensor op of `module` against the rules (module
    docstring); each one that breaks one is a located error, and the pass
    fails (Refused) if there is any."""
    refused = 0
    for op in ops_named(module, *_RULES):
        problem = _RULES[op.name](op)
        if problem is not None:
            op.location.emit_error(f"'{op.name}' op {problem}")
            refused += 1
    if refused:
        raise Refused(f"{refused} malformed tm_tensor op(s)")


PASS = PassInfo(
    argument="gmx-verify-tm-tensor",
    description="Check every tm_tensor op's attributes against its operands (scan, sort and topk dimensions, "
    "scatter shapes and dimension_map) before anything lowers it: a located error for each that breaks one",
    build=lambda pm, options: add_python_pass(pm, verify_tm_tensor, PASS),
)
