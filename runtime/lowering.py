"""Module text to a JIT-compiled ExecutionEngine, in a context of its own.

    jitted = jit(text, entry="main", checked=True)

Every failure is a CompileError whose message starts with located
diagnostics (its first line is the first error, which is what tools that
show one line show). A failure after parsing (the --gmx-lower-to-llvm
pipeline, or the ExecutionEngine's translation to LLVM IR) is the
compiler's, not the user's input's (unless a pass refused an op it has
no lowering for, which its error names: `registry.Refused`): as torch-mlir's
`run_pipeline_with_repro_report` does, the message ends with the command
that fails on a file holding the module as it was before the pipeline
(with locations):

    -:2:8: error: op was not bufferized
    -:2:8: note: see current operation: ...
    reproduce with: gmx-opt /tmp/gmx-repro-1a2b.mlir --gmx-lower-to-llvm

Nothing MLIR built here outlives `jit`: the context and the module go
when it returns, the engine holds the compiled code on its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

from gmx.dialect import make_context
from gmx.dialect.locations import diagnostic_text, error_text
from gmx.dialect.mlir import ExecutionEngine, ir, passmanager
from gmx.dialect.parsing import UnparsableText, parse_text
from gmx.passes.lowering.gmx_lower_to_llvm import LowerOptions, add_lowering
from gmx.passes.instrument import running
from gmx.passes.registry import noting_refusals
from gmx.passes.lowering.runtime_abi import (
    DESTINATIONS_ATTR,
    NOT_DONATED,
    assert_messages,
    donations,
    error_sites,
    set_donations,
)

from .donation import entry_donations
from .entry import TensorSignature, find_entry, numpy_signature
from .errors import CompileError, DonationError
from .external_symbols import check_external_symbols, written_symbols
from .pipeline_attributes import reject_pipeline_attributes


@dataclass(frozen=True)
class Jitted:
    """A compiled entry: its engine, numpy signature and error sites."""

    engine: ExecutionEngine
    arguments: list[TensorSignature]
    results: list[TensorSignature]
    sites: list[str]
    # The entry writes its results into buffers the caller passes after its
    # arguments (runtime_abi.DESTINATIONS_ATTR), instead of returning them.
    destinations: bool = False
    # The message of each reported cf.assert, by number (SHAPE_ERROR_ASSERT).
    assert_messages: list[str] = field(default_factory=list)
    # Per result, the argument it is written into (runtime_abi.DONATIONS_ATTR).
    donations: tuple[int, ...] = ()


def jit(text: str, entry: str, checked: bool, allow_external: bool = False, donate: tuple[int, ...] = ()) -> Jitted:
    """Parse, lower (unless already in the LLVM dialect) and JIT `entry`;
    a tensor-level entry with static results takes destinations, and
    writes results into the arguments `donate` names (`donation`). The
    module may use only symbols of the process that the runtime provides
    unless `allow_external`, and only symbols something provides
    (`external_symbols`)."""
    context = make_context()
    with context, ir.Location.unknown():
        module = _parse(text)
        entry_op = find_entry(module, entry)
        if entry_op.name == "func.func":
            reject_pipeline_attributes(module)
        arguments, results = numpy_signature(entry_op)
        written = written_symbols(module)
        if entry_op.name == "func.func":
            pairs = entry_donations(entry, arguments, results, donate)
            if donate:  # the reproducer of a failure donates too
                set_donations(entry_op, pairs)
                text = module.operation.get_asm(enable_debug_info=True)
            _lower(module, text, checked)
        check_external_symbols(module, written, allow_external)
        # Lowering rewrote the entry: its handle is stale, look it up again.
        lowered = find_entry(module, entry)
        destinations = DESTINATIONS_ATTR in lowered.attributes
        pairs = _lowered_donations(lowered, entry, len(results), donate)
        engine = _engine(module, context, text, entry, checked)
        return Jitted(engine, arguments, results, error_sites(module.operation), destinations,
                      assert_messages(module.operation), pairs)


def _lowered_donations(lowered, entry: str, results: int, donate: tuple[int, ...]) -> tuple[int, ...]:
    """The donations the lowered entry was compiled with, which must be
    `donate`'s (a module given in the LLVM dialect donates what it was
    lowered with: called otherwise, it would write arguments not donated)."""
    pairs = donations(lowered) or (NOT_DONATED,) * results
    compiled = tuple(sorted(k for k in pairs if k != NOT_DONATED))
    if compiled != donate:
        raise DonationError(
            f"@{entry} was lowered with donated arguments {compiled}: compile it with donate={compiled}, not {donate}"
        )
    return pairs


def _parse(text: str) -> ir.Module:
    """The module of `text` (nesting bounded, a failure with no diagnostic
    located: `gmx.dialect.parsing`); CompileError when it does not parse."""
    try:
        return parse_text(ir.Module.parse, text, "-")
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None
    except UnparsableText as error:
        raise CompileError(str(error)) from None


def lowering_options(checked: bool) -> LowerOptions:
    """The --gmx-lower-to-llvm options the runtime compiles with: entries
    take destinations. (gmx-study shows programs lowered with these, so
    that what it shows is what runs.)"""
    return LowerOptions(checked=checked, destinations=True)


def _lower(module: ir.Module, text: str, checked: bool) -> None:
    options = lowering_options(checked)
    pm = passmanager.PassManager("builtin.module")
    add_lowering(pm, options)
    try:
        with noting_refusals() as refused, running(pm):  # a tool's IR dumps, timing, ...
            pm.run(module.operation)
    except ir.MLIRError as error:
        if refused:  # ops the lowering has no way for, each error says which and why
            raise CompileError(error_text(error)) from None
        raise CompileError(
            _failure_report(error_text(error), text, lambda path: f"gmx-opt {path} {options.flag()}")
        ) from None


def _engine(module: ir.Module, context: ir.Context, text: str, entry: str, checked: bool) -> ExecutionEngine:
    """The ExecutionEngine of a lowered module. Its translation to LLVM IR
    reports errors as diagnostics and then a bare RuntimeError: the
    diagnostics are captured into the CompileError instead of stderr."""
    diagnostics: list[str] = []

    def capture(diagnostic) -> bool:
        if diagnostic.severity != ir.DiagnosticSeverity.ERROR:
            return False  # warnings go on to the default handler
        diagnostics.append(diagnostic_text(diagnostic))
        return True

    handler = context.attach_diagnostic_handler(capture)
    try:
        return ExecutionEngine(module, opt_level=3)
    except RuntimeError as error:
        unchecked = "" if checked else " --unchecked"
        found = "\n".join(diagnostics) or str(error)
        raise CompileError(
            _failure_report(found, text, lambda path: f"gmx-run {path} --entry {shlex.quote(entry)}{unchecked}")
        ) from None
    finally:
        handler.detach()


def _failure_report(diagnostics: str, text: str, command: Callable[[str], str]) -> str:
    """The diagnostics, then `reproduce with: command(path)`, `path` a
    file holding the module before the pipeline."""
    try:
        path = write_reproducer(_with_locations(text))
    except OSError as error:
        return f"{diagnostics}\n(no reproducer: could not write one: {error})"
    return f"{diagnostics}\nreproduce with: {command(shlex.quote(path))}"


def _with_locations(text: str) -> str:
    """The module parsed from `text` again (as it was before the pipeline,
    which changed it in place), printed with its locations so that the
    reproducer reports the same `file:line:col` as the failure."""
    return _parse(text).operation.get_asm(enable_debug_info=True)


def write_reproducer(text: str) -> str:
    """Write `text` to `gmx-repro-<hash of text>.mlir` in the temporary
    directory and return its path. Named after its content, so that a
    program that keeps failing (a retry loop, a benchmark's expected
    failures, every test run) leaves one file, not one per failure; it is
    written beside it and renamed into place, so that concurrent failures
    of one program never see it half-written."""
    directory = tempfile.gettempdir()
    path = os.path.join(directory, f"gmx-repro-{hashlib.sha256(text.encode()).hexdigest()[:16]}.mlir")
    handle, partial = tempfile.mkstemp(prefix=".gmx-repro-", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    return path
