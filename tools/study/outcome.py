"""One study end to end: frontend program, stages, checked contenders, times."""

from __future__ import annotations

from dataclasses import dataclass

from .frontends import frontend_program
from .measure import Run, prepare, time_run
from .stages import Lowering, lower
from .variants import Study

# Stages that must lower for the study to pass; the unfused loop level is
# upstream's business (f64 TOSA, for one, does not pass its profile checks).
REQUIRED_STAGES = ("frontend", "fused", "linalg", "loops")


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
        self.lowering.frontend_text = self.lowering.fused_text = None
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
    inputs = study.inputs()
    text = frontend_program(study, inputs)
    lowering = lower(text, study.arguments(), checked)
    run = prepare(study, lowering, inputs)
    if timing is not None:
        time_run(run, *timing)
    expected = study.variant.numpy_fn(study)(*inputs)
    return Outcome(study, lowering, run, (study.dtype, expected.shape))
