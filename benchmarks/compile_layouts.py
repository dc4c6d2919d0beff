"""Compile time against layout: N checked gathers in one function against
the same N gathers in N functions, each module lowered by a `gmx-opt
--gmx-canonicalize --gmx-lower-to-llvm` child process, as the compile-time
section measures module size (`compile_time.gmx_opt_seconds`).

A function of many gathers once lowered in quadratic time (one-shot
bufferization of a CSE-shared tensor, scf-to-cf moving every op after each
loop): the ratio one function / N functions is the measure, close to 1
when the lowering is linear in a function's gathers. The time of an empty
module (start-up) is subtracted. (LLVM's own optimisation and code
generation of one huge function, which the JIT adds, are not measured here.)
"""

from __future__ import annotations

import sys
import tempfile

from gmx.tools.experiments.tables import markdown_table

from .compile_time import gmx_opt_seconds

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


def layout_times(n: int, repeat: int = 3) -> dict[str, float]:
    """Median seconds to lower each layout of n gathers, start-up
    subtracted, and "start-up" itself (an empty module)."""
    texts = {"start-up": "", **{name: make(n) for name, make in LAYOUTS.items()}}
    samples: dict[str, list[float]] = {name: [] for name in texts}
    with tempfile.TemporaryDirectory(prefix="gmx-compile-layouts-") as directory:
        for _ in range(repeat):  # interleaved: a busy moment hits every layout alike
            for name, text in texts.items():
                samples[name].append(gmx_opt_seconds(text, directory))
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
