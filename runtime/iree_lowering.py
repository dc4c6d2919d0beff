"""A tensor-level module to the IR handed to IREE.

    lowered = lower_for_iree(text, entry="main", checked=True)
    lowered.text        # generic form: what iree-compile parses (--iree-input-type=none)

The steps are the engine's up to linalg, then only what IREE needs:

1. the entry alone: every other function private, calls inlined, what is
   left unused dropped (`inline`, `symbol-dce`); its tm_tensor ops
   verified (`gmx-verify-tm-tensor`);
2. TOSA's and tensor's gathers raised into gmx (`gmx-canonicalize{fuse=false}`,
   as --gmx-lower-to-llvm does; checked, one left unraised is an error,
   and so is each `tensor.extract` of a linalg body whose position
   --gmx-check-linalg-extracts would scan: IREE cannot run those scans,
   `refuse_unchecked_reads`)
   and StableHLO to linalg with --gmx-lower-to-llvm's own stages
   (`STABLEHLO_LOWERING`);
3. checked: each gather's and scatter's index report (`iree_reports.add_index_reports`:
   the count of bad indices and the first's position, or, with `details`,
   its value and axis size too);
   unchecked: each gather reads nothing outside its input
   (`iree_reports.read_nothing_outside`);
4. `convert_gmx_to_linalg` planned for IREE (plain generics: no tensor of
   `index` crosses a dispatch), its run-time shape checks reported as
   tensors (`iree_reports.Tensors`, the reporter of every step here), each
   gmx scatter one iree_linalg_ext.scatter (`iree_scatter`); checked, each
   tosa or tm_tensor scatter's report and its indices clamped
   (`iree_scatter_reports`); then every report appended to the entry's
   results.

5. what is left of TOSA (reshapes and casts of indices, the program's own
   arithmetic) to linalg, tensor and arith as --gmx-lower-to-llvm lowers it
   (`TOSA_TO_IREE`: IREE's own TOSA input validates TOSA's profiles and
   rejects what torch-mlir emits, such as casts from i64);
6. each op over a static empty tensor replaced by its destinations, as
   it runs no iteration (`iree_empty_ops`: IREE crashes on some); then
   torch-mlir's tm_tensor scan, sort and scatter (its linalg-on-tensors
   export; StableHLO's sorts, by `gmx-lower-stablehlo-sort`) as IREE's
   iree_linalg_ext ops (`iree_linalg_ext`);
7. every `scf.index_switch` with cases (StableHLO's case, JAX's switch)
   as a chain of `scf.if`, which IREE compiles (`iree_index_switch`);
8. for a CPU device, each gather's IREE CPU tiles (`iree_cpu_config`).

Nothing is bufferized. The module is printed in generic form, which
iree-compile parses whatever this MLIR's pretty forms are
(`--iree-input-type=none`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gmx.dialect import make_context
from gmx.dialect.locations import diagnostic_text, error_text, location_text
from gmx.dialect.mlir import ir, passmanager
from gmx.passes.lowering.convert_gmx_to_linalg import convert_gmx_to_linalg
from gmx.passes.lowering.gmx_check_linalg_extracts import checked_reads
from gmx.passes.lowering.iree_cpu_config import configure_gathers
from gmx.passes.lowering.iree_empty_ops import drop_empty_ops
from gmx.passes.lowering.iree_index_switch import index_switches_as_ifs
from gmx.passes.lowering.iree_linalg_ext import to_iree_linalg_ext
from gmx.passes.lowering.iree_scatter_reports import add_scatter_reports
from gmx.passes.lowering.iree_written_arguments import written_arguments
from gmx.passes.lowering.gmx_lower_to_llvm import (
    STABLEHLO_LOWERING,
    TOSA_LOWERING,
    LowerOptions,
    Upstream,
    add_stages,
    require_checkable_indices,
)
from gmx.passes.lowering.iree_reports import (
    INDEX_KIND,
    IndexReport,
    Tensors,
    add_index_reports,
    read_nothing_outside,
    return_reports,
)
from gmx.passes.lowering.gmx_report_asserts import ASSERT, assert_message
from gmx.passes.lowering.runtime_abi import error_sites
from gmx.passes.pipeline import build_pass_manager
from gmx.passes.registry import PassFailed, Refused
from gmx.passes.walking import ops_named

from .entry import TensorSignature, find_entry, numpy_signature
from .errors import CompileError
from .lowering import _parse

ENTRY_ONLY = ("inline", "symbol-dce")
# torch-mlir's tm_tensor ops checked before anything lowers them, as
# --gmx-lower-to-llvm checks them first.
VERIFY_TM_TENSOR = "gmx-verify-tm-tensor"
# Every tosa.gather and tensor.gather raised into gmx, nothing fused, as
# --gmx-lower-to-llvm's first stage raises them.
RAISE_GATHERS = "gmx-canonicalize{fuse=false}"
# What is left of TOSA, with --gmx-lower-to-llvm's own stages (without
# TOSA's profile validation, which IREE's TOSA input would run and which
# rejects what torch-mlir emits: casts from i64, f64 constants).
TOSA_TO_IREE = (*TOSA_LOWERING, Upstream("canonicalize"))


# IREE's ABI: an argument of this type marked `iree.abi.output = N` is the
# storage result N is written into.
OUTPUT_STORAGE = "!hal.buffer_view"
OUTPUT_ATTR = "iree.abi.output"


@dataclass(frozen=True)
class IreeInput:
    """The module for IREE and what the runtime needs to call its entry."""

    text: str
    arguments: list[TensorSignature]
    results: list[TensorSignature]  # the entry's own; the reports follow them
    sites: list[str]
    report_kinds: list[str]  # per report, in result order: "index" or "shape"
    index_reports: list[IndexReport]  # the "index" ones, in order
    output_storage: bool = False  # the entry takes its results' storage after its arguments
    # The arguments IREE may write in place (`iree_written_arguments`): never
    # handed to it in the caller's memory.
    written_arguments: frozenset[int] = frozenset()


def dlpack_carries(dtype) -> bool:
    """Whether numpy hands an array of `dtype` over DLPack (not bfloat16,
    ml_dtypes' type, which DLPack has no code for in numpy): the others
    are read in place and written into by IREE; a bfloat16 argument is
    copied into IREE's memory, a bfloat16 result copied out of it (it
    gets no output storage)."""
    return np.dtype(dtype).kind in "biufc"


def lower_for_iree(text: str, entry: str, checked: bool, output_storage: bool = False, cpu: bool = True,
                   details: bool = False) -> IreeInput:
    """Parse `text` and lower its `entry` for IREE (module docstring); with
    `output_storage`, the entry also takes the storage of its own results
    (`OUTPUT_STORAGE`) where they have static shapes and DLPack carries
    them; for a `cpu` device, gathers get IREE CPU tiles
    (`iree_cpu_config`); with `details`, each index report says the first
    bad value and its axis size too (`iree_reports.INDEX_REPORT`, else
    `INDEX_COUNTS`). Raises CompileError with located diagnostics."""
    context = make_context()
    diagnostics: list[str] = []

    def capture(diagnostic) -> bool:  # errors of the Python steps, located
        if diagnostic.severity != ir.DiagnosticSeverity.ERROR:
            return False
        diagnostics.append(diagnostic_text(diagnostic))
        return True

    with context, ir.Location.unknown():
        handler = context.attach_diagnostic_handler(capture)
        try:
            return _lower(text, entry, checked, output_storage, cpu, details, diagnostics)
        finally:
            handler.detach()


def _lower(text: str, entry: str, checked: bool, output_storage: bool, cpu: bool, details: bool,
           diagnostics: list[str]) -> IreeInput:
    module = _parse(text)
    entry_op = find_entry(module, entry)
    if entry_op.name != "func.func":
        raise CompileError(f"'@{entry}' is already lowered to the LLVM dialect: the iree backend takes tensor-level modules")
    arguments, results = numpy_signature(entry_op)
    try:
        _run(module, entry, checked)
        entry_op = find_entry(module, entry)
        reporter = Tensors(entry_op, details)
        index_reports = add_index_reports(module.operation, reporter) if checked else []
        if not checked:
            read_nothing_outside(module.operation)
        convert_gmx_to_linalg(module.operation, checked=checked, target="iree", reporter=reporter)
        if checked:
            index_reports += add_scatter_reports(module.operation, reporter)
        reporter.raise_unreported()
        marks = return_reports(entry_op)
        # The index reports in result order (program order), by their sites.
        by_site = {report.site: report for report in index_reports}
        index_reports = [by_site[site] for kind, site in marks if kind == INDEX_KIND]
        kinds = [kind for kind, _ in marks]
        lower_tosa = passmanager.PassManager("builtin.module")
        add_stages(lower_tosa, TOSA_TO_IREE, LowerOptions(checked=checked))
        lower_tosa.run(module.operation)
        drop_empty_ops(module.operation)
        to_iree_linalg_ext(module.operation)
        written = written_arguments(find_entry(module, entry), len(arguments))
        index_switches_as_ifs(module.operation)
        configure_gathers(module.operation, cpu)
        storage = output_storage and all(None not in r.shape and 0 not in r.shape and dlpack_carries(r.dtype)
                                         for r in results)
        if storage:
            _add_output_storage(find_entry(module, entry), len(results))
        locate_asserts(module.operation)
        module.operation.verify()
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None
    except PassFailed as error:
        raise CompileError("\n".join(diagnostics) or str(error)) from None
    iree_text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    return IreeInput(iree_text, arguments, results, error_sites(module.operation), kinds, index_reports, storage,
                     written)


def locate_asserts(module) -> None:
    """Each cf.assert's message becomes what the engine reports for it
    (`file:line:col: reason`, `gmx-report-asserts`): IREE fails the call
    with the message alone (FAILED_PRECONDITION), which the backend raises
    as the engine's ValueError."""
    for op in ops_named(module, ASSERT):
        reason = assert_message(ir.StringAttr(op.attributes["msg"]).value)
        op.attributes["msg"] = ir.StringAttr.get(f"{location_text(op.location)}: {reason}")


# What refuse_unchecked_reads says of each extract --gmx-check-linalg-extracts would scan.
UNCHECKED_READ = ("an element this tensor.extract reads in a linalg.generic's body is read at a position gmx "
                  "cannot check on the iree backend: run it on the engine backend, or checked=false")


def refuse_unchecked_reads(module) -> None:
    """Checked mode: each tensor.extract whose position the engine's
    --gmx-check-linalg-extracts would scan (`checked_reads`: an unraised
    gather, such as embedding_bag's reduction) is a located error
    (Refused): IREE cannot run those scans, and would read outside
    silently. Before StableHLO and TOSA are lowered, as on the engine (the
    extracts their lowerings make are clamped or static)."""
    reads = checked_reads(module)
    for extract in reads:
        extract.location.emit_error(UNCHECKED_READ)
    if reads:
        raise Refused(f"{len(reads)} tensor.extract(s) refused")


def _add_output_storage(entry, results: int) -> None:
    """One more argument per result of the entry's own, after its
    arguments: the buffer IREE writes that result into (OUTPUT_STORAGE), so
    that the caller can hand it memory it reuses, as the engine's callers
    pass destinations. A `!hal.buffer_view`, a type of IREE's, opaque here."""
    entry.context.allow_unregistered_dialects = True
    storage_type = ir.Type.parse(OUTPUT_STORAGE)
    ftype = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
    block = entry.regions[0].blocks[0]
    for _ in range(results):
        block.add_argument(storage_type, ir.Location.unknown())
    inputs = [*ftype.inputs, *[storage_type] * results]
    entry.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, ftype.results))
    index = ir.IndexType.get()
    old = list(ir.ArrayAttr(entry.attributes["arg_attrs"])) if "arg_attrs" in entry.attributes else []
    old += [ir.DictAttr.get({})] * (len(ftype.inputs) - len(old))
    tied = [ir.DictAttr.get({OUTPUT_ATTR: ir.IntegerAttr.get(index, k)}) for k in range(results)]
    entry.attributes["arg_attrs"] = ir.ArrayAttr.get(old + tied)


def _run(module: ir.Module, entry: str, checked: bool) -> None:
    """Steps 1 and 2 (module docstring)."""
    for function in module.body.operations:
        if function.operation.name == "func.func" and ir.StringAttr(function.attributes["sym_name"]).value != entry:
            function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    build_pass_manager([*ENTRY_ONLY, VERIFY_TM_TENSOR, RAISE_GATHERS]).run(module.operation)
    if checked:
        refuse_unchecked_reads(module.operation)
    lower_stablehlo = passmanager.PassManager("builtin.module")
    add_stages(lower_stablehlo, STABLEHLO_LOWERING, LowerOptions(checked=checked))
    lower_stablehlo.run(module.operation)
    if checked:
        require_checkable_indices(module.operation)
