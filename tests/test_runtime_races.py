"""Checked gathers whose indices another thread rewrites during the call:
each index value is read once and the gather is safe on the value it
read, so a call may raise IndexError or return values of the input, and
never reads outside it (no value from elsewhere, no signal).

The race runs in a subprocess with a time budget: a crash must fail one
test, not end the session.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import gmx.runtime
    sys.path.insert(0, sys.argv[2])
    from index_races import race

    def program(x_shape, i_shape, axes):
        t = lambda shape, e: f"tensor<{'x'.join(map(str, shape))}x{e}>"
        from gmx.passes.lowering.gather_plan import plan_gather
        out = plan_gather(x_shape, i_shape, axes).output_shape
        return (f'func.func @main(%x: {t(x_shape, "f32")}, %i: {t(i_shape, "i64")}) -> {t(out, "f32")} {{\\n'
                f'  %0 = "gmx.gather_multiaxis"(%x, %i) {{axes = array<i64: {", ".join(map(str, axes))}>}} '
                f': ({t(x_shape, "f32")}, {t(i_shape, "i64")}) -> {t(out, "f32")}\\n'
                f'  return %0 : {t(out, "f32")}\\n}}\\n')

    CASES = {  # strategy: (input, indices, axes)
        "whole (block)": ((4096, 64), (8192, 1), [0]),
        "column tiles (x[i, :, j])": ((64, 256, 64), (2048, 1, 2), [0, 2]),
        "row tiles": ((64, 50, 8), (64, 1024, 1), [1]),
        "flagged": ((256, 128), (256, 128), [1]),
    }
    problems = []
    for name, (x_shape, i_shape, axes) in CASES.items():
        x = np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape)  # every value says where it is
        sizes = [x_shape[a] for a in axes]
        rng = np.random.default_rng(0)
        good = np.stack([rng.integers(0, n, i_shape[:-1] + (i_shape[-1] // len(axes),)) for n in sizes], -1)
        good = good.reshape(i_shape)
        call = gmx.runtime.compile(program(x_shape, i_shape, axes), threads=2)
        seconds = float(sys.argv[1]) / len(CASES)
        if race(lambda indices: call(x, indices), good.copy(), good, seconds, lambda out: not np.isin(out, x).all()):
            problems.append(f"{name}: a value from outside the input")
    print(problems)
    sys.exit(1 if problems else 0)
    """
)


def test_indices_rewritten_during_checked_calls_never_read_outside_the_input():
    tests = str(Path(__file__).parent)
    result = subprocess.run([sys.executable, "-c", SCRIPT, "2", tests], capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
