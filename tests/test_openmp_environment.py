"""The OpenMP and KMP variables a user may have set for torch never crash
or hang gmx's libomp (runtime/openmp_environment.py): before, a malformed
OMP_NUM_THREADS ('', '-3', 'abc') made a call on 2 threads abort with
`OMP: Error #101: Out of heap memory` or hang, at random."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gmx.runtime.openmp_environment import VALIDATED, refused_values

# Every variable a user sets for an OpenMP runtime that libomp reads, and
# some it reads that gmx does not pass on.
VARIABLES = [*VALIDATED, "KMP_HW_SUBSET", "KMP_TOPOLOGY_METHOD", "GOMP_CPU_AFFINITY", "GOMP_STACKSIZE",
             "OMP_DISPLAY_ENV", "KMP_SETTINGS", "OMP_TOOL_LIBRARIES", "OMP_TARGET_OFFLOAD", "KMP_INIT_AT_FORK"]
HOSTILE = ["", " ", "-3", "abc", "99999999999999999999", "1,", ",", "{", "}", "true,false", "1000000000g",
           "(", "\u00e9", "1" * 300, "cores(", "{0:", "granularity=", "-1,-1"]
# Well-formed settings, as one would set them for torch.
WELL_FORMED = {
    "OMP_NUM_THREADS": "4,2", "OMP_THREAD_LIMIT": "8", "OMP_DYNAMIC": "false", "OMP_NESTED": "FALSE",
    "OMP_MAX_ACTIVE_LEVELS": "1", "OMP_PROC_BIND": "spread,close", "OMP_PLACES": "{0:2},{2:2}",
    "OMP_WAIT_POLICY": "passive", "OMP_SCHEDULE": "dynamic,4", "OMP_STACKSIZE": "16M", "KMP_STACKSIZE": "8m",
    "KMP_AFFINITY": "granularity=fine,compact,1,0", "KMP_BLOCKTIME": "200", "KMP_LIBRARY": "throughput",
}


@pytest.mark.parametrize("value", HOSTILE)
def test_a_malformed_value_is_hidden_from_libomp_and_named(value):
    hidden, malformed = refused_values({name: value for name in VARIABLES} | {"PATH": "/bin"})
    assert sorted(hidden) == sorted(VARIABLES), value
    assert sorted(malformed) == sorted(VALIDATED), value


def test_zero_is_malformed_where_a_count_is_due():
    hidden, malformed = refused_values({name: "0" for name in VARIABLES})
    assert sorted(malformed) == sorted(set(VALIDATED) - {"OMP_DYNAMIC", "OMP_NESTED", "OMP_PROC_BIND",
                                                            "OMP_MAX_ACTIVE_LEVELS", "KMP_BLOCKTIME"})


def test_well_formed_values_reach_libomp():
    assert set(WELL_FORMED) == set(VALIDATED)
    hidden, malformed = refused_values(WELL_FORMED)
    assert hidden == ["OMP_NUM_THREADS"] and malformed == []  # gmx sets every call's count itself


CHILD = """
import os, sys, warnings
import numpy as np
import gmx.runtime
N = 1 << 17
before = dict(os.environ)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    program = gmx.runtime.compile(f'''func.func @main(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %0 = tosa.abs %x : (tensor<{N}xf32>) -> tensor<{N}xf32>
  return %0 : tensor<{N}xf32>
}}''', threads=2)
    x = -np.arange(N, dtype=np.float32)
    for _ in range(20):
        assert (program(x) == -x).all()
assert dict(os.environ) == before, "the environment changed"
for _ in range(3):  # libomp starts over in a forked child, reading the environment again
    pid = os.fork()
    if pid == 0:
        ok = all((program(x) == -x).all() for _ in range(10)) and dict(os.environ) == before
        os._exit(0 if ok else 3)
    assert os.waitpid(pid, 0)[1] == 0, "a forked child failed"
assert dict(os.environ) == before, "the environment changed across a fork"
print("\\n".join(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)))
print("RAN")
"""


def _children(environments: list[dict]) -> list[tuple[dict, subprocess.Popen]]:
    """A child calling a 2-thread program per environment, all at once."""
    return [(environment, subprocess.Popen([sys.executable, "-c", CHILD], env=environment, text=True,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE))
            for environment in environments]


def test_no_crash_nor_hang_under_any_value():
    """In children with timeouts: every variable at once at a hostile
    value, the issue's own values first; once well-formed. Each forks too
    (a malformed OMP_NUM_THREADS crashed every forked child's call)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "KMP_", "GOMP_", "LIBOMP_"))}
    values = ["", "-3", "abc", "99999999999999999999", "{"]
    environments = [base | {name: value for name in VARIABLES} for value in values] + [base | WELL_FORMED]
    problems = []
    for environment, child in _children(environments):
        value = environment["OMP_THREAD_LIMIT"]
        try:
            out, err = child.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            problems.append(f"{value!r}: hung")
            continue
        if child.returncode != 0 or "RAN" not in out:
            problems.append(f"{value!r}: exit {child.returncode}: {err.strip().splitlines()[-2:]}")
        elif environment is not environments[-1] and f"OMP_NUM_THREADS={value!r}" not in out:
            problems.append(f"{value!r}: no warning naming it: {out!r}")
        elif environment is environments[-1] and "ignores" in out:
            problems.append(f"well-formed values were ignored: {out!r}")
    assert not problems, "\n".join(problems)
