"""Compile time against module size: `gmx-opt --gmx-canonicalize
--gmx-lower-to-llvm` on generated modules of N gathers.

A module of N gathers holds N functions, each one a frontend program: the
`quick` exports of the benchmark variants (linearised TOSA gathers from
torch-mlir, and embedding's plain tosa.gather), cycled and renamed
`@g0 ... @gN-1`. Each module is compiled by a `gmx-opt` child process, as a
user would run it; the time of an empty module (interpreter start-up and
imports) is subtracted. Linear growth means t(2N) / t(N) close to 2.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

from gmx.tools.experiments.tables import markdown_table

from .suite import BENCHMARKS

SIZES = (0, 250, 500, 1000)
PIPELINE = ["--gmx-canonicalize", "--gmx-lower-to-llvm"]


def _function_of(text: str) -> str:
    """The `func.func @main` of an exported module, as text."""
    start = text.index("func.func @main")
    end = text.rindex("}", 0, text.rindex("}"))  # the module's closing brace is last
    return text[start : end + 1]


def generated_module(functions: list[str], n: int) -> str:
    bodies = [re.sub(r"@main\b", f"@g{k}", functions[k % len(functions)], count=1) for k in range(n)]
    return "module {\n" + "\n".join(bodies) + "\n}\n"


def gmx_opt_seconds(text: str, directory: str) -> float:
    """Wall-clock seconds of one `gmx-opt FILE PIPELINE -o OUT` child."""
    source = os.path.join(directory, "in.mlir")
    with open(source, "w") as f:
        f.write(text)
    command = [sys.executable, "-m", "gmx.tools.gmx_opt", source, *PIPELINE, "-o", os.path.join(directory, "out.mlir")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def compile_times(sizes=SIZES, repeat: int = 3) -> dict[int, float]:
    """Median seconds per module size (start-up included; size 0 is it alone)."""
    functions = [_function_of(b.case("quick").text) for b in BENCHMARKS]
    times = {}
    with tempfile.TemporaryDirectory(prefix="gmx-compile-time-") as directory:
        for n in sizes:
            text = generated_module(functions, n)
            samples = sorted(gmx_opt_seconds(text, directory) for _ in range(repeat))
            times[n] = samples[len(samples) // 2]
    return times


def markdown(times: dict[int, float]) -> str:
    startup = times.get(0, 0.0)
    head = ["gathers", "gmx-opt s", "minus start-up s", "ms per gather", "vs half as many"]
    rows = []
    for n, seconds in times.items():
        if n == 0:
            rows.append(["0 (start-up)", f"{seconds:.2f}", "–", "–", "–"])
            continue
        net = seconds - startup
        half = times.get(n // 2)
        growth = f"{net / (half - startup):.2f}x" if half is not None and n // 2 and half > startup else "–"
        rows.append([n, f"{seconds:.2f}", f"{net:.2f}", f"{net / n * 1e3:.1f}", growth])
    return "\n".join(markdown_table(head, rows))
