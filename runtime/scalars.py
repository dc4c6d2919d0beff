"""A Python number given for an argument: a 0-d array of the argument's
dtype, as numpy takes a Python scalar (a "weak" scalar, NEP 50).

    number_as_array(2.5, np.float32)    -> array(2.5, dtype=float32)
    number_as_array(300, np.int8)       -> ValueError (does not fit)
    number_as_array(2.5, np.int32)      -> 2.5, left for the dtype check

A bool takes a bool dtype; an int an integer or floating dtype (exactly
when it fits: an int out of an integer dtype's range is a ValueError,
never wrapped); a float a floating one; a complex a complex one. Anything
else (numpy scalars, arrays, a float for an integer) is returned as it
came, for the runtime's exact dtype check: a numpy scalar is an array of
its own dtype.
"""

from __future__ import annotations

import numbers

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == BFLOAT16


def _takes(value, dtype: np.dtype) -> bool:
    """Whether the Python number `value` converts to `dtype` as numpy's weak scalars do."""
    if isinstance(value, bool):
        return dtype.kind == "b"
    if isinstance(value, int):
        return dtype.kind in "iu" or _floating(dtype)
    if isinstance(value, float):
        return _floating(dtype)
    return isinstance(value, complex) and dtype.kind == "c"


def number_as_array(value, dtype: np.dtype, what: str):
    """`value` as a 0-d array of `dtype` when it is a Python number of a
    kind `dtype` takes, else `value` unchanged; ValueError naming `what`
    when an int does not fit an integer dtype."""
    if isinstance(value, (np.generic, np.ndarray)) or not isinstance(value, numbers.Number):
        return value
    if not _takes(value, dtype):
        return value
    if dtype.kind in "iu" and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
        raise ValueError(f"{what} is {dtype}, and the Python int {value} does not fit it")
    return np.asarray(value, dtype=dtype)
