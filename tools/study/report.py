"""DIR/report.md of a sweep: what the fusion derived (an equivalence table in
the classes of docs/semantics.md#equivalence-classes), op counts per
stage, run times, the plots and every failure."""

from __future__ import annotations

from ..experiments.contenders import ratio
from ..experiments.machine import machine_line, machine_summary
from ..experiments.tables import fmt_ms, fmt_ratio, markdown_table
from .outcome import CONTENDERS, Point
from .render import STAGE_COLUMNS
from .spellings import spelling_rows
from .stages import STAGE_KEYS


def by_variant(points: list[Point]) -> dict[str, list[Point]]:
    """Points grouped by variant, in sweep order."""
    groups: dict[str, list[Point]] = {}
    for point in points:
        groups.setdefault(point.study.variant.name, []).append(point)
    return groups


def first_good(points: list[Point]) -> Point | None:
    """The smallest point of a variant that ran (the report's example)."""
    return next((p for p in sorted(points, key=lambda p: p.outputs) if p.outcome), None)


def code(text: str) -> str:
    return f"`{text}`"


# --- equivalence -------------------------------------------------------------


def equivalence_rows(points: list[Point]) -> list[list[str]]:
    rows = []
    for name, mine in by_variant(points).items():
        point = first_good(mine)
        variant = mine[0].study.variant
        if point is None:
            rows.append([name, variant.category, code(mine[0].study.expression()), "", "–", "–", "–", "–",
                         "no point ran"])
            continue
        study = point.study
        common = [name, variant.category, code(study.expression()), study.describe()]
        derived = point.outcome.lowering.derived
        if len(derived) != 1:
            rows.append(common + ["–", "–", "–", "–", f"{len(derived)} gmx ops (expected 1)"])
            continue
        d = derived[0]
        rows.append(common + [
            code(f"{d.input_type} = {d.input_source}"),
            code(f"{d.indices_type} = {d.indices_source}"),
            code(str(list(d.axes))),
            code(d.output_type),
            d.result,
        ])
    return rows


def equivalence_section(points: list[Point]) -> list[str]:
    head = ["variant", "category", "frontend", "inputs", "gmx input", "gmx indices", "axes",
            "gmx output", "result"]
    return [
        "## What the fusion derived",
        "",
        "Each variant's frontend gather and the one `gmx.gather_multiaxis` that `--gmx-canonicalize` made "
        "of it, read from the fused IR at the smallest size of the sweep: the operands' types and how they "
        "are computed from the program's arguments (`const` is a constant; `…` elides deeper calls), the "
        "axes, the output type and what becomes of it.",
        "",
        *markdown_table(head, equivalence_rows(points)),
    ]


def spelling_section(spellings: list) -> list[str]:
    return [
        "## One gather, every frontend",
        "",
        "Each variant at its default shapes as each frontend spells it (torch-mlir's TOSA, StableHLO and "
        "linalg-on-tensors exports of its torch expression; the ONNX node; the gmx op itself), and the "
        "gmx op `--gmx-canonicalize` raises each spelling to, compared with the variant's own spelling "
        "(index element types may differ: frontends narrow indices differently). Another mode is the "
        "spelling's own out-of-range rule (torch-mlir's StableHLO clamps every index: `clip`) or a mode "
        "the torch expression writes as index arithmetic (a clamp, a floor modulo), which stays in front "
        "of a `raise` op where no pattern absorbs it.",
        "",
        *markdown_table(["variant", "frontend", "gmx op", "vs the variant's own"], spelling_rows(spellings)),
    ]


# --- op counts -------------------------------------------------------------------


def count_rows(points: list[Point]) -> list[list[str]]:
    rows = []
    for point in points:
        cells = [point.study.variant.name, f"{point.outputs:,}"]
        if point.outcome is None:
            rows.append(cells + ["–"] * (len(STAGE_KEYS) + 2))
            continue
        stages = point.outcome.lowering.stages
        counts = stages["fused"].counts
        cells += ["?" if stages[k].error else str(stages[k].total) for k in STAGE_KEYS]
        rows.append(cells + [str(counts["gmx.gather_multiaxis"]), str(counts["tosa.gather"])])
    return rows


def count_section(points: list[Point]) -> list[str]:
    head = ["variant", "outputs", *(STAGE_COLUMNS[k] for k in STAGE_KEYS), "gmx ops", "tosa.gather left"]
    return [
        "## Op counts per stage",
        "",
        "All ops of the module (nested ones included) after each stage; `?` where the stage did not lower. "
        "`gmx ops` and `tosa.gather left` count the fused program's gathers.",
        "",
        *markdown_table(head, count_rows(points)),
    ]


# --- times -------------------------------------------------------------------------


def _time_cell(point: Point, name: str) -> str:
    if point.outcome is None:
        return "FAILED"
    result = point.outcome.run.results[name]
    if result.status == "absent":
        return "–"
    return fmt_ms(result.median_ms) if result.status == "equal" else result.status.upper()


def time_rows(points: list[Point]) -> list[list[str]]:
    rows = []
    for point in points:
        cells = [point.study.variant.name, f"{point.outputs:,}"]
        cells += [_time_cell(point, n) for n in CONTENDERS]
        run = point.outcome.run if point.outcome else None
        cells += [fmt_ratio(ratio(run.results, n, "fused") if run else None) for n in CONTENDERS[1:]]
        rows.append(cells)
    return rows


def time_section(points: list[Point], repeat: int, warmup: int) -> list[str]:
    head = ["variant", "outputs", *(f"{n} ms" for n in CONTENDERS), *(f"{n}/fused" for n in CONTENDERS[1:])]
    return [
        "## Run times",
        "",
        f"Medians of {repeat} interleaved runs after {warmup} warm-up rounds, every contender on one thread "
        "(torch too); fused and unfused are whole gmx.runtime calls (the result is returned without a copy). A contender "
        "whose result is not exactly numpy's is not timed (its cell says why).",
        "",
        *markdown_table(head, time_rows(points)),
    ]


# --- the whole report -----------------------------------------------------------------


def failure_section(points: list[Point], others: list[str]) -> list[str]:
    lines = ["## Failures", ""]
    failed = [f"{p.study.variant.name} at {p.outputs:,} outputs: {problem}" for p in points for problem in p.problems]
    if not failed + others:
        return lines + ["None: every result equals numpy's and every stage lowered."]
    return lines + [f"- {problem}" for problem in failed + others]


def plot_section(points: list[Point], problems: list[str]) -> list[str]:
    """An image per variant whose plot was drawn (`problems` name the others)."""
    lines = ["## Plots", ""]
    for name in by_variant(points):
        if not any(p.startswith(f"plot of {name}:") for p in problems):
            lines += [f"![{name}]({name}.png)", ""]
    return lines


def index_dtypes(args) -> str:
    """`i32 (i64 for take, ...: their frontends take no i32)`, or just `i64`."""
    others = [name for name, dtype in args.index_dtypes.items() if dtype != args.index_dtype]
    if not others:
        return args.index_dtype
    return f"{args.index_dtype} (i64 for {', '.join(others)}: their frontends take no {args.index_dtype})"


def report_text(points: list[Point], args, seconds: float, other_problems: list[str] = (),
                spellings: list = ()) -> str:
    """The Markdown of the whole report; `other_problems` (plots that
    failed) join the failures; `spellings` (`spellings.spell` of every
    variant's frontends) make the frontend table."""
    sizes = ", ".join(f"{n:,}" for n in args.sizes)
    lines = [
        "# gmx-study report",
        "",
        f"Every variant at {sizes} output elements; data {args.dtype}, indices {index_dtypes(args)}, "
        f"{'unchecked' if args.unchecked else 'checked'} indices, seed {args.seed}; "
        f"{len(points)} points in {seconds:.0f} s.",
        "",
        machine_line(machine_summary()),
        "",
    ]
    lines += equivalence_section(points) + [""]
    if spellings:
        lines += spelling_section(list(spellings)) + [""]
    lines += count_section(points) + [""]
    lines += time_section(points, args.repeat, args.warmup) + [""]
    others = list(other_problems)
    lines += plot_section(points, others) + failure_section(points, others)
    return "\n".join(lines) + "\n"
