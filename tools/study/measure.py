"""Run a study's contenders, check each against the numpy reference, time them.

Contenders, in table order:

    fused    the program after --gmx-canonicalize, compiled by gmx.runtime
    unfused  the frontend program as emitted, compiled the same way
             (none for multiaxis: its frontend program is gmx already)
    numpy    the variant's numpy expression (the reference itself)
    torch    the variant's torch expression, eager, on one thread

Results must equal the reference exactly (dtype, shape, every element). A
contender that does not compile, fails or is wrong is reported and not
timed. Times are medians of interleaved runs (`gmx.benchmarks.timing`); the
compiled contenders' times are whole gmx.runtime calls (argument checks
included; the result is a numpy view of the compiled code's buffer, no copy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gmx.benchmarks.timing import measure, median_ms
from gmx.runtime import CompiledProgram, CompileError

from .dtypes import from_torch, to_torch
from .stages import Lowering
from .variants import Study

CONTENDERS = ("fused", "unfused", "numpy", "torch")


@dataclass
class Result:
    """One contender: its check and, once timed, its median."""

    name: str
    status: str  # "equal", "wrong", "does not compile", "failed", "absent"
    detail: str = ""
    median_ms: float | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("equal", "absent")

    def line(self) -> str:
        return f"{self.status}: {self.detail}" if self.detail else self.status


@dataclass
class Run:
    """Every contender of a study, checked, with the calls to time."""

    results: dict[str, Result] = field(default_factory=dict)
    calls: dict[str, Callable[[], object]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results.values())


def difference(got, expected: np.ndarray) -> str | None:
    """None when `got` equals `expected` exactly, else what differs."""
    if not isinstance(got, np.ndarray):
        return f"returned {type(got).__name__}, expected an array"
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"returned {got.dtype}{list(got.shape)}, expected {expected.dtype}{list(expected.shape)}"
    if not np.array_equal(got, expected):
        return f"{int(np.sum(got != expected))} of {expected.size} elements differ"
    return None


def _checked(run: Run, name: str, call: Callable[[], object], expected: np.ndarray, convert=None) -> None:
    """Call once, check against `expected`, keep the call if it is right."""
    try:
        got = call()
    except (IndexError, ValueError, TypeError, RuntimeError) as error:
        run.results[name] = Result(name, "failed", f"{type(error).__name__}: {error}")
        return
    wrong = difference(convert(got) if convert else got, expected)
    run.results[name] = Result(name, "wrong" if wrong else "equal", wrong or "")
    if not wrong:
        run.calls[name] = call


def _compiled(run: Run, name: str, text: str | None, inputs, expected, checked: bool) -> None:
    try:
        program = CompiledProgram(text, "main", checked)
    except CompileError as error:
        run.results[name] = Result(name, "does not compile", str(error).splitlines()[0])
        return
    _checked(run, name, functools.partial(program, *inputs), expected)


def prepare(study: Study, lowering: Lowering, inputs: tuple[np.ndarray, ...]) -> Run:
    """Compile and check every contender once; expected = numpy's result."""
    variant = study.variant
    numpy_fn = variant.numpy_fn(study)
    expected = numpy_fn(*inputs)
    run = Run()
    if lowering.fused_text is None:
        run.results["fused"] = Result("fused", "does not compile", lowering.stages["fused"].error or "")
    else:
        _compiled(run, "fused", lowering.fused_text, inputs, expected, lowering.checked)
    if variant.frontend == "gmx":
        run.results["unfused"] = Result("unfused", "absent", "the frontend program is gmx already")
    else:
        _compiled(run, "unfused", lowering.frontend_text, inputs, expected, lowering.checked)
    run.results["numpy"] = Result("numpy", "equal", "the reference")
    run.calls["numpy"] = functools.partial(numpy_fn, *inputs)
    tensors = [to_torch(a) for a in inputs]
    _checked(run, "torch", functools.partial(variant.torch_fn(study), *tensors), expected, from_torch)
    return run


def time_run(run: Run, repeat: int, warmup: int) -> None:
    """Median ms of each checked contender, torch on one thread (as the
    compiled code and numpy run), the thread count restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        samples = measure(run.calls, (), repeat, warmup)
    finally:
        torch.set_num_threads(threads)
    for name, seconds in samples.items():
        run.results[name].median_ms = median_ms(seconds)


def ratio(run: Run, name: str, base: str = "fused") -> float | None:
    """median(name) / median(base); None when either was not timed."""
    a, b = run.results.get(name), run.results.get(base)
    if a is None or b is None or a.median_ms is None or not b.median_ms:
        return None
    return a.median_ms / b.median_ms
