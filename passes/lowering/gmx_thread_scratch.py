"""`--gmx-thread-scratch`: the stack slots of an OpenMP loop's iterations
become one slot per thread.

`convert-scf-to-openmp` wraps the body of each parallel loop in a
`memref.alloca_scope`, which `canonicalize` inlines only when it holds no
`memref.alloca` (and `convert-scf-to-cf` cannot lower one holding loops).
A scratch slot that every iteration writes before it reads it (a tile's
rank-0 flag, promoted to the stack by `promote-buffers-to-stack`) needs no
fresh slot per iteration: each static alloca in the scope moves to the
start of the enclosing `omp.parallel` region, which every thread runs once
(so each thread has its own), and the scope is left without allocas:

    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%t) : index = (%c0) to (%c64) step (%c32) {
          memref.alloca_scope {
            %flag = memref.alloca() : memref<i1>
            ...
          }
          omp.yield
        }
      }
      omp.terminator
    }

becomes

    omp.parallel {
      %flag = memref.alloca() : memref<i1>
      omp.wsloop {
        omp.loop_nest (%t) : index = (%c0) to (%c64) step (%c32) {
          memref.alloca_scope {
            ...
          }
          ...

In the outlined function the slot is a local alloca that no other pointer
reaches, so LLVM keeps it in a register. Dynamic allocas are left alone.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from ..registry import PassInfo, add_python_pass
from ..views import ops_named


def _enclosing_parallel(op):
    parent = op.parent
    while parent is not None and parent.name not in ("omp.parallel", "func.func", "builtin.module"):
        parent = parent.parent
    return parent if parent is not None and parent.name == "omp.parallel" else None


def thread_scratch_pass(module) -> None:
    """Hoist each static alloca of an alloca_scope inside an omp.parallel
    region to the start of that region."""
    for scope in ops_named(module, "memref.alloca_scope"):
        region = _enclosing_parallel(scope)
        if region is None:
            continue
        entry = region.regions[0].blocks[0]
        for alloca in ops_named(scope, "memref.alloca"):
            if not list(alloca.operands) and _enclosing_parallel(alloca) == region:
                alloca.move_before(entry.operations[0])


def _build(pm, options) -> None:
    add_python_pass(pm, thread_scratch_pass, PASS)


PASS = PassInfo(
    argument="gmx-thread-scratch",
    description="Move the static stack slots of OpenMP loop iterations to one per thread (after convert-scf-to-openmp)",
    build=_build,
)
