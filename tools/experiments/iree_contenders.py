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
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from gmx.dialect import OP_NAME
from gmx.runtime.memref import AlignedBuffer

from .contenders import Case, Prepared
from .dtypes import from_torch, to_torch
from .pipelines import run_pipeline


@dataclass(frozen=True)
class Iree:
    """The fused program on an IREE device (gmx.runtime, backend="iree")."""

    name: str = "gmx iree cpu"
    device: str = "local-task"
    checked: bool = True

    def prepare(self, case: Case) -> Prepared:
        from gmx.runtime.iree_backend import IreeProgram

        start = time.perf_counter()
        fused = run_pipeline(case.text, ["gmx-canonicalize"])
        # IreeProgram, not gmx.runtime.compile: its cache would keep every large program alive.
        program = IreeProgram(fused.text, "main", self.checked, self.device)
        info = {"device": self.device, "gmx_ops": fused.counts[OP_NAME]}
        # Aligned once, outside the timing, so that IREE reads them in place
        # (as the engine reads any array in place; iree_backend.IMPORT_ALIGNMENT).
        inputs = [_aligned(a) for a in case.inputs]
        return Prepared(functools.partial(program, *inputs), time.perf_counter() - start, info)


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

        return Prepared(call, info={"device": torch.cuda.get_device_name()}, convert=lambda t: from_torch(t.cpu()))


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
        contenders.append(Iree("gmx iree cuda", "cuda"))
        try:
            import torch

            if torch.cuda.is_available():
                contenders.append(TorchCuda("torch cuda"))
        except ImportError:
            pass
    return contenders
