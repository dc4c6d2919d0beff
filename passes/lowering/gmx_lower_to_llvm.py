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
gmx-check-scatter-indices, since those loops write unchecked indices (and
torch-mlir's tm_tensor.scatter behind gmx-check-tm-tensor-scatter).

Beyond gathers: StableHLO's sort and control flow (gmx-lower-stablehlo-sort,
-control-flow) and its reduces upstream refuses (gmx-lower-stablehlo-degenerate-reduce), CHLO, torch-mlir's TMTensor ops (verified first:
gmx-verify-tm-tensor; gmx-bufferize-tm-tensor, tm-tensor-to-loops), integer tosa.negate (gmx-lower-tosa-negate), arith and
math on tensors, loops carrying tensors. An op of a frontend dialect left
before bufferization is a located error naming it (gmx-require-tensor-level).
Every cf.assert reports to the runtime instead of aborting
(gmx-report-asserts); checked, the sizes ops require equal are asserted
(gmx-check-shapes).

Parallel loops run on OpenMP: the parallel dims of linalg ops and the
loops the gather builder marks parallel, the outermost worth the threads
(gmx-parallel-loops), through upstream's convert-scf-to-openmp.

Function boundaries bufferize to identity-layout memrefs and results are
owned by the caller (the ownership-based deallocation pipeline clones what
a function does not own), so a caller can free each returned buffer once.
Nothing here emits calls into MLIR's runner-utils library, which this
build's ExecutionEngine lacks. Public functions are prepared first and
their arguments marked noalias last (`entry_points`); half-precision
values that are only copied are copied as integers, bit for bit
(`exact_moves`).

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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Union

from gmx.dialect.mlir import ir, passmanager

from . import (
    convert_gmx_to_linalg,
    gmx_bufferize_tm_tensor,
    gmx_check_linalg_extracts,
    gmx_check_scatter_indices,
    gmx_check_shapes,
    gmx_check_slices,
    gmx_check_tm_tensor_scatter,
    gmx_destination_passing,
    gmx_fold_tm_tensor_scatter_casts,
    gmx_lower_stablehlo_control_flow,
    gmx_lower_stablehlo_degenerate_reduce,
    gmx_lower_stablehlo_sort,
    gmx_lower_tosa_negate,
    gmx_parallel_bodies,
    gmx_parallel_loops,
    gmx_prefetch_rows,
    gmx_report_asserts,
    gmx_stream_row_copies,
    gmx_verify_tm_tensor,
)
from .block_pieces import split_long_blocks
from .entry_points import mark_arguments_noalias, prepare_entry_points
from .exact_moves import move_halves_as_integers
from .strided_copies import strided_copies_as_loops
from ..raising import gmx_canonicalize
from ..registry import PassInfo, PassOption, Refused, add_python_pass

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


# Ops whose indices checked mode cannot check, and why.
UNCHECKABLE = {
    "tosa.gather": "tosa.gather was not raised into gmx.gather_multiaxis, so it cannot be bounds-checked",
}


def _refuse(module, reason: Callable[[ir.Operation], str | None]) -> None:
    """A located error for each op of `module` that `reason` gives a
    message for; Refused if there was any."""
    refused = []

    def collect(op):
        message = reason(op.operation)
        if message is None:
            return ir.WalkResult.ADVANCE
        refused.append((op.location, message))
        return ir.WalkResult.SKIP  # its nested ops are refused with it

    module.walk(collect)
    for location, message in refused:
        location.emit_error(message)
    if refused:
        raise Refused(f"{len(refused)} op(s) refused")


def require_checkable_indices(module) -> None:
    """Checked mode: an op of UNCHECKABLE would be lowered by upstream
    without a bounds check. Each one is a located error (Refused)."""
    _refuse(module, lambda op: f"{UNCHECKABLE[op.name]} (lower with checked=false to run it unchecked)"
            if op.name in UNCHECKABLE else None)


# Dialects none of whose ops may be left once the program is on tensors
# alone (before bufferization), and why one that is has no lowering.
NO_LOWERING = {
    "stablehlo": "upstream's stablehlo-legalize-to-linalg, gmx-lower-stablehlo-sort, "
    "gmx-lower-stablehlo-control-flow and gmx-lower-stablehlo-degenerate-reduce leave it",
    "chlo": "upstream's chlo-legalize-to-stablehlo leaves it",
    "tosa": "upstream's tosa-to-linalg, tosa-to-tensor, tosa-to-arith and tosa-to-scf leave it",
    "torch": "gmx lowers no torch dialect op (export with output_type tosa, linalg-on-tensors or stablehlo)",
    "torch_c": "gmx lowers no torch dialect op (export with output_type tosa, linalg-on-tensors or stablehlo)",
    "gmx": "convert-gmx-to-linalg leaves it",
}


def require_tensor_level(module) -> None:
    """Every op of a NO_LOWERING dialect still there has no lowering:
    each is a located error naming it and why (Refused), instead of an
    "op was not bufferized" later."""

    def reason(op) -> str | None:
        why = NO_LOWERING.get(op.name.split(".", 1)[0])
        return None if why is None else f"'{op.name}' has no lowering: {why}"

    _refuse(module, reason)


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

# Every TOSA op but its gathers (raised into gmx before) becomes linalg,
# tensor, arith or scf on tensors; gmx.runtime's iree backend lowers TOSA
# with the same stages.
TOSA_LOWERING: tuple[Stage, ...] = (
    # Integer negates that upstream's tosa-to-linalg gets wrong (i64) or
    # saturates (narrower), as subtractions from 0.
    GmxPass(gmx_lower_tosa_negate.PASS),
    # Scatters (and tosa.cond_if, tosa.while_loop) become scf loops, before
    # tosa-to-linalg, which has no pattern for them.
    Upstream("func.func(tosa-to-scf)"),
    *TOSA_TO_LINALG,
    Upstream("func.func(tosa-to-tensor)"),
    Upstream("tosa-to-arith"),
)

# Every StableHLO op but its gathers (raised into gmx before) becomes
# linalg, tensor, arith, tm_tensor.sort or scf on tensors; gmx.runtime's
# iree backend lowers StableHLO with the same stages.
STABLEHLO_LOWERING: tuple[Stage, ...] = (
    # CHLO (JAX's top_k) as StableHLO; every stablehlo.sort and control
    # flow op, which upstream does not lower, as torch-mlir's tm_tensor.sort
    # (bufferized below) and scf.
    Upstream("func.func(chlo-legalize-to-stablehlo)"),
    GmxPass(gmx_lower_stablehlo_sort.PASS),
    GmxPass(gmx_lower_stablehlo_control_flow.PASS),
    # Reduces over no dims (torch-mlir's rank-0 sums) or over an input
    # with a size-0 dim, which upstream refuses: over a unit dim, or the
    # init.
    GmxPass(gmx_lower_stablehlo_degenerate_reduce.PASS),
    # What is left of StableHLO (everything but its raised gathers) becomes
    # linalg, tensor and arith on tensors; upstream's stablehlo.gather
    # lowering clamps, so one left unraised runs as StableHLO defines it.
    Upstream("stablehlo-legalize-to-linalg"),
)

# Every gmx op becomes linalg; the frontends' other ops are as they were.
TO_LINALG: tuple[Stage, ...] = (
    # torch-mlir's tm_tensor ops whose attributes their lowering would
    # trust (a scan's dimension, a scatter's shapes): located errors first.
    GmxPass(gmx_verify_tm_tensor.PASS),
    # The casts into a tm_tensor.scatter's updates and indices folded
    # together, before any canonicalize folds one alone (torch-mlir's
    # index_put with a boolean mask: a static update count, a dynamic
    # index count) into a scatter its verifier rejects.
    GmxPass(gmx_fold_tm_tensor_scatter_casts.PASS),
    Step("gmx-prepare-entry-points", "public functions: C interface, gmx.signature, read-only arguments",
         prepare_entry_points),
    GmxPass(gmx_destination_passing.PASS, when=with_destinations),
    # Every tosa.gather and tensor.gather raised into gmx, nothing fused.
    GmxPass(gmx_canonicalize.PASS, lambda o: {"fuse": False}),
    Step("gmx-require-checkable-indices", "checked: an op whose indices cannot be checked is an error",
         require_checkable_indices, when=checked),
    # Checked: slices and elements the data places (a KV-cache update at a
    # position read from an argument) accessed only inside their tensor;
    # before the gathers are lowered, whose own slices are in bounds.
    GmxPass(gmx_check_slices.PASS, when=checked),
    # Checked: elements a linalg.generic's body reads at positions the data
    # gives (an unraised gather: embedding_bag's reduction) read only
    # inside their tensor; before the gathers are lowered, whose own
    # extracts are in bounds.
    GmxPass(gmx_check_linalg_extracts.PASS, when=checked),
    GmxPass(convert_gmx_to_linalg.PASS, lambda o: {"checked": o.checked}),
    GmxPass(gmx_check_scatter_indices.PASS, when=checked),
    GmxPass(gmx_check_tm_tensor_scatter.PASS, when=checked),
)

# Everything on tensors becomes loops on memrefs (structured control flow).
TO_LOOPS: tuple[Stage, ...] = (
    *STABLEHLO_LOWERING,
    *TOSA_LOWERING,
    # Elementwise arith and math on tensors (written by hand, or what the
    # frontends leave) as linalg.generic: bufferization has no other way.
    Upstream("func.func(convert-elementwise-to-linalg)"),
    Upstream("canonicalize"),
    Upstream("cse"),
    Step("gmx-require-tensor-level", "what no pass lowered is an error naming the op",
         require_tensor_level),
    # Checked: the sizes ops require equal, asserted; every cf.assert (those
    # and the frontends' own) reported to the runtime, never an abort.
    GmxPass(gmx_check_shapes.PASS, when=checked),
    GmxPass(gmx_report_asserts.PASS),
    # torch-mlir's tm_tensor ops (cumsum, sort, topk, scatter in its
    # linalg-on-tensors export) on buffers; loops after bufferization.
    GmxPass(gmx_bufferize_tm_tensor.PASS),
    # With destinations, the tensor.empty each result starts from becomes
    # the caller's buffer (upstream), just before bufferization (see
    # gmx_destination_passing for the steps around it). The result then is
    # the destination, through branches that all yield it and a copy of it
    # onto itself: canonicalization folds both away right after.
    # Every mode: after CSE one tensor.empty (or its linalg.fill) is the
    # destination of every same-typed op of a function, and
    # one-shot-bufferize's analysis of a value with N uses is quadratic in N
    # (800 gathers of one function: 6 s, split 0.15 s).
    Step("gmx-one-empty-per-use", "one tensor.empty per use (linear bufferization; destinations: each result's own)",
         gmx_destination_passing.one_empty_per_use),
    Upstream("eliminate-empty-tensors", when=with_destinations),
    Step("gmx-forget-materializations", "destinations: drop the materializations the destinations made",
         gmx_destination_passing.forget_materializations, when=with_destinations),
    Upstream(
        # Loops carrying tensors (scf.for/scf.while iter_args) may yield
        # new buffers each iteration; the deallocation pipeline frees them.
        "one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries "
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
    Upstream("func.func(tm-tensor-to-loops)"),
    # Copies into strided views (a slice inserted into a buffer) as loops,
    # not calls of the runtime's memrefCopy (Python).
    Step("gmx-strided-copies-as-loops", "strided memref.copy as linalg.copy", strided_copies_as_loops),
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
    # Linear, not quadratic, in a block's loops: scf-to-cf moves every op
    # after a loop once per loop.
    Step("gmx-split-long-blocks", "long blocks split after their loops (linear scf-to-cf)", split_long_blocks),
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
    add_stages(pm, stages(options, until), options)


def add_stages(pm: passmanager.PassManager, chosen: Sequence[Stage], options: LowerOptions) -> None:
    """Append `chosen` stages, each as `options` set it, to pm."""
    for stage in chosen:
        stage.add_to(pm, options)


def _build(pm, values) -> None:
    add_lowering(pm, LowerOptions.from_flag(values))


PASS = PassInfo(
    argument=ARGUMENT,
    description="Lower gmx, TOSA, StableHLO, linalg, tensor and arith on tensors to the LLVM dialect",
    build=_build,
    options=tuple(PassOption(_flag_name(f.name), f.default, f.metadata["help"]) for f in fields(LowerOptions)),
)
