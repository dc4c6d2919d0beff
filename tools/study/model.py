"""gmx-study --model: a whole program fused against unfused, gather by
gather and scatter by scatter.

The program is a model of the real-program corpus (`experiments.models`,
by name), a program of the scatter corpus (`experiments.scatter_corpus`,
`NAME@FORM`), a user's TOSA `.mlir` file or an `.onnx` file (imported by
torch-mlir). It goes through two pipelines:

    fused    --gmx-canonicalize: each gather and scatter raised and its
             linearisation fused
    unfused  --gmx-canonicalize{fuse=false}: each tosa.gather and
             stablehlo.scatter raised alone, its linearisation kept, a
             tosa.scatter or tm_tensor.scatter left as it is (what the
             runtime does to bare gathers and scatters)

Per gather and per scatter, by source line (`experiments.sites`): the
gmx op the fused pipeline made of it (axes, and its mode and reduction
where they are not the defaults) and the ops in front of it in each (its
index computation and the views of its data); a gather the fused pipeline
turned into a slice, a view or a constant has no op there. Then each program's op count, compile time (the pipeline plus
gmx.runtime's lowering and JIT), whether its results are right (against
eager PyTorch or ONNX's reference evaluator within the model's tolerance;
for a user's .mlir file, fused against unfused, bit for bit) and run time
(medians of interleaved calls: both on one thread, and fused on the
usable cores, `fused Nt`, its parallel loops on OpenMP).
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from gmx.dialect import make_context
from gmx.dialect.reductions import DEFAULT_REDUCTION
from gmx.dialect.errors import GmxError
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir
from gmx.runtime import CompiledProgram, CompileError
from gmx.runtime.threads import usable_cores

from ..experiments.sites import Site, gather_sites, linearisation_left, scatter_sites
from ..experiments.pipelines import run_pipeline
from ..experiments.tables import fmt_ms, fmt_ratio, text_table
from ..experiments.timing import measure, median_ms
from .stages import rules_text

PIPELINES = {"fused": ["gmx-canonicalize"], "unfused": ["gmx-canonicalize{fuse=false}"]}
SUFFIXES = (".mlir", ".onnx")


class ModelError(GmxError):
    """The program cannot be studied; the message is one line."""


@dataclass
class ModelCase:
    """A whole program at its inputs."""

    name: str
    what: str
    text: str  # the program (TOSA, or the corpus model's form) with locations
    entry: str
    inputs: tuple[np.ndarray, ...]
    expected: tuple[np.ndarray, ...] | None  # None: fused is compared with unfused
    tolerance: float = 0.0
    kept: tuple = ()  # the program's own index arithmetic (corpus_base.RealProgram.kept)
    # the gathers of the source as its form spells them (corpus_base.source_gathers);
    # None: the tosa.gathers the unfused pipeline raises
    source_gathers: int | None = None


@dataclass
class Contender:
    """One pipeline's program: its gathers, op count, compile and run."""

    name: str
    sites: list[Site] = field(default_factory=list)  # its gathers
    scatters: list[Site] = field(default_factory=list)
    ops: int = 0
    pass_s: float = 0.0
    compile_s: float | None = None
    status: str = ""  # equal, within tolerance, wrong: ..., does not compile: ...
    samples: list[float] = field(default_factory=list)
    program: CompiledProgram | None = None  # on one thread
    call: object = None
    result: object = None

    @property
    def ok(self) -> bool:
        return self.status in ("equal", "within tolerance", "the reference")


# --- the program -------------------------------------------------------------------


def load_case(spec: str, inputs: list[str], entry: str | None) -> ModelCase:
    """The program `spec` names: a corpus model, or a .mlir / .onnx file.
    Raises ModelError (one line) when it cannot be loaded or exported."""
    from ..experiments import models, scatter_corpus
    from ..experiments.frontends import FrontendError

    try:
        if spec in models.MODELS:
            return _corpus_case(models.MODELS[spec])
        if spec in scatter_corpus.MODELS:
            return _scatter_case(spec, *scatter_corpus.MODELS[spec])
        if spec.endswith(".onnx"):
            return _onnx_case(spec, inputs)
        return _mlir_case(spec, inputs, entry or "main")
    except FrontendError as error:
        raise ModelError(f"{spec}: {error}") from None


def _corpus_case(program) -> ModelCase:
    from ..experiments import corpus_base

    built = program.build()
    text = corpus_base.export(built, form=program.form, locations=True)
    with make_context():
        sources = corpus_base.source_gathers(ir.Module.parse(text), program.form)
    return ModelCase(program.name, f"{program.family}: {program.what}", text, "main", built.inputs,
                     corpus_base.reference(built), program.tolerance, program.kept, sources)


def _scatter_case(name: str, program, form: str) -> ModelCase:
    from ..experiments import corpus_base, scatter_corpus
    from ..experiments.frontends import FrontendError

    try:
        text = scatter_corpus.exported(program.name, form, locations=True)
    except FrontendError as error:
        known = program.forms[form].blocked
        raise FrontendError(f"{error}{f' (the corpus knows: {known})' if known else ''}") from None
    with make_context():
        sources = corpus_base.source_gathers(ir.Module.parse(text), form)
    return ModelCase(name, f"scatters: {program.what}", text, "main", scatter_corpus.numpy_inputs(program),
                     scatter_corpus.eager(program), program.tolerance, (), sources)


def _onnx_case(path: str, inputs: list[str]) -> ModelCase:
    import onnx
    from onnx.reference import ReferenceEvaluator

    from ..experiments.frontends import onnx_to_tosa

    try:
        model = onnx.load(path)
    except Exception as error:  # noqa: BLE001  onnx raises many kinds for a bad file
        raise ModelError(f"{path}: not an ONNX model: {str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
    text = onnx_to_tosa(model, locations=True)
    arrays = _inputs(text, model.graph.name, inputs)
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    expected = tuple(ReferenceEvaluator(model).run(None, dict(zip(names, arrays))))
    return ModelCase(os.path.basename(path), "ONNX model, imported by torch-mlir", text, model.graph.name, arrays,
                     expected, 1e-5)


def _mlir_case(path: str, inputs: list[str], entry: str) -> ModelCase:
    from ..gmx_run import RunError, load_module_text
    from ..source import SourceError

    try:
        text = load_module_text(path)
    except (RunError, SourceError) as error:
        raise ModelError(str(error)) from None
    return ModelCase(os.path.basename(path), "TOSA file", text, entry, _inputs(text, entry, inputs), None)


def _inputs(text: str, entry: str, paths: list[str]) -> tuple[np.ndarray, ...]:
    """The .npy files given, else random inputs for the entry's arguments:
    normal floats, integers in [0, 2) (in range of any dim of size 2 or
    more: the indices of a model are unknown here), random booleans."""
    from gmx.runtime.entry import find_entry, numpy_signature

    from ..npy_input import InputError, as_argument, load_npy

    with make_context():
        try:
            arguments, _ = numpy_signature(find_entry(ir.Module.parse(text), entry))
        except (ValueError, TypeError, CompileError) as error:
            raise ModelError(str(error).splitlines()[0]) from None
    if paths:
        try:
            return tuple(as_argument(load_npy(p), a.dtype) for p, a in zip(paths, arguments))
        except InputError as error:
            raise ModelError(str(error)) from None
    rng = np.random.default_rng(0)
    return tuple(_random(a.dtype, tuple(d or 1 for d in a.shape), rng) for a in arguments)


def _random(dtype: np.dtype, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 2, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# --- fused and unfused ---------------------------------------------------------------


def study_model(case: ModelCase, checked: bool, timing: tuple[int, int] | None) -> dict[str, Contender]:
    """Both pipelines, compiled, checked and (with timing = (repeat,
    warmup)) timed in interleaved rounds."""
    contenders = {name: _prepare(name, elements, case, checked) for name, elements in PIPELINES.items()}
    _check(contenders, case)
    fused, cores = contenders["fused"], usable_cores()
    if fused.ok and cores > 1:
        contenders[f"fused {cores}t"] = _on_threads(fused, case, cores)
    timed = {name: c.call for name, c in contenders.items() if c.ok}
    if timing is not None and timed:
        samples = measure(timed, (), *timing)
        for name, seconds in samples.items():
            contenders[name].samples = seconds
    return contenders


def _prepare(name: str, elements: list[str], case: ModelCase, checked: bool) -> Contender:
    contender = Contender(name)
    start = time.perf_counter()
    try:
        output = run_pipeline(case.text, elements, locations=True)
    except ir.MLIRError as error:
        contender.status = f"does not compile: {error_text(error).splitlines()[0]}"
        return contender
    contender.pass_s, contender.ops = output.seconds, sum(output.counts.values())
    with make_context():
        module = ir.Module.parse(output.text)
        contender.sites, contender.scatters = gather_sites(module), scatter_sites(module)
    try:
        program = CompiledProgram(output.text, case.entry, checked)
    except CompileError as error:
        contender.status = f"does not compile: {str(error).splitlines()[0]}"
        return contender
    contender.compile_s = time.perf_counter() - start
    contender.program = program.with_threads(1)
    contender.call = lambda: contender.program(*case.inputs)
    return contender


def _on_threads(contender: Contender, case: ModelCase, threads: int) -> Contender:
    """`contender`'s program (checked already) called on `threads` threads."""
    program = contender.program.with_threads(threads)
    return Contender(f"{contender.name} {threads}t", contender.sites, contender.scatters, contender.ops,
                     contender.pass_s, contender.compile_s, contender.status, program=program,
                     call=lambda: program(*case.inputs))


def _check(contenders: dict[str, Contender], case: ModelCase) -> None:
    """Call each compiled program once and check its results: against the
    case's expected results, or for a user's file (none expected) fused
    against unfused, bit for bit."""
    from ..experiments.corpus_base import matches

    for contender in contenders.values():
        if contender.call is not None:
            try:
                contender.result = contender.call()
            except (IndexError, ValueError, TypeError) as error:
                contender.status, contender.call = f"failed: {error}", None
    expected, tolerance, checked = case.expected, case.tolerance, list(contenders.values())
    if expected is None:
        reference, checked = contenders["unfused"], [contenders["fused"]]
        if reference.call is None:
            checked[0].status = checked[0].status or "not checked: unfused did not run"
            return
        reference.status = "the reference"
        expected = reference.result if isinstance(reference.result, tuple) else (reference.result,)
    for contender in checked:
        if contender.call is None:
            continue
        wrong = matches(contender.result, expected, tolerance)
        contender.status = f"wrong: {wrong}" if wrong else ("equal" if tolerance == 0 else "within tolerance")
        if wrong:
            contender.call = None


def problems(contenders: dict[str, Contender]) -> list[str]:
    """Why the study fails: a program that does not compile, fails or is wrong."""
    return [f"{c.name}: {c.status}" for c in contenders.values()
            if c.status.startswith(("does not compile", "failed", "wrong"))]


# --- the text ------------------------------------------------------------------------


# What a source gather or scatter with no gmx op left in the fused program became.
NO_OP = {"gather": "none: a slice, view or constant", "scatter": "none: an insert_slice or a constant"}


def site_rows(fused: list[Site], unfused: list[Site], kept: dict, kind: str = "gather") -> list[list[str]]:
    """One row per source gather or scatter (`kind`; an unfused site), paired
    in program order with the fused sites of its source line: its line, its
    unfused result, the gmx op fused, the ops in front of it fused and
    unfused. A source site with no fused site left became a slice, a view
    or a constant (NO_OP). `kept`: index arithmetic of the program's own,
    not flagged as linearisation."""
    by_line: dict[str, list[Site]] = defaultdict(list)
    for site in fused:
        by_line[site.line].append(site)
    partners = [by_line[site.line].pop(0) if by_line[site.line] else None for site in unfused]
    # A fused gather at another line (the pass located it at an op of its
    # sequence other than the tosa.gather: a TOSA file's own lines) pairs
    # with the next unpaired source gather.
    unpaired = [site for sites in by_line.values() for site in sites]
    for n, partner in enumerate(partners):
        if partner is None and unpaired:
            partners[n] = unpaired.pop(0)
    allowance = Counter(kept)
    rows = [[site.line, _result_shape(site), _op_cell(partner, kind), _fused_cell(partner, allowance),
             _in_front(site)] for site, partner in zip(unfused, partners)]
    return rows + [[s.line, _result_shape(s), _op_cell(s, kind), _fused_cell(s, allowance), "–"] for s in unpaired]


def _result_shape(site: Site) -> str:
    return site.result_type.removeprefix("tensor<").removesuffix(">")


def _op_cell(site: Site | None, kind: str) -> str:
    """The gmx op a source site became and its result: `axes=[0] mode=drop
    reduction=add: 10x4xf32` (a scatter's result has its input's type)."""
    if site is None:
        return NO_OP[kind]
    if site.axes is None:
        return f"not raised: {site.op}"
    rules = rules_text(site.mode, site.reduction or DEFAULT_REDUCTION)
    return f"axes={list(site.axes)}{rules}: {_result_shape(site)}"


def _fused_cell(site: Site | None, allowance: Counter) -> str:
    """Ops in front of a fused gather, and its linearisation beyond what
    `allowance` still allows (used up as it is applied)."""
    if site is None:
        return "–"
    left = linearisation_left([site], dict(allowance))
    allowance.subtract({name: site.index_ops[name] for name in allowance})
    return _in_front(site) + (f"; linearisation left: {', '.join(left)}" if left else "")


def _in_front(site: Site) -> str:
    views = site.views_in_front
    return f"{site.ops_in_front} ({views} view{'' if views == 1 else 's'})"


def site_section(kind: str, source: int, fused: list[Site], unfused: list[Site],
                 kept: dict) -> list[str]:
    """The lines of one kind's table (`gather` or `scatter`): how many the
    source has, how many gmx ops fused, then a row per source site."""
    gmx_ops = sum(s.axes is not None for s in fused)
    lines = [f"=== {kind}s: {source} in the source, {gmx_ops} gmx ops fused ===",
             f"per {kind}: the gmx op fused; ops in front of it (of which reshapes and transposes), "
             "its index computation and its data's views"]
    rows = site_rows(fused, unfused, kept, kind)
    return lines + text_table([f"{kind} at", "unfused result", "gmx op", "fused", "unfused"], rows, "lllrr")


def render(case: ModelCase, contenders: dict[str, Contender], checked: bool, timing) -> str:
    fused, unfused = contenders["fused"], contenders["unfused"]
    gathers = len(unfused.sites) if case.source_gathers is None else case.source_gathers
    lines = [
        f"gmx-study --model {case.name}: {case.what}",
        f"inputs {', '.join(f'{a.dtype}[{_dims(a.shape)}]' for a in case.inputs)}; "
        f"{'checked' if checked else 'unchecked'} indices",
    ]
    if gathers or not unfused.scatters:
        lines += ["", *site_section("gather", gathers, fused.sites, unfused.sites, dict(case.kept))]
    if unfused.scatters:
        lines += ["", *site_section("scatter", len(unfused.scatters), fused.scatters, unfused.scatters, {})]
    lines += ["", "=== programs ==="]
    rows = []
    for c in contenders.values():
        rows.append([c.name, c.ops or "–", f"{c.pass_s:.3f}", "–" if c.compile_s is None else f"{c.compile_s:.2f}",
                     fmt_ms(median_ms(c.samples)) if c.samples else "–",
                     _ratio(c, fused), c.status])
    lines += text_table(["program", "ops", "pass s", "compile s", "ms", "vs fused", "result"], rows, "lrrrrrl")
    if any(c.samples for c in contenders.values()):
        repeat, warmup = timing
        lines.append(f"(ms: median of {repeat} interleaved runs after {warmup} warm-up, on one thread "
                     "but where a thread count is named; compile s: the pass, gmx.runtime's lowering and JIT)")
    return "\n".join(lines) + "\n"


def _ratio(contender: Contender, fused: Contender) -> str:
    if not contender.samples or not fused.samples:
        return "–"
    return fmt_ratio(median_ms(contender.samples) / median_ms(fused.samples))


def _dims(shape) -> str:
    return "x".join(str(d) for d in shape) or "scalar"
