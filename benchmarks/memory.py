"""Peak memory of one call: does a broadcasting gather materialise anything?

Each contender runs in a child process (`python -m gmx.benchmarks.memory
VARIANT CONTENDER`), so that memory freed by one cannot be reused unseen by
the next. The child exports and prepares the variant, calls it once to warm
up, resets the kernel's high-water mark (`/proc/self/clear_refs`), calls
again and reports how far the resident set rose above its level before the
call. Peak = inputs + that rise; the table gives peak / (inputs + output):
1.0 means nothing but the output was allocated.
"""

from __future__ import annotations

import ctypes
import gc
import json
import subprocess
import sys

from gmx.tools.experiments.tables import markdown_table

from .suite import default_contenders, select

CONTENDERS = ("gmx", "unfused", "numpy", "torch 1t")


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"no {field} in /proc/self/status")


def measure_child(variant_name: str, contender_name: str, size: str) -> dict:
    """In the child: the rise of the resident set during one call (bytes)."""
    case = select([variant_name])[0].case(size)
    contender = next(c for c in default_contenders() if c.name == contender_name)
    call = contender.prepare(case).call
    call()  # warm up: lazy initialisations, first touch of the inputs
    gc.collect()
    ctypes.CDLL(None).malloc_trim(0)  # give freed memory back, so reuse shows as a rise
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current resident set
    before = _status_kb("VmRSS")
    output = call()
    peak = _status_kb("VmHWM")
    del output
    inputs = sum(a.nbytes for a in case.inputs)
    return {"rise": (peak - before) * 1024, "inputs": inputs, "output": case.output_bytes}


def peak_memory(variant_name: str, size: str) -> dict[str, dict]:
    """Per contender, the child's measurement (or its error)."""
    results = {}
    for name in CONTENDERS:
        child = subprocess.run(
            [sys.executable, "-m", "gmx.benchmarks.memory", variant_name, name, size],
            capture_output=True, text=True,
        )
        if child.returncode:
            results[name] = {"error": (child.stderr.strip().splitlines() or ["failed"])[-1]}
        else:
            results[name] = json.loads(child.stdout.strip().splitlines()[-1])
    return results


def markdown(variant_name: str, results: dict[str, dict]) -> str:
    head = ["contender", "inputs MB", "output MB", "rise during the call MB", "peak / (inputs + output)"]
    rows = []
    for name, r in results.items():
        if "error" in r:
            rows.append([name, "–", "–", "–", f"FAILED: {r['error']}"])
            continue
        ratio = (r["inputs"] + r["rise"]) / (r["inputs"] + r["output"])
        rows.append([name, f"{r['inputs'] / 1e6:.1f}", f"{r['output'] / 1e6:.1f}", f"{r['rise'] / 1e6:.1f}",
                     f"{ratio:.2f}"])
    return f"Peak memory of `{variant_name}`:\n\n" + "\n".join(markdown_table(head, rows))


if __name__ == "__main__":
    print(json.dumps(measure_child(*sys.argv[1:4])))
