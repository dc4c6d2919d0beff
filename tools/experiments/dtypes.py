"""Element types of a study, by their MLIR spelling (`f32`, `i64`, ...), and
the conversions between numpy, torch and ONNX for each.

bf16 has no numpy dtype of its own: numpy arrays hold it as
`ml_dtypes.bfloat16` (what gmx.runtime exchanges) and torch sees the same
bytes through an int16 view.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

DATA_DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
}
INDEX_DTYPES = {"i32": np.dtype(np.int32), "i64": np.dtype(np.int64)}

_ONNX_TYPES = {"f16": "FLOAT16", "bf16": "BFLOAT16", "f32": "FLOAT", "f64": "DOUBLE", "i1": "BOOL",
               "i8": "INT8", "i16": "INT16", "i32": "INT32", "i64": "INT64"}


def random_data(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random values of `dtype` (MLIR spelling): normal floats, integers in
    [-100, 100), or booleans."""
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.startswith("i"):
        return rng.integers(-100, 100, shape).astype(DATA_DTYPES[dtype])
    return rng.standard_normal(shape).astype(DATA_DTYPES[dtype])


def onnx_type(dtype: str) -> int:
    """The onnx.TensorProto element type of an MLIR element type spelling."""
    import onnx

    return getattr(onnx.TensorProto, _ONNX_TYPES[dtype])


def to_torch(array: np.ndarray):
    """A torch tensor sharing `array`'s memory (bf16 through an int16 view)."""
    import torch

    if array.dtype == DATA_DTYPES["bf16"]:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def from_torch(tensor) -> np.ndarray:
    """The numpy array of a torch tensor (bf16 as ml_dtypes.bfloat16)."""
    import torch

    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()
