"""Module text to a JIT-compiled ExecutionEngine, in a context of its own.

    jitted = jit(text, entry="main", checked=True)

A module that does not parse, verify or lower is a CompileError with
located diagnostics.

Nothing MLIR built here outlives `jit`: the context and the module go
when it returns, the engine holds the compiled code on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmx.dialect import make_context
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ExecutionEngine, ir, passmanager
from gmx.passes.lowering.gmx_lower_to_llvm import PASS as LOWER_TO_LLVM
from gmx.passes.lowering.runtime_abi import error_sites

from .entry import TensorSignature, find_entry, numpy_signature
from .errors import CompileError


@dataclass(frozen=True)
class Jitted:
    """A compiled entry: its engine, numpy signature and error sites."""

    engine: ExecutionEngine
    arguments: list[TensorSignature]
    results: list[TensorSignature]
    sites: list[str]


def jit(text: str, entry: str, checked: bool) -> Jitted:
    """Parse, lower (unless already in the LLVM dialect) and JIT `entry`."""
    context = make_context()
    with context, ir.Location.unknown():
        module = _parse(text)
        entry_op = find_entry(module, entry)
        arguments, results = numpy_signature(entry_op)
        if entry_op.name == "func.func":
            _lower(module, checked)
        engine = ExecutionEngine(module, opt_level=3)
        return Jitted(engine, arguments, results, error_sites(module.operation))


def _parse(text: str) -> ir.Module:
    try:
        return ir.Module.parse(text)
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None


def lower_option(checked: bool) -> str:
    """--gmx-lower-to-llvm's option string (empty for the default)."""
    return "" if checked else "checked=false"


def _lower(module: ir.Module, checked: bool) -> None:
    pm = passmanager.PassManager("builtin.module")
    LOWER_TO_LLVM.add_to(pm, lower_option(checked))
    try:
        pm.run(module.operation)
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None
