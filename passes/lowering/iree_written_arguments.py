"""Which arguments of an entry lowered for IREE IREE may write in place.

IREE writes an op's result into the memory of its destination when nothing
reads the destination after it, and an entry's argument is no exception:
an argument imported from the caller's array (the CPU devices' DLPack
import) was written by a scatter into it and by a `tensor.insert_slice`
into it (measured, IREE 3.13). `written_arguments(entry)` says which
arguments reach, through views, the destination of such an op; the
runtime hands IREE copies of those, never the caller's memory:

    func.func @main(%x: tensor<8x4xf32>, %u: tensor<1x4xf32>) -> tensor<8x4xf32> {
      %r = tensor.insert_slice %u into %x[3, 0] [1, 4] [1, 1] ...     -> {0}

Conservative: every operand of an iree_linalg_ext op but a scatter's
updates and indices, and an argument handed to an op with regions (a
loop's iter_args), counts as written.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

# Ops whose result may be a view of their first operand (IREE may alias it).
VIEWS = frozenset({"tensor.expand_shape", "tensor.collapse_shape", "tensor.cast", "tensor.reshape",
                   "tensor.extract_slice", "tensor.bitcast"})
# Ops with one destination operand, at this position.
DESTINATION = {"tensor.insert_slice": 1, "tensor.insert": 1, "tensor.parallel_insert_slice": 1,
               "iree_linalg_ext.scatter": 2}  # updates, indices, original (no mask: `iree_linalg_ext`)
SEGMENTS = "operandSegmentSizes"


def written_arguments(entry, count: int) -> frozenset[int]:
    """The positions, among the first `count` arguments of the func.func
    `entry`, of those IREE may write in place (module docstring)."""
    block = entry.regions[0].blocks[0]
    return frozenset(k for k in range(count) if _reaches_a_destination(block.arguments[k]))


def _reaches_a_destination(value: ir.Value) -> bool:
    pending = [value]  # SSA values: the views of an argument form no cycle
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.owner
            user = getattr(user, "operation", user)
            if user.name in VIEWS:
                pending.extend(user.results)
            elif _is_destination(user, use.operand_number):
                return True
    return False


def _is_destination(op, operand: int) -> bool:
    """Whether operand `operand` of `op` may be written in place."""
    if op.name in DESTINATION:
        return operand == DESTINATION[op.name]
    if op.name.startswith("iree_linalg_ext.") or (len(op.regions) and not op.name.startswith("linalg.")):
        return True
    if op.name.startswith("linalg."):
        if SEGMENTS not in op.attributes:
            return True
        inputs, _ = list(ir.DenseI32ArrayAttr(op.attributes[SEGMENTS]))
        return operand >= inputs
    return False
