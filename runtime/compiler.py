"""Compile a module with `--gmx-lower-to-llvm` and call it on numpy arrays.

    program = compile(asm, entry="main")      # threads=None: the usable cores
    out = program(x, idx)                      # new numpy array(s)

The entry function takes and returns ranked tensors. An index outside its
axis raises IndexError (located at the gather that read it); shapes that
turn out incompatible at run time raise ValueError. Programs are cached by
(text, entry, checked), so compiling the same program again is free; the
thread count is the call's, not the compiled code's (`with_threads`).

A call points this thread's prebuilt descriptors (`_Frame`) at the
arguments and, for an entry with destinations (static results, the usual
case), at fresh 64-byte aligned arrays the compiled code writes; an entry
with row ranges is called on ranges of its result's rows, from this
thread and the pool's workers (`_call_on_threads`, `threads`).
"""

from __future__ import annotations

import copy
import ctypes
import itertools
import math
import threading
from collections import OrderedDict

import numpy as np

from gmx.passes.lowering.runtime_abi import (
    CALLBACK_ARITY,
    INDEX_ERROR_FN,
    MEMREF_COPY_FN,
    SHAPE_ERROR_FN,
)

from . import memref
from .backends import check_backend, iree_program
from .entry import TensorSignature, check_argument, wrong_arity
from .errors import CompileError
from .lowering import jit
from .reports import raise_reported
from .source import check_checked, check_entry, module_text
from .threads import check_threads, chunks, pool

__all__ = ["CompileError", "CompiledProgram", "compile", "run"]

_CALLBACK = ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * CALLBACK_ARITY)
_CACHE_SIZE = 64
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


class _ErrorLog(threading.local):
    """Errors reported by the compiled code during one call, per thread.

    The callbacks the engine calls are bound to the log, never to the
    program: the engine keeps them alive, and an engine reference back to
    its program would be a cycle that Python's collector cannot see
    through (the engine is a C++ object), so the program would never be
    freed."""

    def __init__(self):
        self.index_errors: list[tuple] = []
        self.shape_errors: list[tuple] = []

    def clear(self) -> None:
        self.index_errors, self.shape_errors = [], []

    def on_index_error(self, site, axis, value, size):
        self.index_errors.append((site, axis, value, size))

    def on_shape_error(self, site, dim, a, b):
        self.shape_errors.append((site, dim, a, b))


class CompiledProgram:
    """A lowered, JIT-compiled entry function, callable on numpy arrays
    from any number of threads at once; freed like any Python object."""

    def __init__(self, asm: str, entry: str, checked: bool, threads: int | None = None):
        self.entry = entry
        jitted = jit(asm, entry, checked)
        self.arguments: list[TensorSignature] = jitted.arguments
        self.results: list[TensorSignature] = jitted.results
        self.sites = jitted.sites
        self._engine = jitted.engine
        self._log = _ErrorLog()
        # Kept here, as register_runtime asks: they must outlive the engine.
        self._callbacks = [_CALLBACK(self._log.on_index_error), _CALLBACK(self._log.on_shape_error)]
        self._engine.register_runtime(INDEX_ERROR_FN, self._callbacks[0])
        self._engine.register_runtime(SHAPE_ERROR_FN, self._callbacks[1])
        self._engine.raw_register_runtime(MEMREF_COPY_FN, ctypes.cast(memref.MEMREF_COPY, ctypes.c_void_p))
        self._function = self._engine.lookup(entry)
        self.destinations = jitted.destinations
        self.row_ranges = jitted.row_ranges
        self._result_kinds = [(sig.rank, sig.dtype) for sig in self.results]
        self._frames = threading.local()
        self._set_threads(check_threads(threads))

    # -- threads -----------------------------------------------------------------
    def _set_threads(self, threads: int) -> None:
        self.threads = threads
        self._ranges = None
        if self.row_ranges is not None:
            rows, tile = self.row_ranges
            output_bytes = math.prod(self.results[0].shape) * self.results[0].dtype.itemsize
            self._ranges = chunks(rows, tile, threads, output_bytes)

    def with_threads(self, threads: int | None) -> CompiledProgram:
        """This program, called on `threads` threads (None: the usable
        cores): itself if it already is, else a copy sharing its compiled
        code."""
        threads = check_threads(threads)
        if threads == self.threads:
            return self
        program = copy.copy(self)
        program._set_threads(threads)
        return program

    # -- errors the compiled code reported ------------------------------------
    def _raise_reported_errors(self) -> None:
        log = self._log
        if log.shape_errors or log.index_errors:
            self._raise_errors(*self._take_errors())

    def _take_errors(self) -> tuple[list, list]:
        """(shape errors, index errors) this thread's calls reported; the log is emptied."""
        log = self._log
        errors = log.shape_errors, log.index_errors
        log.clear()
        return errors

    def _raise_errors(self, shape_errors: list, index_errors: list) -> None:
        """Raise the first error reported, if any (`reports`)."""
        raise_reported(self.sites, shape_errors, index_errors)

    # -- calling ---------------------------------------------------------------
    def __call__(self, *arrays):
        frame = self._frame()
        arrays = frame.bind(self, arrays)
        if self._ranges is not None and len(self._ranges) > 1:
            outputs = frame.allocate_outputs()
            self._call_on_threads(frame, arrays, outputs)
        elif self.destinations:
            outputs = frame.allocate_outputs()
            if self._ranges is not None:
                frame.set_range(*self._ranges[0])
            self._invoke(frame.packed)
        else:
            outputs = memref.adopt_results(self._call(frame), self._result_kinds)
        self._raise_reported_errors()
        if not self.destinations:
            self._check_results(outputs)
        del arrays  # alive until the call returned
        if len(outputs) == 1:
            return outputs[0]
        return tuple(outputs)

    def _frame(self) -> _Frame:
        """This thread's descriptors for calling the entry (built once per
        thread: two threads never share one)."""
        frame = getattr(self._frames, "frame", None)
        if frame is None:
            destinations = self.results if self.destinations else []
            frame = self._frames.frame = _Frame(self.arguments, destinations, self.row_ranges is not None)
        return frame

    def _call_on_threads(self, frame: _Frame, arrays: list, outputs: list) -> None:
        """Run the ranges of one call on this thread and on up to
        `threads - 1` workers of the pool, each taking the next range not
        taken yet (`_Ranges`): a worker that starts late (the machine is
        busy) takes fewer or none, and the call costs at most about what it
        costs on this thread alone. Returns once every range taken has
        finished. The errors each range reported are raised as one call
        over all rows would raise them: ranges in row order, each one's in
        the order it reported them. An exception in a worker is raised here."""
        ranges = _Ranges(self._ranges)
        helpers = min(self.threads, len(self._ranges)) - 1
        workers = pool(helpers)
        futures = [workers.submit(self._help, ranges, arrays, outputs) for _ in range(helpers)]
        try:
            self._take_ranges(frame, ranges)
        finally:
            for future in futures:
                future.cancel()  # one that has not started has nothing left to take
            ranges.wait()  # every range taken must be done before the arrays may go
        if ranges.failure is not None:
            raise ranges.failure
        reported = ranges.reported
        self._raise_errors([e for s, _ in reported for e in s], [e for _, i in reported for e in i])

    def _take_ranges(self, frame: _Frame, ranges: _Ranges) -> None:
        """Compute ranges of the call until none is left (`frame` bound)."""
        while (k := ranges.take()) is not None:
            try:
                frame.set_range(*ranges.rows[k])
                self._invoke(frame.packed)
                ranges.finish(k, self._take_errors())
            except BaseException as error:
                ranges.fail(k, error)
                raise

    def _help(self, ranges: _Ranges, arrays: list, outputs: list) -> None:
        """On a worker thread: take ranges of a call on `arrays` into `outputs`."""
        if ranges.exhausted():
            return
        frame = self._frame()
        frame.bind(self, arrays)
        frame.point_outputs(outputs)
        try:
            self._take_ranges(frame, ranges)
        except BaseException:  # noqa: BLE001  recorded in `ranges`, raised by the caller
            pass

    def _call(self, frame) -> list:
        """Invoke the C interface of an entry that returns its results;
        return the result descriptors."""
        if not self.results:
            self._invoke(frame.packed)
            return []
        # A returned result's descriptor goes first.
        if len(self.results) == 1:
            result = memref.descriptor_type(self.results[0].rank)()
        else:
            result = memref.results_struct_type([r.rank for r in self.results])()
        cell = ctypes.c_void_p(ctypes.addressof(result))
        args = (ctypes.c_void_p * (1 + len(frame.cells)))(ctypes.addressof(cell), *frame.packed)
        self._invoke(args)
        if len(self.results) == 1:
            return [result]
        return [getattr(result, f"r{i}") for i in range(len(self.results))]

    def _check_results(self, outputs) -> None:
        """Each result has the static dims its type promises. A `tensor.cast`
        to a static dim (raise-tosa-gather casts a gather back to the
        tosa.gather's type) is not checked by the compiled code: on
        arguments it does not hold for, the descriptor keeps the size the
        data has, and the result would silently have another shape. (An
        entry with destinations has static results, and the cast is checked
        where its value is copied into them.)"""
        for i, (array, sig) in enumerate(zip(outputs, self.results)):
            if any(want is not None and want != got for want, got in zip(sig.shape, array.shape)):
                raise ValueError(
                    f"result #{i} of @{self.entry} must be {sig.describe()}, its shape at run time is "
                    f"{list(array.shape)}: a cast in the program does not hold for these arguments"
                )

    def _invoke(self, packed) -> None:
        """Call the entry, this thread's error log empty before."""
        log = self._log
        if log.index_errors or log.shape_errors:  # left by a call interrupted before it raised
            log.clear()
        self._function(packed)

    def _check_argument(self, i: int, array, sig: TensorSignature) -> np.ndarray:
        return check_argument(self.entry, i, array, sig)

    def _wrong_arity(self, count: int) -> TypeError:
        return wrong_arity(self.entry, self.arguments, count)


class _Ranges:
    """The row ranges of one call shared by the threads computing it: each
    thread takes the next one until none is left; what each reported, by
    range; whether all taken are done."""

    def __init__(self, rows: list[tuple[int, int]]):
        self.rows = rows
        self.reported: list = [((), ())] * len(rows)
        self.failure: BaseException | None = None
        self._next = itertools.count()  # next() is atomic under the GIL
        self._taken = 0
        self._finished = 0
        self._lock = threading.Condition()

    def exhausted(self) -> bool:
        with self._lock:
            return self._taken >= len(self.rows)

    def take(self) -> int | None:
        """The index of a range to compute, or None when all are taken (or
        one failed)."""
        with self._lock:
            if self.failure is not None or self._taken >= len(self.rows):
                return None
            self._taken += 1
            return next(self._next)

    def finish(self, k: int, errors: tuple[list, list]) -> None:
        with self._lock:
            self.reported[k] = errors
            self._finished += 1
            self._lock.notify_all()

    def fail(self, k: int, error: BaseException) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = error
            self._finished += 1
            self._lock.notify_all()

    def wait(self) -> None:
        """Until every range taken has finished."""
        with self._lock:
            self._lock.wait_for(lambda: self._finished >= self._taken)


class _Frame:
    """One thread's memref descriptors for calling an entry: one per
    argument, then one per destination, and the packed argument array the
    C interface takes (a pointer to a pointer to each descriptor). They are
    built once; a call only writes the data pointers in (and, for dynamic
    dims, the sizes and strides)."""

    def __init__(self, arguments: list[TensorSignature], destinations: list[TensorSignature], ranges: bool):
        self.signatures = arguments
        self.outputs = destinations
        self.buffers: list[memref.AlignedBuffer | None] = [None] * len(destinations)
        self.descriptors = [memref.descriptor_type(s.rank)() for s in (*arguments, *destinations)]
        # The row range's first and last (index arguments after the destinations).
        self.range = [ctypes.c_int64(0), ctypes.c_int64(0)] if ranges else []
        # The shape each argument must have to skip the slow path (None: no
        # fast path, it has a dynamic dim).
        self.static = [None if None in s.shape else s.shape for s in arguments]
        for d, s in zip(self.descriptors, (*arguments, *destinations)):
            if None not in s.shape:
                memref.set_contiguous_layout(d, s.shape)
        self.cells = [ctypes.c_void_p(ctypes.addressof(d)) for d in self.descriptors]
        addresses = [ctypes.addressof(c) for c in (*self.cells, *self.range)]
        self.packed = (ctypes.c_void_p * len(addresses))(*addresses)

    def set_range(self, first: int, last: int) -> None:
        self.range[0].value, self.range[1].value = first, last

    def point_outputs(self, outputs: list[np.ndarray]) -> None:
        """Point the destination descriptors at `outputs` (allocated by
        another thread's frame)."""
        for array, descriptor in zip(outputs, self.descriptors[len(self.signatures):]):
            descriptor.allocated = descriptor.aligned = memref.data_pointer(array)

    def bind(self, program: CompiledProgram, arrays: tuple) -> list:
        """Point the argument descriptors at `arrays` (checked); return the
        arrays the descriptors view, which must outlive the call."""
        if len(arrays) != len(self.signatures):
            raise program._wrong_arity(len(arrays))
        bound = []
        for i, (array, sig, shape, descriptor) in enumerate(zip(arrays, self.signatures, self.static, self.descriptors)):
            fast = (
                type(array) is np.ndarray and array.dtype == sig.dtype and array.shape == shape
                and array.flags.c_contiguous
            )
            if not fast:
                array = program._check_argument(i, array, sig)
                memref.set_contiguous_layout(descriptor, array.shape)
            descriptor.allocated = descriptor.aligned = memref.data_pointer(array)
            bound.append(array)
        return bound

    def allocate_outputs(self) -> list[np.ndarray]:
        """An aligned array per destination, its descriptor pointed at it:
        on the buffer of this thread's last call when the caller has let go
        of every array on it (a loop that drops each result reuses warm
        memory: no page fault, no allocation), else on a new buffer."""
        outputs = []
        for k, (sig, descriptor) in enumerate(zip(self.outputs, self.descriptors[len(self.signatures):])):
            buffer = self.buffers[k]
            if buffer is None or not buffer.unused():
                buffer = self.buffers[k] = memref.AlignedBuffer(sig.shape, sig.dtype)
            descriptor.allocated = descriptor.aligned = buffer.pointer
            outputs.append(buffer.array())
        return outputs


def compile(asm_or_module, entry: str = "main", *, checked: bool = True, threads: int | None = None,
            backend: str = "engine", device: str | None = None) -> CompiledProgram:
    """Lower and JIT-compile `entry`, a public function of a module given
    as text (`str`, UTF-8 `bytes`) or IR (`ir.Module`, `ir.Operation`).

    Raises TypeError for arguments of other types, CompileError with
    located diagnostics when the module does not parse, verify or lower
    (with a reproducer when the lowering fails). `checked=False` drops the
    run-time bounds check of gathered indices (for benchmarks only).
    `backend="iree"` compiles with IREE for `device` (`iree_backend`: same
    results and errors; needs the `[iree]` extra).
    Thread-safe; the last programs compiled are cached, the others are
    freed once nothing refers to them.
    """
    key = (module_text(asm_or_module), check_entry(entry), check_checked(checked), *check_backend(backend, device))
    threads = check_threads(threads)
    with _cache_lock:
        program = _cache.get(key)
        if program is not None:
            _cache.move_to_end(key)
            return program.with_threads(threads)
    # Compiled outside the lock, so that threads compile in parallel; of two
    # threads compiling the same program, both get the one cached first.
    program = CompiledProgram(*key) if len(key) == 3 else iree_program(*key[:3], key[4])
    with _cache_lock:
        program = _cache.setdefault(key, program)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return program.with_threads(threads)


def run(asm_or_module, *arrays, entry: str = "main", checked: bool = True, threads: int | None = None,
        backend: str = "engine", device: str | None = None):
    """compile(...) then call once: a numpy array, or a tuple for several results."""
    return compile(asm_or_module, entry, checked=checked, threads=threads, backend=backend, device=device)(*arrays)
