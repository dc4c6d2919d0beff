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

SCRIPT = textwrap.dedent(
    """
    import sys, threading, time
    import numpy as np
    import gmx.runtime

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
        deadline = time.monotonic() + float(sys.argv[1]) / len(CASES)
        x = np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape)  # every value says where it is
        sizes = [x_shape[a] for a in axes]
        rng = np.random.default_rng(0)
        good = np.stack([rng.integers(0, n, i_shape[:-1] + (i_shape[-1] // len(axes),)) for n in sizes], -1)
        good = good.reshape(i_shape)
        indices = good.copy()
        call = gmx.runtime.compile(program(x_shape, i_shape, axes), threads=2)
        done = threading.Event()

        def rewrite():
            bad = np.full_like(good, 1 << 40)
            while not done.is_set():
                np.copyto(indices, bad)
                np.copyto(indices, good)

        writer = threading.Thread(target=rewrite)
        writer.start()
        calls = 0
        try:
            while calls < 20 or time.monotonic() < deadline:
                calls += 1
                try:
                    out = call(x, indices)
                except IndexError:
                    continue
                if not np.isin(out, x).all():
                    problems.append(f"{name}: a value from outside the input")
                    break
                if calls > 400:
                    break
        finally:
            done.set()
            writer.join()
    print(problems)
    sys.exit(1 if problems else 0)
    """
)


def test_indices_rewritten_during_checked_calls_never_read_outside_the_input():
    result = subprocess.run([sys.executable, "-c", SCRIPT, "2"], capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
