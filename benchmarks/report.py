"""The timing section's results, as Markdown tables and as JSON.

Columns are data: `timing_columns` lists (header, cell function) pairs, one
"<name> ms" column per contender and one ratio column per (numerator,
denominator) pair, so a new contender needs no change here;
`compile_columns` is the second table (fusion and compile times). Both are
drawn by the one table renderer (`gmx.tools.experiments.tables`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from gmx.tools.experiments.contenders import Result, ratio
from gmx.tools.experiments.tables import fmt_fixed, fmt_ratio, markdown_table
from gmx.tools.output import write_output


@dataclass
class VariantResult:
    """One benchmark: what was run, and each contender's checked, timed Result."""

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
    contenders: dict[str, Result] = field(default_factory=dict)
    index_bytes: int = 0  # of the integer inputs

    @property
    def least_traffic_bytes(self) -> int:
        """The bytes a gather must move at least: its indices read once,
        each output element read once from the input and written once."""
        return self.index_bytes + 2 * self.output_bytes

    @property
    def ok(self) -> bool:
        """Every contender gmx compiles (`compiled_by_gmx`) compiled and
        was right: another's wrong output is reported, not gmx's failure."""
        return all(c.ok for name, c in self.contenders.items() if compiled_by_gmx(name))


# The contenders gmx does not compile: numpy, torch (eager, 1t, in-place, cuda),
# ONNX Runtime (ort, ort 1t) and JAX. One rule for gathers and scatters: their
# WRONG or FAILED cells and log lines report them; gmx-bench's exit status
# is gmx's own (gmx, gmx unchecked, gmx donated, gmx Nt, unfused, memcpy, gmx iree).
OTHERS = ("numpy", "torch", "ort", "jax")


def compiled_by_gmx(contender: str) -> bool:
    return contender.split()[0] not in OTHERS


Column = tuple[str, Callable[[VariantResult], str]]

FUSED = "gmx"  # the contender that runs the program after --gmx-canonicalize


def fused_state(result: VariantResult) -> str:
    """yes: every frontend gather (scatter) was raised into gmx; partial; no; – (not run)."""
    fused = result.contenders.get(FUSED)
    if fused is None or "gmx_ops" not in fused.info:
        return "–"
    if fused.info["gmx_ops"] == 0:
        return "no"
    return "partial" if fused.info["frontend_ops"] else "yes"


def gmx_ops(result: VariantResult) -> str:
    """How many of the variant's gmx op the fused program holds."""
    fused = result.contenders.get(FUSED)
    return str(fused.info.get("gmx_ops", "–")) if fused else "–"


def _time_cell(result: VariantResult, name: str) -> str:
    c = result.contenders.get(name)
    if c is not None and not c.ok:
        return "WRONG" if c.status == "wrong" else "FAILED"
    return fmt_fixed(c.median_ms if c else None, 2)


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
    columns += [(f"{a}/{b}", lambda r, a=a, b=b: fmt_ratio(ratio(r.contenders, a, b))) for a, b in ratios]
    columns += [(f"{FUSED} GB/s", lambda r: gigabytes_per_second(r, FUSED))]
    return columns


# Peak memory bandwidth of GPUs by torch.cuda.get_device_name(), GB/s
# (vendors' data sheets): the GPU table's "% of peak".
GPU_PEAK_GB_S = {
    "NVIDIA H100 80GB HBM3": 3350,
    "NVIDIA H100 PCIe": 2039,
    "NVIDIA H200": 4800,
    "NVIDIA A100-SXM4-80GB": 2039,
    "NVIDIA A100-SXM4-40GB": 1555,
    "NVIDIA A100 80GB PCIe": 1935,
    "NVIDIA A100-PCIE-40GB": 1555,
    "NVIDIA L40S": 864,
    "NVIDIA L4": 300,
}


def device_us(result: VariantResult, name: str) -> float | None:
    """Contender `name`'s measured device time (µs), if it has one."""
    c = result.contenders.get(name)
    return c.info.get("device_us") if c is not None and c.ok else None


def device_contenders(results: list[VariantResult]) -> list[str]:
    """The contenders with a device time, in table order."""
    names: list[str] = []
    for r in results:
        names += [n for n, c in r.contenders.items() if "device_us" in c.info and n not in names]
    return names


def gpu_name(result: VariantResult) -> str | None:
    for c in result.contenders.values():
        name = c.info.get("device")
        if name in GPU_PEAK_GB_S or (isinstance(name, str) and name.startswith("NVIDIA")):
            return name
    return None


def device_columns(names: list[str], ratios: list[tuple[str, str]]) -> list[Column]:
    """The GPU table: device time and bandwidth (least traffic over
    device time) per contender, % of the GPU's peak, device time ratios."""
    def bandwidth(r: VariantResult, n: str) -> float | None:
        us = device_us(r, n)
        return r.least_traffic_bytes / (us * 1e-6) / 1e9 if us else None

    def peak_share(r: VariantResult, n: str) -> str:
        peak, gb_s = GPU_PEAK_GB_S.get(gpu_name(r) or ""), bandwidth(r, n)
        return f"{100 * gb_s / peak:.0f}%" if peak and gb_s else "–"

    def device_ratio(r: VariantResult, a: str, b: str) -> str:
        ua, ub = device_us(r, a), device_us(r, b)
        return fmt_ratio(ua / ub if ua and ub else None)

    columns: list[Column] = [("variant", lambda r: r.name), ("least traffic MB", lambda r: f"{r.least_traffic_bytes / 1e6:.1f}")]
    for n in names:
        columns += [
            (f"{n} µs", lambda r, n=n: fmt_fixed(device_us(r, n), 1)),
            (f"{n} GB/s", lambda r, n=n: fmt_fixed(bandwidth(r, n), 0)),
            (f"{n} % of peak", lambda r, n=n: peak_share(r, n)),
        ]
    columns += [(f"{a}/{b}", lambda r, a=a, b=b: device_ratio(r, a, b)) for a, b in ratios if {a, b} <= set(names)]
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
        (f"compile {n} s", lambda r, n=n: fmt_fixed(r.contenders[n].compile_s if n in r.contenders else None, 2))
        for n in compiled
    ]
    columns.append(("export s", lambda r: fmt_fixed(r.export_s, 2)))
    return columns


def table(results: list[VariantResult], columns: list[Column]) -> str:
    """The Markdown table of `columns`, one row per benchmark."""
    return "\n".join(markdown_table([h for h, _ in columns], [[cell(r) for _, cell in columns] for r in results]))


def contender_entry(result: Result) -> dict:
    """One contender as JSON: every sample (seconds), the error if it failed."""
    return {
        "name": result.name,
        "status": result.status,  # "absent": the contender does not apply (no samples)
        "samples": result.samples,
        "compile_s": result.compile_s,
        "info": result.info,
        "error": None if result.ok else result.line(),
        "median_ms": result.median_ms,
    }


def variant_entries(results: list[VariantResult]) -> list[dict]:
    """The timing results as JSON-ready dicts."""
    entries = []
    for r in results:
        entry = asdict(r)
        entry["contenders"] = {name: contender_entry(c) for name, c in r.contenders.items()}
        entries.append(entry)
    return entries


def write_json(path: str, report: dict) -> None:
    """Everything measured, written atomically (gmx.tools.output); raises
    OutputError when it cannot be written."""
    write_output(path, json.dumps(report, indent=2) + "\n")
