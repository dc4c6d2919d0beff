"""Split long function blocks after their loops and ifs, before
`convert-scf-to-cf`, so that lowering them costs time linear in the block.

Upstream's scf-to-cf lowers each `scf.for` / `scf.if` / `scf.while` by
splitting its block after it; under the conversion driver the ops after it
are moved into the new block one at a time (each move recorded for
rollback). A block holding N loops and ifs, such as a function of N
checked gathers, so moves O(N^2) ops: 1,000 gathers in one function took
minutes where 1,000 functions of one gather took seconds. Split here first,
from the last such op to the first, every op moves once, and each upstream
split then moves only the `cf.br` that ends its piece:

    func.func @f(...) {                 func.func @f(...) {
      scf.for ... { A }                   scf.for ... { A }
      %x = ...                            cf.br ^bb1
      scf.if ... { B }          ->      ^bb1:
      return                              %x = ...
    }                                     scf.if ... { B }
                                          return
                                        }

Values keep dominating their uses: the pieces are a straight chain, each
the only predecessor of the next. Blocks with few region ops are left as
they are (`split_points`): the split pays off, and changes the IR, only
when the block is long.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmx.dialect.mlir import cf, ir

# A block is split only when it holds more region ops than this.
MIN_REGION_OPS = 8


def split_points(has_regions: Sequence[bool]) -> list[int]:
    """Positions of the ops of a block after which it is split, given
    whether each op (the terminator last) holds regions: every region op
    but one right before the terminator, when there are more than
    MIN_REGION_OPS of them; else none."""
    positions = [k for k, holds in enumerate(has_regions[:-1]) if holds]
    if len(positions) <= MIN_REGION_OPS:
        return []
    return [k for k in positions if k + 1 < len(has_regions) - 1]


def moved_by_upstream_splits(has_regions: Sequence[bool]) -> int:
    """How many ops scf-to-cf moves lowering a block's region ops, each
    split moving every op after it in its piece (the work this module
    bounds)."""
    moved, following = 0, 0
    for holds in reversed(has_regions):
        if holds:
            moved += following
        following += 1
    return moved


def split_long_blocks(module) -> None:
    """Split every long block of the module's functions after its region ops."""
    for function in module.regions[0].blocks[0].operations:
        function = function.operation
        if function.name != "func.func":
            continue
        for block in list(function.regions[0].blocks):
            _split(block)


def _split(block: ir.Block) -> None:
    ops = [op.operation for op in block.operations]
    end, branch = len(ops), []
    for k in reversed(split_points([len(op.regions) > 0 for op in ops])):
        piece = block.create_after()
        tail = ops[k + 1 : end] + branch  # up to the next piece's branch
        branch = [cf.BranchOp([], piece, ip=ir.InsertionPoint(tail[0]), loc=ops[k].location).operation]
        tail[0].detach_from_parent()
        ir.InsertionPoint(piece).insert(tail[0])
        for previous, op in zip(tail, tail[1:]):
            op.move_after(previous)
        end = k + 1
