"""numpy arrays <-> ranked memref descriptors of the C interface.

Arguments are passed as contiguous arrays without copies where possible.
Results are buffers the compiled code allocated and the caller owns (see
`gmx.passes.lowering.gmx_lower_to_llvm`): each becomes a numpy array viewing that buffer
without a copy, and the buffer is freed exactly once, when the last array
viewing it is gone.
"""

from __future__ import annotations

import ctypes
import functools
import math
import sys

import numpy as np

from gmx.passes.lowering.runtime_abi import DESTINATION_ALIGNMENT

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


@functools.cache
def descriptor_type(rank: int) -> type:
    """The C struct of a ranked memref: pointers, offset, sizes, strides."""
    fields = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
    ]
    if rank:
        fields += [("shape", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRefDescriptor{rank}D", (ctypes.Structure,), {"_fields_": fields})


def results_struct_type(ranks: list[int]) -> type:
    """The struct the C interface returns several results in."""
    fields = [(f"r{i}", descriptor_type(rank)) for i, rank in enumerate(ranks)]
    return type("Results", (ctypes.Structure,), {"_fields_": fields})


def _data_pointer_reader():
    """A function of an ndarray to the address of its data. `a.ctypes.data`
    costs a microsecond (it builds an object); the address is also the first
    field after the object header of numpy's `PyArrayObject` (an ABI numpy
    keeps), read in a tenth of that. Used only when it reads the same
    address as `ctypes.data` on a probe array."""
    header = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)  # refcount, type
    at = ctypes.c_void_p.from_address

    def fast(array: np.ndarray) -> int:
        return at(id(array) + header).value or 0

    probe = np.arange(3)
    if fast(probe) == probe.ctypes.data and fast(probe[1:]) == probe[1:].ctypes.data:
        return fast
    return lambda array: array.ctypes.data


data_pointer = _data_pointer_reader()

ALIGNMENT = DESTINATION_ALIGNMENT  # bytes: what the compiled code assumes of a destination


class AlignedBuffer:
    """Bytes for C-contiguous arrays of one shape and dtype, their data
    ALIGNMENT-byte aligned (numpy's own allocations are 16-byte aligned)."""

    __slots__ = ("raw", "offset", "pointer", "shape", "dtype")

    def __init__(self, shape: tuple, dtype: np.dtype):
        self.raw = np.empty(math.prod(shape) * dtype.itemsize + ALIGNMENT, np.uint8)
        start = data_pointer(self.raw)
        self.offset = -start % ALIGNMENT
        self.pointer = start + self.offset
        self.shape, self.dtype = shape, dtype

    def array(self) -> np.ndarray:
        """An array on the buffer (whose base is the buffer's bytes)."""
        return np.ndarray(self.shape, self.dtype, self.raw, self.offset)

    def unused(self) -> bool:
        """Whether no array on the buffer is left: numpy makes every view
        of a view refer to the bytes, so only this object refers to them
        then (a buffer held through an ndarray by anything else, a
        memoryview or torch.from_numpy, holds a view)."""
        return sys.getrefcount(self.raw) <= 2  # this object's slot and the argument


def set_contiguous_layout(descriptor, shape: tuple) -> None:
    """Sizes and (element) strides of a C-contiguous array of `shape`."""
    if not shape:
        return
    descriptor.shape[:] = shape
    stride, strides = 1, []
    for n in reversed(shape):
        strides.append(stride)
        stride *= max(n, 1)
    descriptor.strides[:] = strides[::-1]


def strided_view(descriptor, rank: int, dtype: np.dtype, owner=None) -> np.ndarray:
    """A writable numpy view of the memref's elements (no copy), which keeps
    `owner` alive for as long as it lives.

    Memref strides are in elements and non-negative; a view of an empty
    memref is a fresh empty array (its pointers may be anything)."""
    shape = tuple(descriptor.shape) if rank else ()
    strides = tuple(descriptor.strides) if rank else ()
    if 0 in shape:
        return np.empty(shape, dtype)
    itemsize = dtype.itemsize
    span = (1 + sum((n - 1) * s for n, s in zip(shape, strides))) * itemsize
    start = descriptor.aligned + descriptor.offset * itemsize
    buffer = (ctypes.c_uint8 * span).from_address(start)
    buffer.owner = owner  # numpy keeps `buffer` (and so `owner`) as the view's base
    raw = np.ctypeslib.as_array(buffer)
    return np.lib.stride_tricks.as_strided(
        raw.view(dtype), shape=shape, strides=[s * itemsize for s in strides]
    )


class _Allocation:
    """A buffer the compiled code malloc'd and handed to the caller: freed
    once, when nothing refers to it any more."""

    __slots__ = ("pointer",)
    # Held by the class, not looked up in the module at `__del__` time: a
    # result alive until the interpreter exits is freed after the module's
    # globals are gone.
    _free = _libc.free

    def __init__(self, pointer: int):
        self.pointer = pointer

    def __del__(self):
        self._free(self.pointer)


def adopt_results(descriptors, signatures) -> list[np.ndarray]:
    """Numpy arrays viewing the returned buffers (given (rank, dtype) per
    result), which take over their allocations: each is freed exactly once,
    after its last view. A buffer returned twice (a function returning one
    value twice) is copied for the second result, so that every result is
    an array of its own, as it would be from numpy."""
    owners: dict[int, _Allocation] = {}
    arrays = []
    for d, (rank, dtype) in zip(descriptors, signatures):
        if not d.allocated:
            arrays.append(strided_view(d, rank, dtype))
        elif d.allocated in owners:
            arrays.append(strided_view(d, rank, dtype, owners[d.allocated]).copy())
        else:
            owners[d.allocated] = _Allocation(d.allocated)
            arrays.append(strided_view(d, rank, dtype, owners[d.allocated]))
    return arrays


class _UnrankedMemRef(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int64), ("descriptor", ctypes.c_void_p)]


def _unranked_view(unranked: _UnrankedMemRef, element_size: int) -> np.ndarray:
    """The elements of an unranked memref as raw element-sized bytes."""
    rank = unranked.rank
    descriptor = ctypes.cast(unranked.descriptor, ctypes.POINTER(descriptor_type(rank))).contents
    return strided_view(descriptor, rank, np.dtype((np.void, element_size)))


def _memref_copy(element_size, source, target) -> None:
    np.copyto(
        _unranked_view(target.contents, element_size),
        _unranked_view(source.contents, element_size),
    )


# `memrefCopy(elemSize, src, dst)` (runtime_abi.MEMREF_COPY_FN) from MLIR's
# runner utils, which this build's ExecutionEngine lacks:
# finalize-memref-to-llvm calls it for copies between non-identity layouts
# (e.g. returning a strided slice).
MEMREF_COPY = ctypes.CFUNCTYPE(
    None, ctypes.c_int64, ctypes.POINTER(_UnrankedMemRef), ctypes.POINTER(_UnrankedMemRef)
)(_memref_copy)
