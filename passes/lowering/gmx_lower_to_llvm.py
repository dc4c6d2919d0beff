"""`--gmx-lower-to-llvm`: tensors (gmx, TOSA, StableHLO, linalg, tensor,
arith) to the LLVM dialect, ready for the ExecutionEngine.

Every `tosa.gather` is first raised into `gmx.gather_multiaxis` (raise-tosa-gather
alone, `gmx-canonicalize{fuse=false}`: `axes = [1]`, nothing else fused), so
that checked mode holds for TOSA's gathers too: upstream's tosa-to-linalg
reads out of bounds on a bad index. Unchecked (`checked=false`) they are
raised the same way and lowered without the check; checked, a tosa.gather
left unraised (a pattern failure) is a located error, never lowered unchecked.
Every `tensor.gather`, which no upstream pass lowers, is raised in the same
stage (raise-tensor-gather) and so lowered as gmx.

Every tosa.scatter becomes upstream's tosa-to-scf loops; checked, behind
gmx-check-scatter-indices, since those loops write unchecked indices.

Every other stage but convert-gmx-to-linalg, gmx-stream-row-copies and gmx-prefetch-rows is upstream. Function
boundaries bufferize to identity-layout memrefs and results are owned by the caller (the ownership-
based deallocation pipeline clones what a function does not own), so a
caller can free each returned buffer once. Nothing here emits calls into
MLIR's runner-utils library, which this build's ExecutionEngine lacks.
Public functions are prepared first and their arguments marked noalias
last (`entry_points`); half-precision values that are only copied are
copied as integers, bit for bit (`exact_moves`).
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from . import (
    convert_gmx_to_linalg,
    gmx_check_scatter_indices,
    gmx_destination_passing,
    gmx_parallel_loops,
    gmx_prefetch_rows,
    gmx_row_ranges,
    gmx_stream_row_copies,
    gmx_thread_scratch,
)
from .entry_points import mark_arguments_noalias, prepare_entry_points
from .exact_moves import move_halves_as_integers
from ..elements import add_element
from ..raising import gmx_canonicalize
from ..registry import PassFailed, PassInfo, PassOption, PassOptionError, add_python_pass

# Its gmx stages; every other flag is upstream's.
_GMX_STAGES = {
    p.argument: p
    for p in (
        gmx_canonicalize.PASS,
        convert_gmx_to_linalg.PASS,
        gmx_check_scatter_indices.PASS,
        gmx_stream_row_copies.PASS,
        gmx_prefetch_rows.PASS,
        gmx_parallel_loops.PASS,
        gmx_thread_scratch.PASS,
    )
}
RAISE_TOSA_GATHERS = "gmx-canonicalize{fuse=false}"

# Upstream's tosa-to-linalg-pipeline (`addTosaToLinalgPasses` in
# mlir/lib/Conversion/TosaToLinalg/TosaToLinalgPass.cpp), pass for pass and
# nested as there, minus its `tosa-attach-target` and `tosa-validate`: that
# validation checks TOSA's profiles, not what the lowering can compile, and
# rejects what torch-mlir really emits (f64 constants in LayerNorm, casts
# from i64, gathers and scatters on i64 data, dynamic dims beyond a level).
TOSA_TO_LINALG = (
    "func.func(tosa-optional-decompositions)",
    "func.func(canonicalize)",
    "func.func(tosa-infer-shapes)",
    "func.func(tosa-make-broadcastable)",
    "func.func(tosa-to-linalg-named)",
    "func.func(canonicalize)",
    "func.func(tosa-layerwise-constant-fold)",
    "func.func(tosa-make-broadcastable)",
    "func.func(tosa-to-linalg)",
)

STAGES = (
    # What is left of StableHLO (everything but its raised gathers) becomes
    # linalg, tensor and arith on tensors; upstream's stablehlo.gather
    # lowering clamps, so one left unraised runs as StableHLO defines it.
    "stablehlo-legalize-to-linalg",
    # Scatters (and tosa.cond_if, tosa.while_loop) become scf loops, before
    # tosa-to-linalg, which has no pattern for them.
    "func.func(tosa-to-scf)",
    *TOSA_TO_LINALG,
    "func.func(tosa-to-tensor)",
    "tosa-to-arith",
    "canonicalize",
    "cse",
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "unknown-type-conversion=identity-layout-map}",
    # The i1 flag of each index scan: a stack slot, not a malloc per tile.
    "func.func(promote-buffers-to-stack)",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    # Parallel dims of linalg ops become scf.parallel; gmx-parallel-loops
    # keeps the outermost ones worth the threads (and the gather builder's
    # marked loops), which convert-scf-to-openmp makes OpenMP regions.
    "convert-linalg-to-parallel-loops",
    "gmx-parallel-loops",
    "gmx-stream-row-copies",
    "gmx-prefetch-rows",
    "convert-scf-to-openmp",
    # A stack slot per thread, not per iteration; then canonicalize inlines
    # the memref.alloca_scope convert-scf-to-openmp leaves in each region
    # (a nested scf.for in one would break convert-scf-to-cf).
    "gmx-thread-scratch",
    "canonicalize",
    "convert-scf-to-cf",
    # Slices of a tiled gather are subviews; their metadata expands to
    # affine.apply, lowered right after.
    "expand-strided-metadata",
    "lower-affine",
    "finalize-memref-to-llvm{use-aligned-alloc}",
    # Math ops with an LLVM intrinsic become it; the others (math.erf of
    # exact GELU, which LLVM has no intrinsic for) become calls to libm
    # (erff), as upstream's sparsifier pipeline orders these two passes.
    "func.func(convert-math-to-llvm)",
    "convert-math-to-libm",
    "convert-openmp-to-llvm",
    "convert-to-llvm",
    "reconcile-unrealized-casts",
)


# With destinations, the tensor.empty each result starts from becomes the
# caller's buffer (upstream), just before bufferization (see
# gmx_destination_passing for the steps around it). The result then is
# the destination, through branches that all yield it and a copy of it
# onto itself: canonicalization folds both away right after.
ELIMINATE_EMPTY_TENSORS = "eliminate-empty-tensors"
FOLD_SELF_COPIES = "canonicalize"


def loop_level_elements(checked: bool = True) -> list[str]:
    """Pipeline elements (for `build_pass_manager`) taking a tensor module to
    its loop level: what `--gmx-lower-to-llvm` has made of it just before
    structured control flow is lowered to branches (scf loops on memrefs).
    Tools that show the lowering stage by stage (gmx-study) use this."""
    elements = _elements(checked)
    stop = next(i for i, s in enumerate(elements) if s.startswith("convert-scf-to-cf"))
    return elements[:stop]


def _elements(checked: bool, destinations: bool = False) -> list[str]:
    """Raising tosa.gathers, convert-gmx-to-linalg, checked the scatters'
    guards, then STAGES (gmx and upstream pass flags), with destinations
    eliminate-empty-tensors before bufferization."""
    scatter_checks = [gmx_check_scatter_indices.PASS.argument] if checked else []
    stages = list(STAGES)
    if destinations:
        bufferize = next(i for i, s in enumerate(stages) if s.startswith("one-shot-bufferize"))
        stages[bufferize:bufferize + 1] = [ELIMINATE_EMPTY_TENSORS, stages[bufferize], FOLD_SELF_COPIES]
    return [RAISE_TOSA_GATHERS, f"convert-gmx-to-linalg{{checked={str(checked).lower()}}}", *scatter_checks, *stages]


def require_no_tosa_gather(module) -> None:
    """Checked mode: a tosa.gather still there would be lowered by upstream
    without a bounds check. Each one is a located error (PassFailed)."""
    gathers = []

    def collect(op):
        if op.name == "tosa.gather":
            gathers.append(op.location)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    for location in gathers:
        location.emit_error(
            "tosa.gather was not raised into gmx.gather_multiaxis, so it cannot be bounds-checked "
            "(lower with checked=false to run it unchecked)"
        )
    if gathers:
        raise PassFailed(f"{len(gathers)} unchecked tosa.gather")


def _build(pm, options) -> None:
    add_python_pass(pm, prepare_entry_points, PASS)
    if options["destinations"]:
        gmx_destination_passing.PASS.add_to(pm)
    raising, *rest = _elements(options["checked"], options["destinations"])
    add_element(pm, raising, _GMX_STAGES.get)
    if options["checked"]:
        add_python_pass(pm, require_no_tosa_gather, PASS)
    if options["row-ranges"]:
        if not options["destinations"]:
            raise PassOptionError("'gmx-lower-to-llvm' option 'row-ranges' needs 'destinations'")
        gmx_row_ranges.PASS.add_to(pm, f"checked={str(options['checked']).lower()}")
    bufferized = False
    for element in rest:
        if element == ELIMINATE_EMPTY_TENSORS:
            add_python_pass(pm, gmx_destination_passing.one_empty_per_use, PASS)
        add_element(pm, element, _GMX_STAGES.get)
        if element == ELIMINATE_EMPTY_TENSORS:
            add_python_pass(pm, gmx_destination_passing.forget_materializations, PASS)
        if bufferized and element == FOLD_SELF_COPIES and options["destinations"]:
            add_python_pass(pm, gmx_destination_passing.drop_destination_results, PASS)
        bufferized = element.startswith("one-shot-bufferize")
    add_python_pass(pm, move_halves_as_integers, PASS)
    add_python_pass(pm, mark_arguments_noalias, PASS)


PASS = PassInfo(
    argument="gmx-lower-to-llvm",
    description="Lower gmx, TOSA, StableHLO, linalg, tensor and arith on tensors to the LLVM dialect",
    build=_build,
    options=(
        PassOption("checked", True, "bounds-check gathered indices at run time"),
        PassOption("destinations", False, "public functions write their results into buffers the caller passes (gmx-destination-passing)"),
        PassOption("row-ranges", False, "with destinations, an entry computes any range of its result's rows (gmx-row-ranges, for threads)"),
    ),
)
