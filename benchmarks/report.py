"""Results of a run, as a Markdown table and as JSON.

Columns are data: `timing_columns` lists (header, cell function) pairs, one
"<name> ms" column per contender and one ratio column per (numerator,
denominator) pair, so a new contender needs no change here;
`compile_columns` is the second table (fusion and compile times).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from gmx.tools.experiments import timing


@dataclass
class ContenderResult:
    """One contender on one variant. `error` is set when it failed to
    compile or returned a wrong output; then it was not timed."""

    name: str
    samples: list[float] = field(default_factory=list)
    compile_s: float | None = None
    info: dict = field(default_factory=dict)
    error: str | None = None

    @property
    def median_ms(self) -> float | None:
        return timing.median_ms(self.samples) if self.samples and not self.error else None


@dataclass
class VariantResult:
    name: str
    expression: str
    linearised: bool
    input_shapes: list[list[int]]
    output_shape: list[int]
    output_elements: int
    output_bytes: int
    kind: str
    export_s: float
    program_chars: int
    contenders: dict[str, ContenderResult] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.error is None for c in self.contenders.values())


Column = tuple[str, Callable[[VariantResult], str]]


def _fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


FUSED = "gmx"  # the contender that runs the program after --gmx-canonicalize


def fused_state(result: VariantResult) -> str:
    """yes: every tosa.gather was raised into gmx; partial; no; – (not run)."""
    fused = result.contenders.get(FUSED)
    if fused is None or "gmx_ops" not in fused.info:
        return "–"
    if fused.info["gmx_ops"] == 0:
        return "no"
    return "partial" if fused.info["tosa_gathers"] else "yes"


def gmx_ops(result: VariantResult) -> str:
    """How many gmx.gather_multiaxis the fused program holds."""
    fused = result.contenders.get(FUSED)
    return str(fused.info.get("gmx_ops", "–")) if fused else "–"


def ratio(result: VariantResult, numerator: str, denominator: str) -> float | None:
    """median(numerator) / median(denominator), None when either is missing."""
    a, b = (result.contenders.get(n) for n in (numerator, denominator))
    if a is None or b is None or a.median_ms is None or not b.median_ms:
        return None
    return a.median_ms / b.median_ms


def _time_cell(result: VariantResult, name: str) -> str:
    c = result.contenders.get(name)
    if c is not None and c.error:
        return "WRONG" if c.error.startswith("wrong") else "FAILED"
    return _fmt(c.median_ms if c else None, 2)


def _ratio_cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def gigabytes_per_second(result: VariantResult, name: str) -> str:
    """Output bytes written per second by contender `name`, in GB/s."""
    c = result.contenders.get(name)
    if c is None or not c.median_ms:
        return "–"
    return f"{result.output_bytes / (c.median_ms * 1e-3) / 1e9:.1f}"


def timing_columns(contenders: list[str], ratios: list[tuple[str, str]]) -> list[Column]:
    """The timing table's columns for these contender names and ratio pairs
    (a ratio a/b > 1 means b is faster)."""
    columns: list[Column] = [
        ("variant", lambda r: f"{r.name} `{r.expression}`"),
        ("kind", lambda r: r.kind),
        ("outputs", lambda r: f"{r.output_elements:,}"),
    ]
    columns += [(f"{n} ms", lambda r, n=n: _time_cell(r, n)) for n in contenders]
    columns += [(f"{a}/{b}", lambda r, a=a, b=b: _ratio_cell(ratio(r, a, b))) for a, b in ratios]
    columns += [(f"{FUSED} GB/s", lambda r: gigabytes_per_second(r, FUSED))]
    return columns


def compile_columns(contenders: list[str]) -> list[Column]:
    """The second table: what the fusion made and what compiling cost."""
    compiled = [n for n in contenders if n in (FUSED, "unfused")]
    columns: list[Column] = [
        ("variant", lambda r: r.name),
        ("input shapes", lambda r: " ".join("x".join(map(str, s)) for s in r.input_shapes)),
        ("fused?", fused_state),
        ("gmx ops", gmx_ops),
    ]
    columns += [
        (f"compile {n} s", lambda r, n=n: _fmt(r.contenders[n].compile_s if n in r.contenders else None, 2))
        for n in compiled
    ]
    columns.append(("export s", lambda r: _fmt(r.export_s, 2)))
    return columns


def markdown_table(results: list[VariantResult], columns: list[Column]) -> str:
    """A GitHub Markdown table, one row per variant."""
    lines = ["| " + " | ".join(h for h, _ in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r) for _, cell in columns) + " |" for r in results]
    return "\n".join(lines)


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def machine_summary() -> dict:
    """CPU count, processor, library versions and load at the time of the call."""
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "processor": _processor(),
        "platform": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "torch": _version("torch"),
        "torch_mlir": _version("torch-mlir"),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _processor() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_line(machine: dict) -> str:
    load = " ".join(f"{x:.2f}" for x in machine["load_average"] or [])
    return (
        f"machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['processor']}, "
        f"{machine['platform']}; python {machine['python']}, numpy {machine['numpy']}, "
        f"torch {machine['torch']}, torch-mlir {machine['torch_mlir']}; load average {load}"
    )


def variant_entries(results: list[VariantResult]) -> list[dict]:
    """The timing results as JSON-ready dicts, every sample included (seconds)."""
    variants = []
    for r in results:
        entry = asdict(r)
        for name, c in r.contenders.items():
            entry["contenders"][name]["median_ms"] = c.median_ms
        variants.append(entry)
    return variants


def write_json(path: str, report: dict) -> None:
    """Everything measured, written atomically (a temp file renamed)."""
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(temporary, path)
