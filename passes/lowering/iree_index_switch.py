"""`scf.index_switch` as a chain of `scf.if`, for IREE.

IREE 3.13's compiler fails on an `scf.index_switch` of two cases or more
that yields tensors (`'scf.index_switch' op expected each region to return
1 values, but default region returns 2`), which JAX's `lax.switch` of three
branches becomes (`stablehlo.case`, through gmx-lower-stablehlo-control-flow);
a switch of one case, and `scf.if`, compile. So, for IREE, every switch with
cases becomes the `scf.if` chain of the same meaning, each case's region
moved as it is (it ends in the `scf.yield` both ops take):

    %r = scf.index_switch %i -> tensor<4xf32>
    case 0 {...} case 1 {...} default {...}
    ->
    %r = scf.if (%i == 0) -> tensor<4xf32> {...} else {
      %s = scf.if (%i == 1) -> tensor<4xf32> {...} else {...}
      scf.yield %s : tensor<4xf32>
    }
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, ir, scf

from ..walking import ops_named

SWITCH = "scf.index_switch"


def index_switches_as_ifs(module) -> int:
    """Rebuild every scf.index_switch with cases in `module` (innermost
    first) as a chain of scf.if; returns how many."""
    found = [op for op in ops_named(module, SWITCH, post_order=True) if len(op.regions) > 1]
    for op in found:
        _as_ifs(op)
    return len(found)


def _chain(index: ir.Value, cases: list[tuple[int, ir.Region]], default: ir.Region, types: list[ir.Type]):
    """At the insertion point: the scf.if testing cases[0], the rest (then
    the default) on its else branch."""
    value, region = cases[0]
    same = arith.cmpi(arith.CmpIPredicate.eq, index, arith.constant(ir.IndexType.get(), value))
    branch = scf.IfOp(same, types, has_else=True)
    _fill(branch.then_block, region)
    if len(cases) == 1:
        _fill(branch.else_block, default)
    else:
        with ir.InsertionPoint(branch.else_block):
            inner = _chain(index, cases[1:], default, types)
            scf.YieldOp(list(inner.results))
    return branch


def _fill(block: ir.Block, region: ir.Region) -> None:
    """The ops of `region`'s block, its scf.yield last, to the empty `block`."""
    for op in list(region.blocks[0].operations):
        block.append(op.operation)


def _as_ifs(op) -> None:
    values = list(ir.DenseI64ArrayAttr(op.attributes["cases"]))
    regions = list(op.regions)
    with ir.InsertionPoint(op), op.location:
        chain = _chain(op.operands[0], list(zip(values, regions[1:])), regions[0], [r.type for r in op.results])
    for old, new in zip(op.results, chain.results):
        old.replace_all_uses_with(new)
    op.erase()
