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
  update's dims after its first (its slice) are written into the
  original's trailing dims and coordinate `j` of index row `i` is added to
  dim `dimension_map[j]`. Its writes stay inside the original exactly when
  each indexed dim is written by its index alone and each other dim by the
  slice, fitting it; the rules torch-mlir's exports obey (its index_put
  and index_add carry slices as long as the original's rank, a unit dim
  over each indexed dim: `tensor<10x1x3xf32>` into `tensor<7x3xf32>`):
  - the slice covers every dim that is not indexed and no more than the
    original: original rank - index depth <= updates rank - 1 <= original
    rank (the wheel's verifier checks this one);
  - a slice dim over an indexed dim has size 1 (a longer one would write
    at index + update position, a window the index check does not cover);
  - `dimension_map` names the original's leading `index depth` dims, in
    any order (a leading dim left unnamed has no position:
    tm-tensor-to-loops crashes);
  - each other slice dim fits the original dim it is written into (the
    wheel's verifier checks this one where both dims are static; checked
    mode at run time where one is dynamic: --gmx-check-tm-tensor-scatter).

  A scatter whose update rows are longer than the non-indexed dims (both
  dims of a `3x5` original indexed, 3-element rows) breaks the second
  rule: it would write into the next row or past the end of the buffer.

    %r = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false)
           ins(%u, %i : tensor<2x3xf32>, tensor<2x2xi64>) outs(%x : tensor<3x5xf32>) {...}

is refused with

    error: 'tm_tensor.scatter' op expected update dim 1 (written along indexed dim 1 of the original) to have size 1, got 3
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from .refusals import refuse_each
from ..registry import PassInfo, add_python_pass
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
    length, range and uniqueness, the indices' rank, the updates' rank, and
    that each update dim fits the original dim it is written into where
    both are static."""
    updates, original = _shape(op.operands[0]), _shape(op.operands[2])
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))
    depth = len(dims)
    first = slice_start(len(updates), len(original))
    for k, size in enumerate(updates[1:], start=1):
        if first + k - 1 < depth and size != 1:
            return (f"expected update dim {k} (written along indexed dim {first + k - 1} of the original) to have "
                    f"size 1, got {'?' if size is None else size}")
    if sorted(dims) != list(range(depth)):
        return (f"dimension_map {dims} must name the original's first {depth} dims: its dims from {depth} on "
                "are written by the updates' dims")
    return None


def slice_start(updates_rank: int, original_rank: int) -> int:
    """The original dim that a tm_tensor.scatter's first slice dim (its
    updates' dim 1) is written along: the slice covers the trailing dims."""
    return original_rank - (updates_rank - 1)


_RULES = {
    SCAN: lambda op: _dimension_problem(op, op.operands[0]),
    SORT: lambda op: _dimension_problem(op, op.operands[-1]),
    TOPK: lambda op: _dimension_problem(op, op.operands[0]),
    SCATTER: _scatter_problem,
}


def _violation(op) -> str | None:
    """The error for a tm_tensor op that breaks its rule, or None."""
    problem = _RULES[op.name](op)
    return None if problem is None else f"'{op.name}' op {problem}"


def verify_tm_tensor(module) -> None:
    """Check every tm_tensor op of `module` against the rules (module
    docstring); each one that breaks one is a located error, and the pass
    fails (Refused) if there is any."""
    refuse_each(ops_named(module, *_RULES), _violation, "malformed tm_tensor op(s)")


PASS = PassInfo(
    argument="gmx-verify-tm-tensor",
    description="Check every tm_tensor op's attributes against its operands (scan, sort and topk dimensions, "
    "scatter shapes and dimension_map) before anything lowers it: a located error for each that breaks one",
    build=lambda pm, options: add_python_pass(pm, verify_tm_tensor, PASS),
)
