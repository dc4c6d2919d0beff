"""The cost of one `gmx.runtime` call on small gathers, against numpy.

A gmx call checks its arguments, points prebuilt descriptors at them,
allocates its output and calls the compiled code; on a tiny gather that is
all it does. Each case is `torch.gather`-like (`np.take_along_axis` on
axis 1) on float32 data and int64 indices, compiled once; a sample is the
mean of CALLS calls, and the table shows medians of interleaved samples.
"""

from __future__ import annotations

import time

import numpy as np

from gmx.runtime import compile
from gmx.tools.experiments.tables import fmt_ratio, markdown_table
from gmx.tools.experiments.timing import shuffled_rounds

# (name, data shape, indices shape)
CASES = (
    ("tiny", (4, 3), (4, 2)),
    ("64x64", (64, 64), (64, 64)),
    ("256x256", (256, 256), (256, 256)),
)
CALLS = {"full": 2000, "quick": 50}


def gather_text(shape: tuple, indices_shape: tuple) -> str:
    """A gmx program: take_along_axis(x, i, axis=1)."""
    x = "x".join(map(str, shape))
    i = "x".join(map(str, indices_shape))
    return (
        f"func.func @main(%x: tensor<{x}xf32>, %i: tensor<{i}xi64>) -> tensor<{i}xf32> {{\n"
        f'  %0 = "gmx.gather_multiaxis"(%x, %i) {{axes = array<i64: 1>}} : '
        f"(tensor<{x}xf32>, tensor<{i}xi64>) -> tensor<{i}xf32>\n"
        f"  return %0 : tensor<{i}xf32>\n}}\n"
    )


def _mean_call_seconds(fn, args: tuple, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def call_overhead(size: str = "full", repeat: int = 7, threads: int | None = None) -> list[dict]:
    """Per case: microseconds per call of gmx and numpy (medians), checked
    equal first."""
    rng = np.random.default_rng(0)
    rows = []
    for name, shape, indices_shape in CASES:
        x = rng.standard_normal(shape).astype(np.float32)
        i = rng.integers(-shape[1], shape[1], indices_shape)
        program = compile(gather_text(shape, indices_shape), threads=threads)
        calls = {"gmx": program, "numpy": lambda x, i: np.take_along_axis(x, i, axis=1)}
        if not np.array_equal(program(x, i), calls["numpy"](x, i)):
            raise AssertionError(f"overhead case {name}: gmx differs from numpy")
        samples: dict[str, list[float]] = {n: [] for n in calls}
        for order in shuffled_rounds(list(calls), repeat + 1):
            for n in order:
                samples[n].append(_mean_call_seconds(calls[n], (x, i), CALLS[size]))
        rows.append({
            "case": name,
            "outputs": int(np.prod(indices_shape)),
            **{f"{n}_us": float(np.median(s[1:])) * 1e6 for n, s in samples.items()},
        })
    return rows


def markdown(rows: list[dict]) -> str:
    head = ["case", "outputs", "gmx µs/call", "numpy µs/call", "numpy/gmx"]
    cells = [
        [r["case"], f"{r['outputs']:,}", f"{r['gmx_us']:.1f}", f"{r['numpy_us']:.1f}",
         fmt_ratio(r["numpy_us"] / r["gmx_us"])]
        for r in rows
    ]
    return "\n".join(markdown_table(head, cells))
