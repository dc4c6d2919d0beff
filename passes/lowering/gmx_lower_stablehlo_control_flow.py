"""`--gmx-lower-stablehlo-control-flow`: StableHLO's control flow becomes
scf on the same tensors, which one-shot-bufferize handles; upstream's
stablehlo-legalize-to-linalg lowers the ops inside it but not the
control flow itself:

- `stablehlo.while` (JAX's `fori_loop`, `while_loop`) -> `scf.while`,
- `stablehlo.if` -> `scf.if`,
- `stablehlo.case` (JAX's `cond`, `switch`) -> `scf.index_switch`, an
  index out of range taking the last branch, as StableHLO defines.

A loop:

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
A branch's rank-0 predicate or index is extracted the same way, its
regions' ops moved into the scf op's, `stablehlo.return` as `scf.yield`.
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, ir, scf, tensor

from ..registry import PassInfo, add_python_pass
from ..walking import ops_named

WHILE = "stablehlo.while"
IF = "stablehlo.if"
CASE = "stablehlo.case"


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


def _move_branch(source: ir.Block, target: ir.Block) -> None:
    """The ops of the branch block `source` to the empty block `target`,
    its stablehlo.return as scf.yield."""
    returned = _terminator(source)
    with ir.InsertionPoint(target), returned.location:
        yielded = scf.YieldOp(list(returned.operands))
    for op in list(source.operations)[:-1]:
        op.operation.move_before(yielded.operation)
    returned.erase()


def _replace(op, new) -> None:
    for old, result in zip(op.results, new.results):
        old.replace_all_uses_with(result)
    op.erase()


def if_as_scf(op) -> None:
    """Replace the stablehlo.if `op` by an scf.if."""
    with ir.InsertionPoint(op), op.location:
        branch = scf.IfOp(tensor.extract(op.operands[0], []), [r.type for r in op.results], has_else=True)
    _move_branch(op.regions[0].blocks[0], branch.then_block)
    _move_branch(op.regions[1].blocks[0], branch.else_block)
    _replace(op, branch)


def case_as_scf(op) -> None:
    """Replace the stablehlo.case `op` by an scf.index_switch: branches
    0..n-2 its cases, the last its default (any other index)."""
    regions = list(op.regions)
    with ir.InsertionPoint(op), op.location:
        index = arith.index_cast(ir.IndexType.get(), tensor.extract(op.operands[0], []))
        switch = scf.IndexSwitchOp([r.type for r in op.results], index, list(range(len(regions) - 1)))
    for i, region in enumerate(regions[:-1]):
        _move_branch(region.blocks[0], switch.case_block(i))
    _move_branch(regions[-1].blocks[0], switch.default_block)
    _replace(op, switch)


_LOWERINGS = {WHILE: while_as_scf, IF: if_as_scf, CASE: case_as_scf}


def lower_stablehlo_control_flow(module) -> None:
    """Every stablehlo.while, .if and .case of `module`, innermost first,
    as scf."""
    for op in ops_named(module, *_LOWERINGS, post_order=True):
        _LOWERINGS[op.name](op)


PASS = PassInfo(
    argument="gmx-lower-stablehlo-control-flow",
    description="stablehlo.while, .if and .case (JAX's loops, cond, switch) as scf.while, scf.if and "
    "scf.index_switch on the same tensors",
    build=lambda pm, options: add_python_pass(pm, lower_stablehlo_control_flow, PASS),
)
