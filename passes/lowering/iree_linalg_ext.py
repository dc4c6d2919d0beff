"""torch-mlir's tm_tensor ops as IREE's iree_linalg_ext ops, for IREE.

torch-mlir's TMTensor dialect began as a copy of IREE's LinalgExt: its
scan, sort and scatter are IREE's ops under another name (IREE 3.13 knows
nothing of tm_tensor). `to_iree_linalg_ext(module)` rebuilds each one as
the op of the same meaning in `iree_linalg_ext` (a dialect this context
does not load: built as an unregistered op, printed in generic form, which
iree-compile parses), its region moved over and its terminator
`iree_linalg_ext.yield`:

    %r:2 = "tm_tensor.scan"(%in, %out, %acc) <{dimension = 1 : i64, inclusive = true,
             operandSegmentSizes = array<i32: 1, 2>}> ({...})
    ->
    %r:2 = "iree_linalg_ext.scan"(%in, %out, %acc) {dimension = 1 : i64, inclusive = true} ({...})

The operands of IREE's ops are grouped otherwise (`OPERAND_SEGMENTS`):
scan's are fixed (no segment sizes), sort's are its inputs and outputs as
in tm_tensor, scatter's are updates, indices, an optional mask (none) and
the original. An op of tm_tensor with no IREE counterpart stays, and IREE
reports it.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..walking import ops_named

SEGMENTS = "operandSegmentSizes"
# tm_tensor op -> (iree_linalg_ext op, its operand segment sizes from the
# tm_tensor op's operands, or None for an op with fixed operands)
OPERAND_SEGMENTS = {
    "tm_tensor.scan": ("iree_linalg_ext.scan", None),
    "tm_tensor.sort": ("iree_linalg_ext.sort", lambda inputs, outputs: [inputs, outputs]),
    "tm_tensor.scatter": ("iree_linalg_ext.scatter", lambda inputs, outputs: [1, 1, 0, 1]),
}
YIELDS = {"tm_tensor.yield": "iree_linalg_ext.yield"}


def to_iree_linalg_ext(module) -> int:
    """Rebuild every tm_tensor scan, sort and scatter of `module` (and the
    terminators of their regions) as iree_linalg_ext ops; returns how many."""
    found = ops_named(module, *OPERAND_SEGMENTS)
    for op in found:
        _rebuild(op)
    return len(found)


def _rebuild(op) -> None:
    name, segments = OPERAND_SEGMENTS[op.name]
    attributes = {key: op.attributes[key] for key in op.attributes if key != SEGMENTS}
    if segments is not None:
        inputs, outputs = list(ir.DenseI32ArrayAttr(op.attributes[SEGMENTS]))
        attributes[SEGMENTS] = ir.DenseI32ArrayAttr.get(segments(inputs, outputs))
    op.context.allow_unregistered_dialects = True
    new = ir.Operation.create(
        name, results=[r.type for r in op.results], operands=list(op.operands), attributes=attributes,
        regions=len(op.regions), loc=op.location, ip=ir.InsertionPoint(op),
    )
    for old_region, new_region in zip(op.regions, new.regions):
        for block in list(old_region.blocks):
            block.append_to(new_region)
        for block in new_region.blocks:
            _rename_terminator(block)
    for old, replacement in zip(op.results, new.results):
        old.replace_all_uses_with(replacement)
    op.erase()


def _rename_terminator(block) -> None:
    terminator = list(block.operations)[-1]
    name = YIELDS.get(terminator.name)
    if name is None:
        return
    ir.Operation.create(name, operands=list(terminator.operands), loc=terminator.location,
                        ip=ir.InsertionPoint(terminator))
    terminator.erase()
