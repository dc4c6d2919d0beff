"""What is timed: each contender turns a `Case` into a callable on its inputs.

A contender has a `name` (its column in the table) and
`prepare(case) -> Prepared`. Adding a column (numpy, torch eager, a memcpy
floor, ...) is adding a contender to `default_contenders`; the table, the
correctness check and the timing loop pick it up.

- `unfused`: the exported TOSA as is, through `--gmx-lower-to-llvm` (which
  runs upstream tosa-to-linalg on the linearised gather).
- `fused`: the exported TOSA after `--gmx-canonicalize`, compiled the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import gmx.runtime
from gmx.dialect import OP_NAME, make_context
from gmx.dialect.mlir import ir
from gmx.passes.pipeline import build_pass_manager

from .programs import Case


@dataclass
class Prepared:
    """A contender ready to run: `run(*case.inputs)` returns the output.

    `compile_s` is None for contenders that compile nothing; `info` holds
    contender-specific facts for the table and the JSON."""

    run: Callable
    compile_s: float | None = None
    info: dict = field(default_factory=dict)


def jit(text: str, checked: bool) -> tuple[gmx.runtime.CompiledProgram, float]:
    """Compile `text` with gmx.runtime and time it.

    Builds a CompiledProgram directly rather than through gmx.runtime.compile:
    its cache would return the unfused program for an identical fused text
    (a compile time of 0) and keep every large program alive."""
    start = time.perf_counter()
    program = gmx.runtime.CompiledProgram(text, "main", checked)
    return program, time.perf_counter() - start


def count_ops(module: ir.Module) -> dict[str, int]:
    """How many gmx gathers and tosa gathers a module holds."""
    counts = {OP_NAME: 0, "tosa.gather": 0}

    def visit(op):
        if op.name in counts:
            counts[op.name] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return counts


def canonicalize(text: str) -> tuple[str, dict]:
    """`text` after --gmx-canonicalize, with op counts and the pass time."""
    with make_context():
        module = ir.Module.parse(text)
        start = time.perf_counter()
        build_pass_manager(["gmx-canonicalize"]).run(module.operation)
        seconds = time.perf_counter() - start
        counts = count_ops(module)
        fused_text = str(module)
    info = {"gmx_ops": counts[OP_NAME], "tosa_gathers": counts["tosa.gather"], "canonicalize_s": seconds}
    return fused_text, info


@dataclass(frozen=True)
class Unfused:
    """The exported program as is."""

    checked: bool = True
    name: str = "unfused"

    def prepare(self, case: Case) -> Prepared:
        program, seconds = jit(case.text, self.checked)
        return Prepared(program, seconds)


@dataclass(frozen=True)
class Fused:
    """The exported program after --gmx-canonicalize. Its compile time
    includes parsing, the pass and printing."""

    checked: bool = True
    name: str = "fused"

    def prepare(self, case: Case) -> Prepared:
        start = time.perf_counter()
        text, info = canonicalize(case.text)
        program, _ = jit(text, self.checked)
        return Prepared(program, time.perf_counter() - start, info)


def default_contenders(checked: bool = True) -> list:
    """The contenders of the table, in column order."""
    return [Fused(checked), Unfused(checked)]
