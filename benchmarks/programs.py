"""The benchmarked gathers: torch modules, their inputs, and their TOSA export.

Each `Variant` is one PyTorch gather. `export_case` exports it with
`torch_mlir.fx.export_and_import(..., output_type="tosa")` at static shapes
(shapes are baked into the program, so the export is done at the benchmarked
size) and computes the expected output with PyTorch eager. What torch-mlir
emits, e.g. for `torch.gather(x, 1, idx)`:

    values = tosa.reshape x -> [1, X, 1]                  (fully flattened)
    coords = tosa.concat(iota_d0, cast(idx), iota_d2)     (iotas are tosa.const
    flat   = reduce_sum(mul(coords, strides), axis=1)      as large as the output)
    out    = reshape(tosa.gather values, flat)

`embedding` is the exception: torch-mlir emits one plain tosa.gather on the
unflattened table, with no linearised index arithmetic.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SIZES = ("full", "quick")


@dataclass(frozen=True)
class ArraySpec:
    """A random input: float32 in [0, 1) when `high` is None, else int64 in [0, high)."""

    shape: tuple[int, ...]
    high: int | None = None

    def make(self, rng: np.random.Generator) -> np.ndarray:
        if self.high is None:
            return rng.random(self.shape, dtype=np.float32)
        return rng.integers(0, self.high, self.shape, dtype=np.int64)


@dataclass(frozen=True)
class Variant:
    """One gather as PyTorch writes it, with its input specs per size."""

    name: str
    expression: str
    forward: Callable
    inputs: dict[str, tuple[ArraySpec, ...]]
    linearised: bool = True
    numpy_forward: Callable | None = None  # the same gather in numpy
    numpy_expression: str = ""
    # elementwise: one index per output element; block: one index per row of
    # >= 64 contiguous elements (compared with memcpy); broadcast: indices
    # broadcast against the data (peak memory is measured).
    kind: str = "elementwise"


@dataclass
class Case:
    """A variant exported at one size: the program and what it must return."""

    variant: Variant
    size: str
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray
    text: str
    export_s: float

    @property
    def output_elements(self) -> int:
        return int(self.expected.size)

    @property
    def output_bytes(self) -> int:
        return int(self.expected.nbytes)


# PyTorch forms (what is exported, and the torch contenders) and numpy forms
# (the numpy contenders) of each variant.


def _gather_elements(x, idx):
    import torch

    return torch.gather(x, 1, idx)


def _index_select(x, idx):
    import torch

    return torch.index_select(x, 0, idx)


def _index_select_mid(x, idx):
    import torch

    return torch.index_select(x, 1, idx)


def _embedding(w, idx):
    return w[idx]


def _advanced(x, i, j):
    return x[i, :, j]


def _take_along_dim(x, idx):
    import torch

    return torch.take_along_dim(x, idx, dim=1)


VARIANTS = (
    Variant(
        "gather_elements", "torch.gather(x, 1, idx)", _gather_elements,
        {
            "full": (ArraySpec((256, 256, 64)), ArraySpec((256, 256, 64), high=256)),
            "quick": (ArraySpec((8, 16, 4)), ArraySpec((8, 12, 4), high=16)),
        },
        numpy_forward=lambda x, idx: np.take_along_axis(x, idx, 1),
        numpy_expression="np.take_along_axis(x, idx, 1)",
        kind="elementwise",
    ),
    Variant(
        "take_along_dim_bcast", "torch.take_along_dim(x, idx, dim=1)", _take_along_dim,
        {
            "full": (ArraySpec((256, 256, 64)), ArraySpec((256, 256, 1), high=256)),
            "quick": (ArraySpec((8, 16, 4)), ArraySpec((8, 12, 1), high=16)),
        },
        numpy_forward=lambda x, idx: np.take_along_axis(x, idx, 1),
        numpy_expression="np.take_along_axis(x, idx, 1)",
        kind="broadcast",
    ),
    Variant(
        "index_select", "torch.index_select(x, 0, idx)", _index_select,
        {
            "full": (ArraySpec((50000, 256)), ArraySpec((16384,), high=50000)),
            "quick": (ArraySpec((100, 16)), ArraySpec((64,), high=100)),
        },
        numpy_forward=lambda x, idx: np.take(x, idx, 0),
        numpy_expression="np.take(x, idx, 0)",
        kind="block",
    ),
    Variant(
        "onnx_gather_axis1", "torch.index_select(x, 1, idx)", _index_select_mid,
        {
            "full": (ArraySpec((64, 4096, 64)), ArraySpec((1024,), high=4096)),
            "quick": (ArraySpec((4, 32, 8)), ArraySpec((16,), high=32)),
        },
        numpy_forward=lambda x, idx: np.take(x, idx, 1),
        numpy_expression="np.take(x, idx, 1)",
        kind="block",
    ),
    Variant(
        "embedding", "w[idx]", _embedding,
        {
            "full": (ArraySpec((50000, 128)), ArraySpec((256, 128), high=50000)),
            "quick": (ArraySpec((100, 8)), ArraySpec((4, 6), high=100)),
        },
        linearised=False,
        numpy_forward=lambda w, idx: w[idx],
        numpy_expression="w[idx]",
        kind="block",
    ),
    Variant(
        "advanced", "x[i, :, j]", _advanced,
        {
            "full": (ArraySpec((64, 4096, 64)), ArraySpec((1024,), high=64), ArraySpec((1024,), high=64)),
            "quick": (ArraySpec((8, 32, 8)), ArraySpec((16,), high=8), ArraySpec((16,), high=8)),
        },
        numpy_forward=lambda x, i, j: x[i, :, j],
        numpy_expression="x[i, :, j]",
        kind="elementwise",
    ),
)


def variant_names() -> list[str]:
    return [v.name for v in VARIANTS]


def select_variants(names: list[str] | None) -> list[Variant]:
    """The variants named (all when None), in table order."""
    if not names:
        return list(VARIANTS)
    unknown = sorted(set(names) - set(variant_names()))
    if unknown:
        raise ValueError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(variant_names())}")
    return [v for v in VARIANTS if v.name in names]


def _torch_module(forward: Callable):
    """A torch.nn.Module whose forward is `forward` (exportable by torch.export)."""
    import torch

    class Module(torch.nn.Module):
        def forward(self, *args):
            return forward(*args)

    return Module()


def make_inputs(variant: Variant, size: str, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Deterministic random inputs; every index is in bounds."""
    rng = np.random.default_rng(seed)
    return tuple(spec.make(rng) for spec in variant.inputs[size])


def eager(variant: Variant, inputs: tuple[np.ndarray, ...]) -> np.ndarray:
    """PyTorch eager's output: the ground truth every contender must equal."""
    import torch

    with torch.no_grad():
        return variant.forward(*(torch.from_numpy(a) for a in inputs)).numpy()


def export_tosa(variant: Variant, inputs: tuple[np.ndarray, ...]) -> str:
    """The TOSA text torch-mlir's FX importer produces at these static shapes."""
    import torch
    from torch_mlir import fx

    tensors = [torch.from_numpy(a) for a in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch.export's pytree deprecations
        module = fx.export_and_import(_torch_module(variant.forward), *tensors, output_type="tosa")
    return str(module)


def export_case(variant: Variant, size: str) -> Case:
    """Inputs, eager output and exported program of `variant` at `size`."""
    inputs = make_inputs(variant, size)
    start = time.perf_counter()
    text = export_tosa(variant, inputs)
    export_s = time.perf_counter() - start
    return Case(variant, size, inputs, eager(variant, inputs), text, export_s)
