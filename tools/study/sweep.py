"""`gmx-study --all --report DIR`: every variant over a size sweep.

Each (variant, size) is studied as `gmx-study VARIANT` would (frontend,
stages, checks, times); a point that fails, for any reason, is recorded with
its reason and the sweep goes on. Then DIR/report.md and one PNG per variant
are written, each atomically (a temporary file renamed over the target), so
an interrupted sweep never leaves half a file. A progress bar runs on stderr.
"""

from __future__ import annotations

import os
import sys
import time

from ..experiments.frontends import FrontendError
from ..experiments.variants import Study
from ..output import OutputError, write_output
from . import plots
from .outcome import Point, run_study
from .report import report_text
from .spellings import spell


class Progress:
    """`[#####.....] 12/50 torch-gather at 65,536 outputs` on stderr: redrawn in place on
    a terminal, one line per step elsewhere (logs, CI)."""

    WIDTH = 30

    def __init__(self, total: int, stream=None):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def show(self, done: int, label: str) -> None:
        filled = self.WIDTH * done // max(self.total, 1)
        bar = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{self.total} {label}"
        self.stream.write(f"\r{bar:<100.100}" if self.tty else bar + "\n")
        if self.tty and done == self.total:
            self.stream.write("\n")
        self.stream.flush()

    def say(self, line: str) -> None:
        """A message that must not be drawn over."""
        self.stream.write(("\n" if self.tty else "") + line + "\n")


def study_point(study: Study, outputs: int, checked: bool, timing: tuple[int, int]) -> Point:
    """The point of one study; failures become its `error`."""
    try:
        outcome = run_study(study, checked, timing)
    except FrontendError as error:
        return Point(study, outputs, error=str(error))
    except Exception as error:  # noqa: BLE001  an internal bug in one point must not end the sweep
        return Point(study, outputs, error=f"internal error: {type(error).__name__}: {error}")
    outcome.slim()
    return Point(study, outputs, outcome)


def sweep(studies: list[tuple[int, Study]], checked: bool, timing: tuple[int, int]) -> list[Point]:
    """Every (outputs, study) as a Point, with a progress bar; problems go
    to stderr as they come."""
    progress = Progress(len(studies))
    points = []
    for done, (outputs, study) in enumerate(studies):
        label = f"{study.variant.name} at {outputs:,} outputs"
        progress.show(done, label)
        point = study_point(study, outputs, checked, timing)
        for problem in point.problems:
            progress.say(f"gmx-study: error: {label}: {problem}")
        points.append(point)
    progress.show(len(studies), "done")
    return points


def write_plots(directory: str, points: list[Point]) -> list[str]:
    """DIR/<variant>.png for each variant; the plots that failed, as problems.
    Raises OutputError when a file cannot be written."""
    problems = []
    names = list(dict.fromkeys(p.study.variant.name for p in points))
    for name in names:
        try:
            png = plots.plot_variant([p for p in points if p.study.variant.name == name])
        except Exception as error:  # noqa: BLE001  one plot's bug must not lose the report
            problems.append(f"plot of {name}: internal error: {type(error).__name__}: {error}")
            continue
        write_output(os.path.join(directory, f"{name}.png"), png)
    return problems


def sweep_main(args) -> int:
    """Run the sweep of args.sweep and write the report into args.report."""
    start = time.perf_counter()
    try:
        os.makedirs(args.report, exist_ok=True)
    except OSError as error:
        print(f"gmx-study: error: could not create '{args.report}': {error.strerror or error}", file=sys.stderr)
        return 1
    points = sweep(args.sweep, not args.unchecked, (args.repeat, args.warmup))
    spellings = [spell(study) for study in args.spellings]
    seconds = time.perf_counter() - start
    report = os.path.join(args.report, "report.md")
    try:
        plot_problems = write_plots(args.report, points)
        write_output(report, report_text(points, args, seconds, plot_problems, spellings))
    except OutputError as error:
        print(f"gmx-study: error: {error}", file=sys.stderr)
        return 1
    for problem in plot_problems:
        print(f"gmx-study: error: {problem}", file=sys.stderr)
    failed = [p for p in points if p.problems]
    print(f"gmx-study: {len(points)} points in {seconds:.0f} s, {len(failed)} failed; wrote {report} "
          f"and {len({p.study.variant.name for p in points}) - len(plot_problems)} plots")
    return 1 if failed or plot_problems else 0
