"""A quick measurement of the engine's scatters against torch eager and
np.add.at (not a timed test; gmx-bench's scatter variants are their own
work): torch.scatter along dim 1, scatter_add of edge messages into nodes
(a GNN's aggregation), index_add of rows (an embedding gradient). Every
output is checked against torch's first; each row shows medians of
interleaved calls, gmx checked and unchecked, and the plan's strategy.

    .venv/bin/python -m gmx.benchmarks.scatter_quick [--threads N] [--repeat R]
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gmx.dialect.shapes import infer_output_shape
from gmx.passes.lowering.scatter_plan import plan_scatter
from gmx.runtime import compile
from gmx.tools.experiments.timing import measure

from .quick_cli import run_from_command_line


@dataclass(frozen=True)
class Case:
    name: str
    input_shape: tuple
    indices_shape: tuple
    axes: tuple
    reduction: str
    torch: Callable  # (x, i, u) as torch tensors -> the result
    add_at: bool = False  # also time np.add.at


def _tensor(shape, element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def scatter_text(case: Case) -> str:
    """A gmx program of the case's scatter (f32, i64 indices)."""
    x, i = _tensor(case.input_shape), _tensor(case.indices_shape, "i64")
    u = _tensor(infer_output_shape(case.input_shape, case.indices_shape, list(case.axes)))
    extra = f', reduction = "{case.reduction}"' if case.reduction != "none" else ""
    axes = ", ".join(map(str, case.axes))
    return (f"func.func @main(%x: {x}, %i: {i}, %u: {u}) -> {x} {{\n"
            f'  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {{axes = array<i64: {axes}>{extra}}} : ({x}, {i}, {u}) -> {x}\n'
            f"  return %0 : {x}\n}}\n")


CASES = (
    Case("torch.scatter, axis 1, [4096, 1024]", (4096, 1024), (4096, 1024), (1,), "none",
         lambda x, i, u: x.scatter(1, i, u)),
    Case("scatter_add, 200k edges x 64 into 10k nodes", (10000, 64), (200000, 1), (0,), "add",
         lambda x, i, u: x.index_add(0, i[:, 0], u), add_at=True),
    Case("index_add of rows, 8192 x 128 into 50k", (50000, 128), (8192, 1), (0,), "add",
         lambda x, i, u: x.index_add(0, i[:, 0], u), add_at=True),
)


def arguments(case: Case, rng) -> tuple:
    updates = infer_output_shape(case.input_shape, case.indices_shape, list(case.axes))
    x = rng.standard_normal(case.input_shape).astype(np.float32)
    i = rng.integers(0, case.input_shape[case.axes[0]], case.indices_shape)
    return x, i, rng.standard_normal(updates).astype(np.float32)


def run(threads: int | None, repeat: int) -> None:
    import torch

    if threads:
        torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    print(f"threads: gmx {threads or 'default'}, torch {torch.get_num_threads()}; medians of {repeat} calls")
    for case in CASES:
        x, i, u = arguments(case, rng)
        tx, ti, tu = (torch.from_numpy(a) for a in (x, i, u))
        checked, unchecked = (compile(scatter_text(case), checked=c, threads=threads) for c in (True, False))
        want = case.torch(tx, ti, tu).numpy()
        for program in (checked, unchecked):
            np.testing.assert_array_equal(program(x, i, u), want)
        calls = {"checked": lambda: checked(x, i, u), "unchecked": lambda: unchecked(x, i, u),
                 "torch": lambda: case.torch(tx, ti, tu)}
        if case.add_at:
            calls["np.add.at"] = lambda: np.add.at(x.copy(), i[:, 0], u)
        times = {name: statistics.median(s) for name, s in measure(calls, (), repeat).items()}
        strategy = plan_scatter(case.input_shape, case.indices_shape, u.shape, case.axes).strategy
        line = (f"{case.name}: {strategy}\n  gmx {times['checked'] * 1e3:.2f} ms (unchecked "
                f"{times['unchecked'] * 1e3:.2f}, checked/unchecked {times['checked'] / times['unchecked']:.2f}), "
                f"torch {times['torch'] * 1e3:.2f} ms: torch/gmx {times['torch'] / times['checked']:.2f}")
        if case.add_at:
            line += f", np.add.at {times['np.add.at'] * 1e3:.1f} ms: {times['np.add.at'] / times['checked']:.1f}x"
        print(line, flush=True)


def main() -> None:
    run_from_command_line(__doc__, run)


if __name__ == "__main__":
    main()
