"""gmx-run's argument arrays, read from .npy files without trusting them.

The header is read and checked before any data: a file must hold the
bytes its header promises (a header claiming 4 TiB over a few bytes is
refused, not allocated), never Python objects (nothing is unpickled), and
be a .npy file, not an .npz archive. bfloat16 arrays saved with numpy and
ml_dtypes read back as raw 2-byte voids (`|V2`, numpy does not know the
type): `as_argument` views them as bfloat16 for a bf16 argument.
"""

from __future__ import annotations

import math
import os
import stat
import sys

import ml_dtypes
import numpy as np

from gmx.dialect.errors import GmxError

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"
_HEADER_READERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


class InputError(GmxError):
    """An argument file that cannot be read; the message names it."""


def load_npy(path: str) -> np.ndarray:
    """The array of a .npy file; raises InputError for anything else."""
    try:
        with open(path, "rb") as handle:
            _check_header(handle, path)
            handle.seek(0)
            return np.load(handle, allow_pickle=False)
    except OSError as error:
        raise InputError(f"could not open input '{path}': {error.strerror or error}") from None
    except (ValueError, EOFError, MemoryError) as error:
        raise InputError(f"could not read input '{path}': {error}") from None


def _check_header(handle, path: str) -> None:
    """Raise InputError unless the header describes a plain numeric array
    whose data the file holds (checked where it has a size: a regular file)."""
    magic = handle.read(len(_NPY_MAGIC))
    if magic.startswith(_ZIP_MAGIC):
        raise InputError(f"input '{path}' is an .npz archive: give each argument as its own .npy file")
    if magic != _NPY_MAGIC:
        raise InputError(f"input '{path}' is not a .npy file")
    handle.seek(0)
    version = np.lib.format.read_magic(handle)
    if version not in _HEADER_READERS:
        raise InputError(f"input '{path}' is a .npy file of version {version[0]}.{version[1]}, not 1.0 or 2.0")
    shape, _, dtype = _HEADER_READERS[version](handle)
    _check_shape(path, shape, dtype)
    if dtype.hasobject:
        raise InputError(f"input '{path}' holds Python objects; gmx-run never unpickles (numeric arrays only)")
    info = os.fstat(handle.fileno())
    if stat.S_ISREG(info.st_mode):
        _check_size(path, shape, dtype, info.st_size - handle.tell())


def _check_shape(path: str, shape: tuple, dtype: np.dtype) -> None:
    """Dims that are non-negative ints (not bools) whose array has a size
    this process can address, whatever the file holds (a pipe's size is
    not known before reading it)."""
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 0:
            raise InputError(f"input '{path}' has a malformed header: dim {dim!r} of shape {shape!r} "
                             "is not a non-negative integer")
    if max(shape, default=0) > sys.maxsize or math.prod(shape) * max(dtype.itemsize, 1) > sys.maxsize:
        raise InputError(f"input '{path}' has a header promising {dtype}{list(shape)}, "
                         f"more than {sys.maxsize} bytes: beyond what any array can hold")


def _check_size(path: str, shape: tuple, dtype: np.dtype, held: int) -> None:
    promised = math.prod(shape) * dtype.itemsize
    if held < promised:
        raise InputError(
            f"input '{path}' is truncated: its header promises {dtype}{list(shape)} "
            f"({promised} bytes of data), the file holds {held}"
        )


def as_argument(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`array` as an argument of element `dtype`: a `|V2` array (bfloat16
    saved by numpy) is viewed as bfloat16 for a bf16 argument; any other
    array is left for the runtime to check."""
    if dtype == BFLOAT16 and array.dtype.kind == "V" and array.dtype.itemsize == 2 and array.dtype.names is None:
        return array.view(BFLOAT16)
    return array
