"""gmx-bench's IREE contenders (`iree_contenders`), beside those of
`contenders`:

    Iree       the frontend program after --gmx-canonicalize, compiled by
               gmx.runtime's iree backend for one device ("gmx iree cpu":
               local-task, IREE's task system on the usable cores; "gmx iree
               cuda": a CUDA GPU); a call's time is a whole gmx.runtime call
               (on the CPU, inputs aligned once are read in place; on a GPU,
               arguments to the device and results back)
    TorchCuda  the variant's torch expression on CUDA tensors made once;
               a call's time is the expression and a synchronize

The GPU ones are there only when a GPU is (IREE's cuda device, and torch's).
On a GPU each also measures its device time once, in `prepare`
(`info["device_us"]`: gmx-bench's GPU table): torch with CUDA events over
DEVICE_CALLS calls; gmx through IREE as the difference between a call of
the program compiled with every dispatch repeated DISPATCH_REPEAT times and
a plain call, over DISPATCH_REPEAT - 1 (`dispatch_time_us`), which leaves
out the transfers and the host's work.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gmx.runtime.memref import AlignedBuffer

from .contenders import Case, Prepared, op_counts
from .dtypes import from_torch, to_torch
from .pipelines import run_pipeline


DEVICE_CALLS = 200  # calls a device time is the mean or median of
DISPATCH_REPEAT = 101  # each dispatch this many times in the repeated program


def repeat_flags(repeat: int) -> tuple[str, ...]:
    """iree-compile's flags that run every dispatch `repeat` times."""
    return (f"--iree-hal-benchmark-dispatch-repeat-count={repeat}",)


def dispatch_time_us(plain: Callable[[], object], repeated: Callable[[], object], repeat: int,
                     calls: int = DEVICE_CALLS) -> float:
    """Microseconds the dispatches of one call take on the device: median
    call times of `repeated` (each dispatch `repeat` times) and `plain`,
    their difference over repeat - 1 (the transfers and the host's work
    cancel out)."""
    def median_s(call) -> float:
        call()
        samples = []
        for _ in range(calls):
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    return max(0.0, (median_s(repeated) - median_s(plain)) / (repeat - 1) * 1e6)


@dataclass(frozen=True)
class Iree:
    """The fused program on an IREE device (gmx.runtime, backend="iree")."""

    name: str = "gmx iree cpu"
    device: str = "local-task"
    checked: bool = True
    device_time: bool = False  # also measure the dispatches' device time (`dispatch_time_us`)

    def prepare(self, case: Case) -> Prepared:
        from gmx.runtime.iree_backend import IreeProgram

        start = time.perf_counter()
        fused = run_pipeline(case.text, ["gmx-canonicalize"])
        # IreeProgram, not gmx.runtime.compile: its cache would keep every large program alive.
        program = IreeProgram(fused.text, "main", self.checked, self.device)
        info = {"device": self.device, **op_counts(case.study.variant, fused.counts)}
        # Aligned once, outside the timing, so that IREE reads them in place
        # (as the engine reads any array in place; iree_backend.IMPORT_ALIGNMENT).
        inputs = [_aligned(a) for a in case.inputs]
        call = functools.partial(program, *inputs)
        if self.device_time:
            repeated = IreeProgram(fused.text, "main", self.checked, self.device, repeat_flags(DISPATCH_REPEAT))
            info["device_us"] = dispatch_time_us(call, functools.partial(repeated, *inputs), DISPATCH_REPEAT)
        return Prepared(call, time.perf_counter() - start, info)


def _aligned(array: np.ndarray) -> np.ndarray:
    """A copy of `array` on an aligned buffer (gmx.runtime.memref's)."""
    copy = AlignedBuffer(array.shape, array.dtype).array()
    np.copyto(copy, array)
    return copy


@dataclass(frozen=True)
class TorchCuda:
    """The variant's torch expression on the GPU, synchronized per call."""

    name: str = "torch cuda"

    def prepare(self, case: Case) -> Prepared:
        import torch

        forward = case.study.variant.torch_fn(case.study)
        tensors = [to_torch(a).cuda() for a in case.inputs]

        def call():
            out = forward(*tensors)
            torch.cuda.synchronize()
            return out

        info = {"device": torch.cuda.get_device_name(), "device_us": cuda_event_time_us(forward, tensors)}
        return Prepared(call, info=info, convert=lambda t: from_torch(t.cpu()))


def cuda_event_time_us(forward: Callable, tensors: list, calls: int = DEVICE_CALLS) -> float:
    """Mean microseconds of `forward(*tensors)` on the GPU: CUDA events
    around `calls` calls queued back to back, after a warm-up call."""
    import torch

    forward(*tensors)
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    begin.record()
    for _ in range(calls):
        forward(*tensors)
    end.record()
    torch.cuda.synchronize()
    return begin.elapsed_time(end) * 1e3 / calls


def iree_contenders() -> list:
    """`gmx iree cpu` where the [iree] extra is installed; `gmx iree cuda`
    and `torch cuda` where there is a GPU too."""
    try:
        from gmx.runtime.iree_backend import available_devices

        devices = available_devices()
    except ImportError:
        return []
    except Exception:  # noqa: BLE001  BackendUnavailable: the extra is not installed
        return []
    contenders = [Iree("gmx iree cpu", "local-task")]
    if "cuda" in devices:
        contenders.append(Iree("gmx iree cuda", "cuda", device_time=True))
        try:
            import torch

            if torch.cuda.is_available():
                contenders.append(TorchCuda("torch cuda"))
        except ImportError:
            pass
    return contenders
