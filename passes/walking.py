"""Finding ops in a module: the ops of given names, collected before a
pass rewrites them (a walk must not see its own rewrites)."""

from __future__ import annotations

from gmx.dialect.mlir import ir


def ops_named(module, *names: str, post_order: bool = False) -> list[ir.Operation]:
    """Every op of `module` named one of `names`, in program order (nested
    ones after their parent; `post_order`: before it)."""
    found = []

    def collect(op):
        if op.name in names:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.walk(collect, ir.WalkOrder.POST_ORDER if post_order else ir.WalkOrder.PRE_ORDER)
    return found
