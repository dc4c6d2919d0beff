"""Programs through gmx pipelines, and the one op counter.

- `count_ops(op)`: op name -> how many, nested ops included.
- `run_pipeline(text, elements)`: a program after a pipeline of pass flags
  (gmx's and upstream's, as `gmx-opt` takes them), with its op counts and
  the seconds the passes took.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.passes.pipeline import build_pass_manager


def count_ops(op) -> Counter:
    """Op name -> how many ops `op` holds, nested ops included, `op` itself
    not (an ir.Module counts as its operation)."""
    op = op.operation if isinstance(op, ir.Module) else op
    counts: Counter = Counter()

    def visit(nested):
        counts[nested.name] += 1
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    counts[op.name] -= 1
    return +counts


@dataclass(frozen=True)
class PipelineOutput:
    """A program after a pipeline."""

    text: str
    counts: Counter  # count_ops of the result
    seconds: float  # the passes alone (no parsing or printing)


def run_pipeline(text: str, elements: Sequence[str], *, locations: bool = False) -> PipelineOutput:
    """`text` parsed, run through `elements` (pass flags without `--`, e.g.
    `gmx-canonicalize`, `tosa-to-tensor`) and verified, printed with its
    locations if `locations`; raises ir.MLIRError when it does not parse, a
    pass fails or the result does not verify."""
    with make_context():
        module = ir.Module.parse(text)
        pm = build_pass_manager(elements)
        start = time.perf_counter()
        pm.run(module.operation)
        seconds = time.perf_counter() - start
        module.operation.verify()
        return PipelineOutput(module.operation.get_asm(enable_debug_info=locations), count_ops(module), seconds)
