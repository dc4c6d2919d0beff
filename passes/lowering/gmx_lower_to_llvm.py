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

Parallel loops run on OpenMP: the parallel dims of linalg ops and the
loops the gather builder marks parallel, the outermost worth the threads
(gmx-parallel-loops), through upstream's convert-scf-to-openmp.

Every other stage but convert-gmx-to-linalg, gmx-stream-row-copies, gmx-prefetch-rows
and the parallel loops' gmx-parallel-loops and gmx-parallel-bodies is upstream. Function
boundaries bufferize to identity-layout memrefs and results are owned by the caller (the ownership-
based deallocation pipeline clones what a function does not own), so a
caller can free each returned buffer once. Nothing here emits calls into
MLIR's runner-utils library, which this build's ExecutionEngine lacks.
Public functions are prepared first and their arguments marked noalias
last (`entry_points`); half-precision values that are only copied are
copied as integers, bit for bit (`exact_moves`).

The pipeline is declared once, as data: `TO_LINALG`, `TO_LOOPS` and
`TO_LLVM` list its stages in order, each an upstream pipeline element
(`Upstream`), a registered gmx pass with options derived from the
lowering's (`GmxPass`), or a named Python step that is no flag of its own
(`Step`), each with the condition under which it runs. The pass
(`add_lowering`), the runtime's pipeline and gmx-study's views of a level
(`stages(options, until=...)`) are all built from it, and every stage shows
under its own name in --mlir-print-ir-after-all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Union

from gmx.dialect.mlir import ir, passmanager

from . import (
    convert_gmx_to_linalg,
    gmx_check_scatter_indices,
    gmx_destination_passing,
    gmx_lower_tosa_negate,
    gmx_parallel_bodies,
    gmx_parallel_loops,
    gmx_prefetch_rows,
    gmx_stream_row_copies,
)
from .entry_points import mark_arguments_noalias, prepare_entry_points
from .exact_moves import move_halves_as_integers
from ..raising import gmx_canonicalize
from ..registry import PassFailed, PassInfo, PassOption, add_python_pass

ARGUMENT = "gmx-lower-to-llvm"


@dataclass(frozen=True)
class LowerOptions:
    """--gmx-lower-to-llvm's options, typed. The flag spells each field in
    kebab case (a `some_option` is `some-option`); PASS.options derives from
    these fields, so the two cannot disagree."""

    checked: bool = field(default=True, metadata={"help": "bounds-check gathered indices at run time"})
    destinations: bool = field(
        default=False,
        metadata={"help": "public functions write their results into buffers the caller passes (gmx-destination-passing)"},
    )

    @classmethod
    def from_flag(cls, values: Mapping[str, bool]) -> LowerOptions:
        """The options of a parsed flag (`{"checked": False, ...}`)."""
        return cls(**{name.replace("-", "_"): value for name, value in values.items()})

    def flag_values(self) -> dict[str, bool]:
        """These options as the flag names them."""
        return {_flag_name(f.name): getattr(self, f.name) for f in fields(self)}

    def flag(self) -> str:
        """The command-line flag lowering with these options
        (`--gmx-lower-to-llvm=checked=false`), defaults left out."""
        spelled = PASS.spell(self.flag_values())
        return f"--{ARGUMENT}" + (f"={spelled}" if spelled else "")


def _flag_name(field_name: str) -> str:
    return field_name.replace("_", "-")


# --- the kinds of stage ---------------------------------------------------------

Condition = Callable[[LowerOptions], bool]


def always(options: LowerOptions) -> bool:
    return True


def checked(options: LowerOptions) -> bool:
    return options.checked


def with_destinations(options: LowerOptions) -> bool:
    return options.destinations


@dataclass(frozen=True)
class Upstream:
    """An upstream pass or nested pipeline, as a textual pipeline element
    under builtin.module (`cse`, `func.func(tosa-to-linalg)`)."""

    element: str
    when: Condition = always

    @property
    def name(self) -> str:
        return self.element

    def add_to(self, pm: passmanager.PassManager, options: LowerOptions) -> None:
        pm.add(self.element)


@dataclass(frozen=True)
class GmxPass:
    """A registered gmx pass; `options` gives its option values from the
    lowering's (values, never text)."""

    info: PassInfo
    options: Callable[[LowerOptions], Mapping[str, bool]] = lambda _: {}
    when: Condition = always

    def values(self, options: LowerOptions) -> dict[str, bool]:
        return self.info.option_values(self.options(options))

    def spelled(self, options: LowerOptions) -> str:
        """`convert-gmx-to-linalg{checked=false}`, as a pipeline element."""
        text = self.info.spell(self.options(options))
        return self.info.argument + (f"{{{text}}}" if text else "")

    @property
    def name(self) -> str:
        return self.info.argument

    def add_to(self, pm: passmanager.PassManager, options: LowerOptions) -> None:
        self.info.build(pm, self.values(options))


@dataclass(frozen=True)
class Step:
    """A step of this lowering that is no flag of its own: `run(module)`,
    a Python pass named `argument` (as --mlir-print-ir-after-all shows it);
    it fails the pipeline by raising PassFailed after emitting its errors."""

    argument: str
    description: str
    run: Callable[[ir.Operation], None]
    when: Condition = always

    @property
    def name(self) -> str:
        return self.argument

    def add_to(self, pm: passmanager.PassManager, options: LowerOptions) -> None:
        add_python_pass(pm, self.run, self)


Stage = Union[Upstream, GmxPass, Step]


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


# --- the pipeline, declared once ----------------------------------------------

# Upstream's tosa-to-linalg-pipeline (`addTosaToLinalgPasses` in
# mlir/lib/Conversion/TosaToLinalg/TosaToLinalgPass.cpp), pass for pass and
# nested as there, minus its `tosa-attach-target` and `tosa-validate`: that
# validation checks TOSA's profiles, not what the lowering can compile, and
# rejects what torch-mlir really emits (f64 constants in LayerNorm, casts
# from i64, gathers and scatters on i64 data, dynamic dims beyond a level).
TOSA_TO_LINALG = tuple(
    Upstream(element)
    for element in (
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
)

# Every gmx op becomes linalg; the frontends' other ops are as they were.
TO_LINALG: tuple[Stage, ...] = (
    Step("gmx-prepare-entry-points", "public functions: C interface, gmx.signature, read-only arguments",
         prepare_entry_points),
    GmxPass(gmx_destination_passing.PASS, when=with_destinations),
    # Every tosa.gather and tensor.gather raised into gmx, nothing fused.
    GmxPass(gmx_canonicalize.PASS, lambda o: {"fuse": False}),
    Step("gmx-require-raised-tosa-gathers", "checked: a tosa.gather left unraised is an error",
         require_no_tosa_gather, when=checked),
    GmxPass(convert_gmx_to_linalg.PASS, lambda o: {"checked": o.checked}),
    GmxPass(gmx_check_scatter_indices.PASS, when=checked),
)

# Everything on tensors becomes loops on memrefs (structured control flow).
TO_LOOPS: tuple[Stage, ...] = (
    # What is left of StableHLO (everything but its raised gathers) becomes
    # linalg, tensor and arith on tensors; upstream's stablehlo.gather
    # lowering clamps, so one left unraised runs as StableHLO defines it.
    Upstream("stablehlo-legalize-to-linalg"),
    # Integer negates that upstream's tosa-to-linalg gets wrong (i64) or
    # saturates (narrower), as subtractions from 0.
    GmxPass(gmx_lower_tosa_negate.PASS),
    # Scatters (and tosa.cond_if, tosa.while_loop) become scf loops, before
    # tosa-to-linalg, which has no pattern for them.
    Upstream("func.func(tosa-to-scf)"),
    *TOSA_TO_LINALG,
    Upstream("func.func(tosa-to-tensor)"),
    Upstream("tosa-to-arith"),
    Upstream("canonicalize"),
    Upstream("cse"),
    # With destinations, the tensor.empty each result starts from becomes
    # the caller's buffer (upstream), just before bufferization (see
    # gmx_destination_passing for the steps around it). The result then is
    # the destination, through branches that all yield it and a copy of it
    # onto itself: canonicalization folds both away right after.
    Step("gmx-one-empty-per-use", "destinations: one tensor.empty per use",
         gmx_destination_passing.one_empty_per_use, when=with_destinations),
    Upstream("eliminate-empty-tensors", when=with_destinations),
    Step("gmx-forget-materializations", "destinations: drop the materializations the destinations made",
         gmx_destination_passing.forget_materializations, when=with_destinations),
    Upstream(
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map "
        "unknown-type-conversion=identity-layout-map}"
    ),
    Upstream("canonicalize", when=with_destinations),  # folds the self-copies
    Step("gmx-drop-destination-results", "destinations: entries return nothing, their results are the destinations",
         gmx_destination_passing.drop_destination_results, when=with_destinations),
    # The i1 flag of each index scan: a stack slot, not a malloc per tile.
    Upstream("func.func(promote-buffers-to-stack)"),
    Upstream("buffer-deallocation-pipeline"),
    Upstream("convert-bufferization-to-memref"),
    # Parallel dims of linalg ops become scf.parallel; gmx-parallel-loops
    # keeps the outermost ones worth the threads (and the loops the gather
    # builder marked parallel) as 1-D scf.parallel, the others scf.for.
    Upstream("convert-linalg-to-parallel-loops"),
    GmxPass(gmx_parallel_loops.PASS),
    GmxPass(gmx_stream_row_copies.PASS),
    GmxPass(gmx_prefetch_rows.PASS),
    # Each parallel loop's body a function of its own whose buffers are
    # noalias arguments (OpenMP's outlining would lose what the entry's
    # noalias arguments say).
    GmxPass(gmx_parallel_bodies.PASS),
)

# Loops on memrefs become the LLVM dialect.
TO_LLVM: tuple[Stage, ...] = (
    # Each scf.parallel left becomes an OpenMP region (libomp, loaded by
    # gmx.runtime); canonicalize inlines the memref.alloca_scope each
    # region's body is left in (with a loop nested in it, convert-scf-to-cf
    # would fail on it; the body is a call, its stack slots the callee's).
    Upstream("convert-scf-to-openmp"),
    Upstream("canonicalize"),
    Upstream("convert-scf-to-cf"),
    # Slices of a tiled gather are subviews; their metadata expands to
    # affine.apply, lowered right after.
    Upstream("expand-strided-metadata"),
    Upstream("lower-affine"),
    Upstream("finalize-memref-to-llvm{use-aligned-alloc}"),
    # Math ops with an LLVM intrinsic become it; the others (math.erf of
    # exact GELU, which LLVM has no intrinsic for) become calls to libm
    # (erff), as upstream's sparsifier pipeline orders these two passes.
    Upstream("func.func(convert-math-to-llvm)"),
    Upstream("convert-math-to-libm"),
    Upstream("convert-openmp-to-llvm"),
    Upstream("convert-to-llvm"),
    Upstream("reconcile-unrealized-casts"),
    Step("gmx-move-halves-as-integers", "half-precision values only copied are copied as integers",
         move_halves_as_integers),
    Step("gmx-mark-arguments-noalias", "entry points' pointer arguments are noalias", mark_arguments_noalias),
)

# The levels a program passes through, in order: the stages that take it
# from the previous level to each.
LEVELS: dict[str, tuple[Stage, ...]] = {"linalg": TO_LINALG, "loops": TO_LOOPS, "llvm": TO_LLVM}


def stages(options: LowerOptions, until: str = "llvm") -> list[Stage]:
    """The stages that run with `options`, in order, up to level `until`
    (one of LEVELS): what --gmx-lower-to-llvm has made of a program there."""
    if until not in LEVELS:
        raise ValueError(f"no level '{until}' (levels: {', '.join(LEVELS)})")
    found: list[Stage] = []
    for level, declared in LEVELS.items():
        found += [s for s in declared if s.when(options)]
        if level == until:
            return found
    raise AssertionError("unreachable")


def add_lowering(pm: passmanager.PassManager, options: LowerOptions, until: str = "llvm") -> None:
    """Append the lowering with `options`, up to level `until`, to pm."""
    for stage in stages(options, until):
        stage.add_to(pm, options)


def _build(pm, values) -> None:
    add_lowering(pm, LowerOptions.from_flag(values))


PASS = PassInfo(
    argument=ARGUMENT,
    description="Lower gmx, TOSA, StableHLO, linalg, tensor and arith on tensors to the LLVM dialect",
    build=_build,
    options=tuple(PassOption(_flag_name(f.name), f.default, f.metadata["help"]) for f in fields(LowerOptions)),
)
