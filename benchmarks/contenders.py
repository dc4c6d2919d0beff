"""What is timed: each contender turns a `Case` into a callable on its inputs.

A contender has a `name` (its column in the table) and
`prepare(case) -> Prepared`. Adding a column is adding a contender to
`default_contenders`; the table, the correctness check and the timing loop
pick it up.

- `gmx`: the exported TOSA after `--gmx-canonicalize`, through
  `--gmx-lower-to-llvm` (bounds-checked, the default); `gmx unchecked`: the
  same with `checked=false`, to price the check.
- `unfused`: the exported TOSA as is, through `--gmx-lower-to-llvm` (which
  runs upstream tosa-to-linalg on the linearised gather).
- `numpy`: the variant's numpy form (take_along_axis, take, fancy indexing).
- `torch 1t`, `torch`: PyTorch eager with 1 thread and with its default
  thread count; tensors are made from the inputs once, outside the timing.
- `memcpy`: a warm `np.copyto` of as many bytes as the output, the floor
  a gather writing that output cannot beat. It computes nothing, so it is
  not checked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

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
    checked: bool = True  # whether the output is compared with PyTorch eager


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
    name: str = "gmx"

    def prepare(self, case: Case) -> Prepared:
        start = time.perf_counter()
        text, info = canonicalize(case.text)
        program, _ = jit(text, self.checked)
        return Prepared(program, time.perf_counter() - start, info)


@dataclass(frozen=True)
class Numpy:
    """The variant's numpy form on the same arrays."""

    name: str = "numpy"

    def prepare(self, case: Case) -> Prepared:
        return Prepared(case.variant.numpy_forward)


@dataclass(frozen=True)
class TorchEager:
    """PyTorch eager with `threads` threads."""

    threads: int
    name: str = "torch"

    def prepare(self, case: Case) -> Prepared:
        import torch

        tensors = [torch.from_numpy(a) for a in case.inputs]
        forward = case.variant.forward

        def run(*_):
            # Set on every call: the rounds interleave contenders.
            torch.set_num_threads(self.threads)
            with torch.no_grad():
                return forward(*tensors).numpy()

        return Prepared(run, info={"threads": self.threads})


@dataclass(frozen=True)
class Memcpy:
    """A warm copy of the output's bytes between two preallocated arrays."""

    name: str = "memcpy"

    def prepare(self, case: Case) -> Prepared:
        source = case.expected.copy()
        target = np.empty_like(source)
        return Prepared(lambda *_: np.copyto(target, source), checked=False)


def default_contenders() -> list:
    """The contenders of the table, in column order."""
    import torch

    default_threads = torch.get_num_threads()  # before any contender changes it
    return [
        Fused(True),
        Fused(False, name="gmx unchecked"),
        Unfused(True),
        Numpy(),
        TorchEager(1, name="torch 1t"),
        TorchEager(default_threads, name="torch"),
        Memcpy(),
    ]
