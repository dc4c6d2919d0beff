"""The machine a measurement ran on, as a dict (for JSON) and as one line."""

from __future__ import annotations

import importlib.metadata
import os
import platform


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _processor() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_summary() -> dict:
    """CPU count, processor, library versions and load at the time of the call."""
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "processor": _processor(),
        "platform": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "torch": _version("torch"),
        "torch_mlir": _version("torch-mlir"),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def machine_line(machine: dict) -> str:
    """`machine: 2 CPUs (2 usable), ...; load average 0.50 0.62 0.31`."""
    load = " ".join(f"{x:.2f}" for x in machine["load_average"] or [])
    return (
        f"machine: {machine['cpu_count']} CPUs ({machine['cpus_usable']} usable), {machine['processor']}, "
        f"{machine['platform']}; python {machine['python']}, numpy {machine['numpy']}, "
        f"torch {machine['torch']}, torch-mlir {machine['torch_mlir']}; load average {load}"
    )
