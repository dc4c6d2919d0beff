"""Ops over nothing, for IREE: each is its destinations.

IREE 3.13's compiler crashes (a stack dump, in const-eval's
`AnnotateDispatches`) on a reduction over a static empty tensor, such as
the index report of a checked gather with no indices, and on an
`iree_linalg_ext.scatter` of no updates; the engine runs both. An op in
destination-passing style whose operands include a tensor with a static 0
dim runs no iteration (in a verified linalg op, each operand dim bounds
the loops that index it, so a 0 leaves none; in a scan, sort or scatter of
tm_tensor the loops are the input's, the operands' or the updates'), so
each of its results is the destination it was given, as upstream's
`EraseDeadLinalgOp` erases such ops on buffers:

    %count = linalg.generic {iterator_types = ["reduction", "reduction"]}
               ins(%i : tensor<0x1xi64>) outs(%zero : tensor<i64>) {...}
    ->  (uses of %count use %zero)

`drop_empty_ops(module)` does that for every linalg op with a region and
every tm_tensor scan, sort and scatter (before they become IREE's), and
erases the op.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

# tm_tensor ops in destination-passing style whose loops an empty operand
# leaves without an iteration (their results: their last operands).
TM_TENSOR = ("tm_tensor.scan", "tm_tensor.sort", "tm_tensor.scatter")


def _structured(op) -> bool:
    """A linalg op in destination-passing style (generic, fill, named ops:
    those with a region) or one of TM_TENSOR, its results' types those of
    its last operands (the destinations)."""
    if not (op.name in TM_TENSOR or (op.name.startswith("linalg.") and len(op.regions) == 1)):
        return False
    results = list(op.results)
    inits = list(op.operands)[len(op.operands) - len(results):]
    return len(inits) == len(results) and all(i.type == r.type for i, r in zip(inits, results))


def _empty(value: ir.Value) -> bool:
    """Whether `value` is a ranked tensor with a static 0 dim."""
    return isinstance(value.type, ir.RankedTensorType) and 0 in ir.RankedTensorType(value.type).shape


def drop_empty_ops(module) -> int:
    """Replace each op of `module` that runs no iteration (module docstring)
    by its destinations; returns how many. Outermost first: one that
    contains another is gone before the inner one is looked at."""
    dropped = 0
    for op in _candidates(module):
        if not any(_empty(v) for v in op.operands):
            continue
        inits = list(op.operands)[len(op.operands) - len(op.results):]
        for result, init in zip(op.results, inits):
            result.replace_all_uses_with(init)
        op.erase()
        dropped += 1
    return dropped


def _candidates(module) -> list[ir.Operation]:
    """The ops `drop_empty_ops` looks at, outermost first, none nested in
    another of them (an op inside a dropped one goes with it)."""
    found = []

    def collect(op):
        if _structured(op.operation):
            found.append(op.operation)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    return found
