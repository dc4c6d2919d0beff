"""The text gmx-study prints for one study: stages, op counts, checks, times."""

from __future__ import annotations

from collections.abc import Iterable

from ..experiments.contenders import Run, ratio
from ..experiments.frontends import FRONTENDS
from ..experiments.tables import fmt_ms, fmt_ratio, text_table
from ..experiments.variants import Study, fmt_dims
from .outcome import CONTENDERS, Outcome
from .stages import STAGE_KEYS, Lowering

STAGE_COLUMNS = {key: key.replace("-", " ") for key in STAGE_KEYS}  # unfused-loops: `unfused loops`


def header(study: Study, output: tuple[str, tuple[int, ...]], checked: bool) -> list[str]:
    dtype, shape = output
    return [
        f"gmx-study {study.variant.name}: {study.expression()}",
        f"inputs {study.describe()}; output {dtype}[{fmt_dims(shape)}]; "
        f"{'checked' if checked else 'unchecked'} indices; seed {study.seed}",
    ]


def stage_sections(study: Study, lowering: Lowering, shown: Iterable[str]) -> list[str]:
    """One section per shown stage: a header, then the IR or why there is none."""
    lines = []
    for number, key in enumerate(STAGE_KEYS, start=1):
        if key not in shown:
            continue
        stage = lowering.stages[key]
        title = FRONTENDS[study.frontend] if key == "frontend" else stage.title
        ops = "" if stage.error else f" ({stage.total} ops)"
        lines += ["", f"=== {number}. {key}: {title}{ops} ==="]
        if key == "fused":
            lines += derived_lines(lowering, study.variant.op_name)
        lines.append(stage.error or stage.text.rstrip())
    return lines


def derived_lines(lowering: Lowering, op_name: str) -> list[str]:
    """What the fusion made of the program: its gmx ops, or that it raised no `op_name`."""
    if not lowering.derived:
        return [f"derived: no {op_name} (the fusion did not raise this program)"]
    return [f"derived: {d.summary()}" for d in lowering.derived]


def count_rows(lowering: Lowering) -> tuple[list[str], list[list[str]]]:
    """Op name -> count per stage (`-` for none, `?` where the stage failed), and a total row."""
    stages = [lowering.stages[k] for k in STAGE_KEYS]
    names = sorted(set().union(*(s.counts for s in stages)))

    def cell(stage, name):
        return "?" if stage.error else str(stage.counts[name] or "-")

    rows = [[name] + [cell(s, name) for s in stages] for name in names]
    rows.append(["total"] + ["?" if s.error else str(s.total) for s in stages])
    return ["op"] + [STAGE_COLUMNS[k] for k in STAGE_KEYS], rows


def count_section(lowering: Lowering) -> list[str]:
    lines = ["", "=== op counts per stage ==="] + text_table(*count_rows(lowering))
    failed = [s for s in lowering.stages.values() if s.error]
    return lines + [f"?: {STAGE_COLUMNS[s.key]}: {s.error}" for s in failed]


def check_section(study: Study, run: Run) -> list[str]:
    lines = ["", f"=== results against the reference: {study.variant.reference_expression(study)} ==="]
    return lines + text_table(["contender", "result"], [[n, run.results[n].line()] for n in CONTENDERS], "ll")[1:]


def timing_section(run: Run, repeat: int, warmup: int) -> list[str]:
    lines = [
        "",
        f"=== times: median of {repeat} interleaved runs after {warmup} warm-up, one thread ===",
    ]
    rows = [[n, fmt_ms(run.results[n].median_ms), fmt_ratio(ratio(run.results, n, "fused"))] for n in CONTENDERS]
    lines += text_table(["contender", "ms", "vs fused"], rows)
    lines.append("(fused and unfused: whole gmx.runtime calls; results are returned without a copy)")
    return lines


def render(outcome: Outcome, shown: Iterable[str], timing: tuple[int, int] | None) -> str:
    """The whole text of one study; `timing` is (repeat, warmup) or None."""
    study, lowering, run = outcome.study, outcome.lowering, outcome.run
    lines = header(study, outcome.output, lowering.checked)
    lines += stage_sections(study, lowering, shown)
    lines += count_section(lowering)
    lines += check_section(study, run)
    if timing is not None:
        lines += timing_section(run, *timing)
    return "\n".join(lines) + "\n"
