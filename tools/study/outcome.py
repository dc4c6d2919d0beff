"""One study end to end: frontend program, stages, checked contenders, times;
and a `Point` of a sweep (one study's outcome, or why there is none).

The contenders of a study, in table order (`gmx.tools.experiments.contenders`):

    fused    the program after --gmx-canonicalize, compiled by gmx.runtime
    unfused  the frontend program as emitted, compiled the same way
             (absent for multiaxis: its frontend program is gmx already)
    numpy    the variant's numpy expression (the reference itself)
    torch    the variant's torch expression, eager, on one thread (as the
             compiled code and numpy run)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..experiments.contenders import Fused, Numpy, Run, Torch, Unfused, check, make_case, time_run
from ..experiments.variants import Study
from .stages import Lowering, StageKey, lower

# Stages that must lower for the study to pass; the unfused loop level is
# upstream's business (the frontend program as emitted, which gmx did not write).
REQUIRED_STAGES = (StageKey.FRONTEND, StageKey.FUSED, StageKey.LINALG, StageKey.LOOPS)


def study_contenders(checked: bool, fused_text: str | None = None) -> list:
    """The contenders of a study; `checked`: with run-time index bounds
    checks; `fused_text`: the program the fused stage made, compiled as is
    (None: the fused contender runs --gmx-canonicalize itself)."""
    return [Fused("fused", checked, fused_text), Unfused("unfused", checked), Numpy("numpy"),
            Torch("torch", threads=1)]


CONTENDERS = tuple(c.name for c in study_contenders(True))


@dataclass
class Outcome:
    study: Study
    lowering: Lowering
    run: Run
    output: tuple[str, tuple[int, ...]]  # (element type, shape) of the result

    def slim(self) -> None:
        """Drop what only the text of one study needs (programs, IR, the
        compiled contenders and their inputs), keeping what a report shows."""
        self.run.calls.clear()
        self.lowering.fused_text = None
        for stage in self.lowering.stages.values():
            stage.text = None

    @property
    def problems(self) -> list[str]:
        """Why the study failed: wrong or failing contenders, required stages
        that did not lower, a fused program that does not compile."""
        found = [f"{k}: {self.lowering.stages[k].error}" for k in REQUIRED_STAGES if self.lowering.stages[k].error]
        for name, result in self.run.results.items():
            if result.status in ("wrong", "failed") or (name == "fused" and result.status != "equal"):
                found.append(f"{name}: {result.line()}")
        return found


def run_study(study: Study, checked: bool, timing: tuple[int, int] | None) -> Outcome:
    """Build, lower, check and (with `timing` = (repeat, warmup)) time one
    study. Raises FrontendError when the frontend cannot build the program."""
    case = make_case(study)
    lowering = lower(case.text, study.arguments(), checked)
    run = check(study_contenders(checked, lowering.fused_text), case)  # the pass runs once, in `lower`
    if timing is not None:
        time_run(run, *timing)
    return Outcome(study, lowering, run, (study.dtype, case.expected.shape))


@dataclass
class Point:
    """One variant at one size of a sweep: its outcome, or why there is none."""

    study: Study
    outputs: int  # output elements
    outcome: Outcome | None = None
    error: str | None = None

    @property
    def problems(self) -> list[str]:
        return [self.error] if self.error else self.outcome.problems
