"""Checked scatters whose indices another thread rewrites during the call:
each index value is read once where it is written through, and an index
outside its axis is skipped there, so a call may raise IndexError or
write the updates into some of their rows, and never writes outside the
result (no signal, no value from elsewhere); a donated input it raises on
is left as it was. As tests/test_runtime_races.py for gathers.

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
    from scatter_programs import Case, scatter_module

    CASES = {  # strategy: case (reduction "none": every value says where it came from)
        "rows split (torch.scatter, axis 1)": Case((256, 512), (256, 256), (256, 256), (1,)),
        "ranges of targets (index_add of rows)": Case((512, 128), (4096, 1), (4096, 128), (0,)),
        "ranges of sorted targets (MoE combine)": Case((512, 1024), (1024, 1), (1024, 1024), (0,)),
        "columns split (into one row)": Case((1, 256), (4096, 1), (4096, 256), (0,)),
        "serial (rank 1)": Case((1000,), (65536,), (65536,), (0,)),
    }
    DONATED = Case((256, 512), (256, 256), (256, 256), (1,))  # rows split, each tile saved first (saves_tiles)
    problems = []
    for name, case in CASES.items():
        x = -np.arange(np.prod(case.input_shape), dtype=np.float32).reshape(case.input_shape) - 1
        u = np.arange(np.prod(case.updates_shape), dtype=np.float32).reshape(case.updates_shape)
        rng = np.random.default_rng(0)
        good = rng.integers(0, case.input_shape[case.axes[0]], case.indices_shape)
        call = gmx.runtime.compile(scatter_module([case]), threads=2)
        seconds = float(sys.argv[1]) / len(CASES)
        written = np.concatenate([x.ravel(), u.ravel()])
        if race(lambda indices: call(x, indices, u), good.copy(), good, seconds,
                lambda out: not np.isin(out, written).all()):
            problems.append(f"{name}: a value from neither the input nor the updates")

    # Donated: written in place, so the buffer itself is checked: after an
    # IndexError it is what it was before the call (its saved tiles
    # restored); after a clean call it holds values of the input and the
    # updates only.
    x = -np.arange(np.prod(DONATED.input_shape), dtype=np.float32).reshape(DONATED.input_shape) - 1
    u = np.arange(np.prod(DONATED.updates_shape), dtype=np.float32).reshape(DONATED.updates_shape)
    written = np.concatenate([x.ravel(), u.ravel()])
    good = np.random.default_rng(0).integers(0, DONATED.input_shape[1], DONATED.indices_shape)
    call = gmx.runtime.compile(scatter_module([DONATED]), threads=2, donate=(0,))

    def donated(indices):
        before = x.copy()
        try:
            return call(x, indices, u)
        except IndexError:
            if not np.array_equal(x, before):
                problems.append("donated rows: the buffer written on an IndexError")
            raise

    if race(donated, good.copy(), good, float(sys.argv[1]) / len(CASES), lambda out: not np.isin(out, written).all()):
        problems.append("donated rows: a value from neither the input nor the updates")
    print(problems)
    sys.exit(1 if problems else 0)
    """
)


def test_indices_rewritten_during_checked_scatters_never_write_outside_the_result():
    tests = str(Path(__file__).parent)
    result = subprocess.run([sys.executable, "-c", SCRIPT, "2", tests], capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
