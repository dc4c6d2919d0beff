"""MLIR element types <-> numpy dtypes, for arguments and results."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import ir


class ElementTypeError(GmxError, TypeError):
    """An element type the runtime cannot exchange with numpy."""


def numpy_dtype(element_type: ir.Type) -> np.dtype:
    """The numpy dtype that holds `element_type` with the same bytes."""
    t = element_type
    if isinstance(t, ir.IntegerType) and t.is_signless:
        if t.width == 1:
            return np.dtype(np.bool_)  # i1 is stored in one byte
        if t.width in (8, 16, 32, 64):
            return np.dtype(f"int{t.width}")
    if isinstance(t, ir.F16Type):
        return np.dtype(np.float16)
    if isinstance(t, ir.BF16Type):
        return np.dtype(ml_dtypes.bfloat16)
    if isinstance(t, ir.F32Type):
        return np.dtype(np.float32)
    if isinstance(t, ir.F64Type):
        return np.dtype(np.float64)
    if isinstance(t, ir.ComplexType):
        inner = numpy_dtype(t.element_type)
        if inner == np.float32:
            return np.dtype(np.complex64)
        if inner == np.float64:
            return np.dtype(np.complex128)
    raise ElementTypeError(f"element type {t} has no numpy counterpart in gmx.runtime")
