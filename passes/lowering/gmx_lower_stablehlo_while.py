"""`--gmx-lower-stablehlo-while`: every `stablehlo.while` (JAX's
`fori_loop` and `while_loop`) becomes an `scf.while` carrying the same
tensors, which one-shot-bufferize handles; upstream's
stablehlo-legalize-to-linalg lowers the ops inside it but not the loop.

    %r:2 = stablehlo.while(%a = %x, %i = %c0) : tensor<4xf32>, tensor<i64>
      cond {
        %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        ...
        stablehlo.return %b, %j : tensor<4xf32>, tensor<i64>
      }

becomes

    %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
      %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %c = tensor.extract %p[] : tensor<i1>
      scf.condition(%c) %a, %i : tensor<4xf32>, tensor<i64>
    } do {
    ^bb0(%a: tensor<4xf32>, %i: tensor<i64>):
      ...
      scf.yield %b, %j : tensor<4xf32>, tensor<i64>
    }

(the regions' blocks move as they are, only their terminators change).
"""

from __future__ import annotations

from gmx.dialect.mlir import ir, scf, tensor

from ..registry import PassInfo, add_python_pass
from ..walking import ops_named

WHILE = "stablehlo.while"


def _terminator(block: ir.Block):
    return list(block.operations)[-1]


def while_as_scf(op) -> None:
    """Replace the stablehlo.while `op` by an scf.while (module docstring)."""
    with ir.InsertionPoint(op), op.location:
        loop = scf.WhileOp([r.type for r in op.results], list(op.operands))
    condition, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    condition.append_to(loop.before)
    body.append_to(loop.after)
    returned = _terminator(condition)
    with ir.InsertionPoint(returned), returned.location:
        scf.ConditionOp(tensor.extract(returned.operands[0], []), list(condition.arguments))
    returned.erase()
    returned = _terminator(body)
    with ir.InsertionPoint(returned), returned.location:
        scf.YieldOp(list(returned.operands))
    returned.erase()
    for old, new in zip(op.results, loop.results):
        old.replace_all_uses_with(new)
    op.erase()


def lower_stablehlo_while(module) -> None:
    """Every stablehlo.while of `module`, innermost first, as scf.while."""
    for op in ops_named(module, WHILE, post_order=True):
        while_as_scf(op)


PASS = PassInfo(
    argument="gmx-lower-stablehlo-while",
    description="stablehlo.while (JAX's fori_loop, while_loop) as scf.while on the same tensors",
    build=lambda pm, options: add_python_pass(pm, lower_stablehlo_while, PASS),
)
