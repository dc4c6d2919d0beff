"""What computes a study's gather, checked against the reference, then timed.

A `Case` is a study at its inputs: the frontend program, the inputs and the
reference's result (`make_case`; the reference is the variant's
`reference_fn`: a gather's numpy expression, `gmx.reference` for a scatter). A contender has a `name` (its row or column in a report) and
`prepare(case) -> Prepared`: a call with the inputs bound, what compiling
it cost and facts for a report. The contenders:

    Fused     the frontend program after --gmx-canonicalize, compiled by
              gmx.runtime (its compile time includes the pass); `in_place`:
              its data donated, written by every call (a scatter's
              in-place form, against Torch's `in_place`)
    Unfused   the frontend program as emitted, compiled the same way
              (absent when the frontend program is gmx already)
    Numpy     the variant's numpy expression (a gather's: the reference itself)
    Torch     the variant's torch expression, eager, on `threads` threads;
              `in_place`: its in-place spelling (`x.scatter_`, ...;
              `Variant.torch_inplace_fn`), writing a copy of its own
    Jax       the variant's JAX form under jax.jit on the CPU (scatters;
              absent for the gathers)
    OnnxRuntime  the variant's ONNX graph (`Variant.onnx_graph`) in an ONNX
              Runtime session of `threads` intra-op threads (absent where
              the variant has no ONNX form)
    Memcpy    a warm copy of as many bytes as the output, natively on
              `threads` threads (a `linalg.copy` compiled by gmx.runtime:
              its loop runs on OpenMP, as a gather's does): the floor a
              gather writing that output cannot beat; computes nothing, so
              it is not checked

A contender whose call writes its inputs (gmx with `donate`, the result
written into an input's buffer; torch's in-place form) writes copies of
its own (`own_copies`, made once when it is prepared), never the inputs
the others read. Either it gets them as they were before every call (its
`Prepared.reset` copies them back, untimed: `timing.measure`), or, an
in-place contender, only its first call, the check, sees them as they
were, and each timed call writes the previous one's result, as in-place
code does (an add keeps accumulating: right for timing, not checked). A
scatter whose reduction is idempotent (none, max, min: the KV cache's
`index_copy_`) needs no reset: a call on its previous result does the same
work and writes the same bits, and is then timed as torch's in-place form
is, with no untimed copy evicting the caches between calls.

`check(contenders, case)` prepares each one and calls it once: a result
must equal the reference exactly (dtype, shape, every element), and a
contender that does not compile, fails or is wrong is reported and not
timed. `time_run` times the others in interleaved rounds (`timing`). The
compiled contenders' times are whole gmx.runtime calls (argument checks
included; the result is a numpy view of the compiled code's buffer, no
copy).
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from gmx.dialect.modes import OpKind
from gmx.dialect.reductions import Reduction, reduction_rule
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ir
from gmx.runtime import CompiledProgram, CompileError

from .dtypes import from_torch, to_torch
from .frontends import frontend_program, onnx_graph_model
from .pipelines import run_pipeline
from .timing import measure, median_ms
from .variant_base import IN_PLACE_ARGUMENT
from .variants import Study

# The ops frontends spell each gmx op with (what --gmx-canonicalize raises).
FRONTEND_OPS = {
    OpKind.GATHER: ("tosa.gather", "stablehlo.gather", "stablehlo.dynamic_gather", "tensor.gather"),
    OpKind.SCATTER: ("tosa.scatter", "stablehlo.scatter", "tm_tensor.scatter", "tensor.scatter"),
}


@dataclass
class Case:
    """A study at its inputs, with its frontend program (entry `@main`)."""

    study: Study
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray  # the reference's result
    text: str
    export_s: float  # seconds the frontend took to make `text`

    @property
    def output_elements(self) -> int:
        return int(self.expected.size)

    @property
    def output_bytes(self) -> int:
        return int(self.expected.nbytes)


def make_case(study: Study) -> Case:
    """The study's inputs (seeded), the reference's result and the frontend
    program. Raises FrontendError when the frontend cannot make it."""
    inputs = study.inputs()
    expected = study.variant.reference_fn(study)(*inputs)
    start = time.perf_counter()
    text = frontend_program(study, inputs, expected.shape)
    return Case(study, inputs, expected, text, time.perf_counter() - start)


@dataclass
class Prepared:
    """A contender ready to run: `call()` returns its output, or `call` is
    None when the contender does not apply (`note` says why)."""

    call: Callable[[], object] | None
    compile_s: float | None = None  # None for contenders that compile nothing
    info: dict = field(default_factory=dict)  # contender-specific facts for a report
    convert: Callable = lambda output: output  # to the numpy array compared with the reference
    checked: bool = True  # whether the output is compared with the reference
    note: str = ""  # said beside the status
    reset: Callable[[], None] | None = None  # before each call, untimed: inputs the call writes restored


@dataclass
class Result:
    """One contender on one case: its status, its compile time and facts,
    and, once timed, its samples (seconds)."""

    name: str
    status: str = "equal"  # equal, wrong, does not compile, failed, absent, not checked
    detail: str = ""
    compile_s: float | None = None
    info: dict = field(default_factory=dict)
    samples: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status in ("equal", "absent", "not checked")

    @property
    def median_ms(self) -> float | None:
        return median_ms(self.samples) if self.samples else None

    def line(self) -> str:
        return f"{self.status}: {self.detail}" if self.detail else self.status


@dataclass
class Run:
    """Every contender of a case, checked, with the calls to time."""

    results: dict[str, Result] = field(default_factory=dict)
    calls: dict[str, Callable[[], object]] = field(default_factory=dict)
    resets: dict[str, Callable[[], None]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results.values())


# --- the contenders ------------------------------------------------------------


@dataclass(frozen=True)
class Fused:
    """The frontend program after --gmx-canonicalize, compiled. Its compile
    time includes parsing, the pass and printing; when the caller ran the
    pass already (gmx-study's stages), `fused_text` is its result, compiled
    as is (no op counts then)."""

    name: str = "fused"
    checked: bool = True  # run-time index bounds checks
    fused_text: str | None = None
    threads: int | None = None  # per call (None: the usable cores)
    # inputs the result is written into (gmx.runtime's `donate`); None: those
    # the variant donates (a scatter entry's `donated`, e.g. the KV cache)
    donate: tuple[int, ...] | None = None
    # the variant's in-place form: IN_PLACE_ARGUMENT donated and not restored
    # between calls; absent where the variant has none (the gathers)
    in_place: bool = False

    def prepare(self, case: Case) -> Prepared:
        if self.in_place and case.study.variant.torch_inplace_fn(case.study) is None:
            return Prepared(None, note=NO_IN_PLACE)
        start = time.perf_counter()
        text, info = self.fused_text, {}
        if text is None:
            fused = run_pipeline(case.text, ["gmx-canonicalize"])
            text = fused.text
            info = {**op_counts(case.study.variant, fused.counts), "canonicalize_s": fused.seconds}
        donate = self._donated(case)
        program = CompiledProgram(text, "main", self.checked, self.threads, donate=donate)
        info.update(_thread_info(program))
        if not donate:
            return Prepared(functools.partial(program, *case.inputs), time.perf_counter() - start, info)
        info["donated"] = list(donate)
        inputs = own_copies(case.inputs, donate)
        call = functools.partial(program, *inputs)
        if self.in_place or repeats_its_result(getattr(case.study, "variant", None)):  # each call writes the previous one's result
            return Prepared(call, time.perf_counter() - start, info)

        def reset():
            for k in donate:
                np.copyto(inputs[k], case.inputs[k])

        return Prepared(call, time.perf_counter() - start, info, reset=reset)

    def _donated(self, case: Case) -> tuple[int, ...]:
        if self.in_place:
            return (IN_PLACE_ARGUMENT,)
        return self.donate if self.donate is not None else getattr(case.study.variant, "donated", ())


NO_IN_PLACE = "the variant has no in-place form (the scatters have)"


def repeats_its_result(variant) -> bool:
    """Whether the variant, called again on its own result written into its
    donated inputs, writes that result again (a scatter of an idempotent
    reduction, `ReductionRule.idempotent`): its donated inputs need no
    reset between timed calls."""
    reduction = getattr(variant, "reduction", None)
    return isinstance(reduction, Reduction) and reduction_rule(reduction).idempotent


def own_copies(inputs, written) -> list[np.ndarray]:
    """`inputs` with those at the positions `written` copied: what a
    contender whose calls write them passes (the others' stay unwritten)."""
    return [a.copy() if k in written else a for k, a in enumerate(inputs)]


@dataclass(frozen=True)
class Unfused:
    """The frontend program as emitted, compiled."""

    name: str = "unfused"
    checked: bool = True
    threads: int | None = None  # per call (None: the usable cores)

    def prepare(self, case: Case) -> Prepared:
        if case.study.frontend == "gmx":
            return Prepared(None, note="the frontend program is gmx already")
        start = time.perf_counter()
        # CompiledProgram, not gmx.runtime.compile: its cache would keep every
        # large program alive and return a program compiled before for the same text.
        program = CompiledProgram(case.text, "main", self.checked, self.threads)
        return Prepared(functools.partial(program, *case.inputs), time.perf_counter() - start, _thread_info(program))


def op_counts(variant, counts) -> dict:
    """`gmx_ops`: the variant's gmx op (the registry's op name) in a fused
    program; `frontend_ops`: the frontend's own ops of that kind left
    (`tosa.gather`, `tosa.scatter`, ...): not raised."""
    return {"gmx_ops": counts[variant.op_name],
            "frontend_ops": sum(counts[name] for name in FRONTEND_OPS[variant.op])}


def _thread_info(program: CompiledProgram) -> dict:
    """How many OpenMP threads a compiled contender's calls run on."""
    return {"threads": program.threads}


@dataclass(frozen=True)
class Numpy:
    """The variant's numpy expression on the same arrays."""

    name: str = "numpy"

    def prepare(self, case: Case) -> Prepared:
        numpy_fn = case.study.variant.numpy_fn(case.study)
        note = "the reference" if case.study.variant.numpy_is_reference else ""
        return Prepared(functools.partial(numpy_fn, *case.inputs), note=note)


@dataclass(frozen=True)
class Torch:
    """The variant's torch expression, eager, on `threads` threads; tensors
    are made from the inputs once, outside the timing. `in_place`: its
    in-place spelling (`Variant.torch_inplace_fn`; absent where there is
    none), writing a copy of the data of its own, made here: the first
    call (the check) writes it as it was, each later call the previous
    call's result."""

    name: str = "torch"
    threads: int = 1
    in_place: bool = False

    def prepare(self, case: Case) -> Prepared:
        import torch

        variant, arrays = case.study.variant, case.inputs
        if self.in_place:
            forward = variant.torch_inplace_fn(case.study)
            if forward is None:
                return Prepared(None, note=NO_IN_PLACE)
            arrays = own_copies(arrays, (IN_PLACE_ARGUMENT,))
        else:
            forward = variant.torch_fn(case.study)
        tensors = [to_torch(a) for a in arrays]
        threads = self.threads

        def call():
            if torch.get_num_threads() != threads:  # rounds interleave contenders on other counts
                torch.set_num_threads(threads)
            return forward(*tensors)

        return Prepared(call, info={"threads": threads}, convert=from_torch)


@dataclass(frozen=True)
class OnnxRuntime:
    """The variant's ONNX graph in an ONNX Runtime CPU session with
    `threads` intra-op threads. Its threads do not spin once a call is
    done: interleaved with the other contenders on a few cores, a spinning
    pool would take their time. Compile time is building the model and
    the session."""

    name: str = "onnxruntime"
    threads: int = 1

    def prepare(self, case: Case) -> Prepared:
        study = case.study
        nodes = study.variant.onnx_graph(study)
        if nodes is None:
            return Prepared(None, note="the variant has no plain ONNX form")
        import onnxruntime

        start = time.perf_counter()
        types = study.variant.input_types(study)
        arguments = [(name, t, shape) for name, (t, shape) in zip(study.arguments(), types)]
        model = onnx_graph_model(nodes, arguments, (study.dtype, case.expected.shape))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        feeds = dict(zip(study.arguments(), case.inputs))
        return Prepared(
            lambda: session.run(None, feeds)[0], time.perf_counter() - start, info={"threads": self.threads}
        )


@dataclass(frozen=True)
class Jax:
    """The variant's JAX form (`Variant.jax_fn`: a scatter's `x.at[...]`)
    under `jax.jit` on the CPU, at XLA's default threads (64-bit types
    enabled: the inputs keep their dtypes); inputs put on the device once,
    each call waiting for its result. A variant's donated inputs (the KV
    cache) are the jit's `donate_argnums`, as gmx's `donate`: each call
    gets a fresh device copy of them (`reset`, untimed). Compile time is
    tracing and compiling."""

    name: str = "jax"

    def prepare(self, case: Case) -> Prepared:
        study = case.study
        forward = study.variant.jax_fn(study)
        if forward is None:
            return Prepared(None, note="the variant has no JAX form (the scatters have)")
        import jax

        jax.config.update("jax_enable_x64", True)
        cpu = jax.devices("cpu")[0]
        donated = tuple(getattr(study.variant, "donated", ()))
        start = time.perf_counter()
        # Copies (never the caller's buffers), waited for: device_put is asynchronous.
        inputs = [jax.device_put(a.copy(), cpu).block_until_ready() for a in case.inputs]
        jitted = jax.jit(forward, donate_argnums=donated).lower(*inputs).compile()
        compile_s = time.perf_counter() - start

        def reset():
            for k in donated:
                inputs[k] = jax.device_put(case.inputs[k].copy(), cpu).block_until_ready()

        return Prepared(lambda: jitted(*inputs).block_until_ready(), compile_s, convert=np.asarray,
                        reset=reset if donated else None)


@dataclass(frozen=True)
class Memcpy:
    """A warm copy of the output's bytes into a new buffer, one native call
    on `threads` OpenMP threads: a `linalg.copy` of that many bytes
    compiled by gmx.runtime (so it costs what a call costs, allocation of
    the result included). Its output, the copy, is not compared with the
    reference."""

    name: str = "memcpy"
    threads: int = 1

    def prepare(self, case: Case) -> Prepared:
        source = np.ascontiguousarray(case.expected).reshape(-1).view(np.int8)
        start = time.perf_counter()
        program = CompiledProgram(copy_program(source.size), "main", True, self.threads)
        info = {"threads": self.threads}
        return Prepared(functools.partial(program, source), time.perf_counter() - start, info,
                        checked=False, note="computes nothing")


def copy_program(size: int) -> str:
    """A program returning a copy of its `size` bytes (i8)."""
    bytes_type = f"tensor<{size}xi8>"
    return (
        f"func.func @main(%x: {bytes_type}) -> {bytes_type} {{\n"
        f"  %e = tensor.empty() : {bytes_type}\n"
        f"  %c = linalg.copy ins(%x : {bytes_type}) outs(%e : {bytes_type}) -> {bytes_type}\n"
        f"  return %c : {bytes_type}\n"
        "}\n"
    )


# --- checking and timing -----------------------------------------------------------


def difference(got, expected: np.ndarray) -> str | None:
    """None when `got` equals `expected` exactly, else what differs."""
    if not isinstance(got, np.ndarray):
        return f"returned {type(got).__name__}, expected an array"
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"returned {got.dtype}{list(got.shape)}, expected {expected.dtype}{list(expected.shape)}"
    if not np.array_equal(got, expected):
        return f"{int(np.sum(got != expected))} of {expected.size} elements differ"
    return None


@contextlib.contextmanager
def _torch_threads_kept():
    """Torch contenders set their thread count when called; the count the
    caller had is restored after (when torch is loaded already)."""
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch else None
    try:
        yield
    finally:
        if threads is not None and torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


def check(contenders: Iterable, case: Case) -> Run:
    """Prepare every contender and check its first call against the reference."""
    run = Run()
    with _torch_threads_kept():
        for contender in contenders:
            result, call, reset = _checked(contender, case)
            run.results[contender.name] = result
            if call is not None:
                run.calls[contender.name] = call
            if reset is not None:
                run.resets[contender.name] = reset
    return run


def _checked(contender, case: Case) -> tuple[Result, Callable | None, Callable | None]:
    """The contender's Result, and its call and reset if it is to be timed."""
    result = Result(contender.name)
    try:
        prepared = contender.prepare(case)
        result.compile_s, result.info = prepared.compile_s, prepared.info
        if prepared.call is None:
            result.status, result.detail = "absent", prepared.note
            return result, None, None
        if prepared.reset is not None:
            prepared.reset()
        got = prepared.call()
    except CompileError as error:
        result.status, result.detail = "does not compile", str(error).splitlines()[0]
        return result, None, None
    except ir.MLIRError as error:
        result.status, result.detail = "does not compile", error_text(error).splitlines()[0]
        return result, None, None
    except Exception as error:  # noqa: BLE001  a failing contender must not hide the others
        result.status, result.detail = "failed", f"{type(error).__name__}: {error}"
        return result, None, None
    wrong = difference(prepared.convert(got), case.expected) if prepared.checked else None
    if wrong:
        result.status, result.detail = "wrong", wrong
        return result, None, None
    result.status = "equal" if prepared.checked else "not checked"
    result.detail = prepared.note
    return result, prepared.call, prepared.reset


def time_run(run: Run, repeat: int, warmup: int) -> None:
    """Time every checked call: `repeat` interleaved rounds after `warmup`,
    each result's samples in seconds."""
    with _torch_threads_kept():
        samples = measure(run.calls, (), repeat, warmup, run.resets)
    for name, seconds in samples.items():
        run.results[name].samples = seconds


def ratio(results: Mapping[str, Result], numerator: str, denominator: str) -> float | None:
    """median(numerator) / median(denominator) (> 1: the denominator is
    faster); None when either was not timed."""
    a, b = results.get(numerator), results.get(denominator)
    if a is None or b is None or a.median_ms is None or not b.median_ms:
        return None
    return a.median_ms / b.median_ms
