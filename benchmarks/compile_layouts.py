"""Compile time against layout: N checked gathers in one function against
the same N gathers in N functions, each compiled as gmx-run compiles it
(`gmx.runtime.compile`: --gmx-lower-to-llvm, then the JIT).

A function of many gathers once compiled in superlinear time (1,000 in
one function took 20x the time of 1,000 functions): the ratio one
function / N functions is the measure, close to 1 when compile time is
linear in a function's gathers. Each compile is a child process (nothing
cached); the time of one that only imports gmx.runtime is subtracted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from gmx.tools.experiments.tables import markdown_table

GATHER = (
    '"gmx.gather_multiaxis"({x}, %i) {{axes = array<i64: 1>}} '
    ": (tensor<16x64xf32>, tensor<16x64xi64>) -> tensor<16x64xf32>"
)
SIGNATURE = "(%x: tensor<16x64xf32>, %i: tensor<16x64xi64>) -> tensor<16x64xf32>"


def one_function(n: int) -> str:
    """`@main` of n checked gathers, each gathering the previous result."""
    lines = [f"func.func @main{SIGNATURE} {{"]
    previous = "%x"
    for k in range(n):
        lines.append(f"  %g{k} = " + GATHER.format(x=previous))
        previous = f"%g{k}"
    lines.append(f"  return {previous} : tensor<16x64xf32>\n}}")
    return "\n".join(lines) + "\n"


def n_functions(n: int) -> str:
    """`@main` and n - 1 more functions of one checked gather each."""
    return "".join(
        f"func.func @{'main' if k == 0 else f'g{k}'}{SIGNATURE} {{\n"
        f"  %g = {GATHER.format(x='%x')}\n  return %g : tensor<16x64xf32>\n}}\n"
        for k in range(n)
    )


LAYOUTS = {"one function": one_function, "N functions": n_functions}
CHILD = "import sys\nfrom gmx.runtime import compile\ntext = open(sys.argv[1]).read()\nif text: compile(text)\n"


def _child_seconds(path: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CHILD, path], check=True, capture_output=True)
    return time.perf_counter() - start


def layout_times(n: int, repeat: int = 3) -> dict[str, float]:
    """Median seconds to compile each layout of n gathers, start-up
    subtracted, and "start-up" itself."""
    samples: dict[str, list[float]] = {"start-up": [], **{name: [] for name in LAYOUTS}}
    with tempfile.TemporaryDirectory(prefix="gmx-compile-layouts-") as directory:
        paths = {"start-up": os.path.join(directory, "empty.mlir")}
        open(paths["start-up"], "w").close()
        for name, make in LAYOUTS.items():
            paths[name] = os.path.join(directory, f"{name.replace(' ', '-')}.mlir")
            with open(paths[name], "w") as f:
                f.write(make(n))
        for _ in range(repeat):  # interleaved: a busy moment hits every layout alike
            for name, path in paths.items():
                samples[name].append(_child_seconds(path))
    medians = {name: sorted(s)[len(s) // 2] for name, s in samples.items()}
    startup = medians["start-up"]
    return {name: (t if name == "start-up" else t - startup) for name, t in medians.items()}


def markdown(n: int, times: dict[str, float]) -> str:
    head = ["gathers", "one function s", "N functions s", "one / N functions", "start-up s"]
    ratio = times["one function"] / times["N functions"] if times["N functions"] > 0 else float("nan")
    row = [n, f"{times['one function']:.2f}", f"{times['N functions']:.2f}", f"{ratio:.2f}x", f"{times['start-up']:.2f}"]
    return "\n".join(markdown_table(head, [row]))


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    print(markdown(size, layout_times(size, int(sys.argv[2]) if len(sys.argv) > 2 else 3)))
