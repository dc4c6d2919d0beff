"""Compile a module with `--gmx-lower-to-llvm` and call it on numpy arrays.

    program = compile(asm, entry="main")      # threads=None: the usable cores
    out = program(x, idx)                      # new numpy array(s)

The entry function takes and returns ranked tensors. An index outside its
axis raises IndexError (located at the gather that read it); shapes that
turn out incompatible at run time raise ValueError. Programs are cached by
(text, entry, checked, donate, ...), so compiling the same program again
is free; the thread count is the call's, not the compiled code's
(`with_threads`).

    program = compile(asm, donate=(0,))       # results into argument #0
    out = program(cache, token, pos)           # out is cache, updated

A donated argument is written: the result its type pairs with
(`program.donations`, decided at compile time: `donation`) is computed
into it, in place where the program allows, and the call returns that
very array. An argument not donated is never written.

A call points this thread's prebuilt descriptors (`_Frame`) at the
arguments and, for an entry with destinations (static results, the usual
case), at fresh 64-byte aligned arrays the compiled code writes, and calls
the compiled entry once: its parallel loops run on `threads` OpenMP
threads (`openmp`, set per calling thread).
"""

from __future__ import annotations

import copy
import ctypes
import threading
from collections import OrderedDict

import numpy as np

from gmx.passes.lowering.runtime_abi import (
    CALLBACK_ARITY,
    INDEX_ERROR_FN,
    MEMREF_COPY_FN,
    NOT_DONATED,
    REPORTED_FN,
    SHAPE_ERROR_FN,
)

from . import memref, openmp
from .backends import check_backend, iree_program
from .donation import check_donate, check_donated_argument, check_unaliased
from .entry import TensorSignature, check_argument, wrong_arity
from .errors import CompileError
from .lowering import jit
from .reports import raise_reported
from .source import check_checked, check_entry, module_text
from .threads import check_threads

__all__ = ["CompileError", "CompiledProgram", "compile", "run"]

_CALLBACK = ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * CALLBACK_ARITY)
_REPORTED = ctypes.CFUNCTYPE(ctypes.c_int64)
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

    def reported(self) -> int:
        return len(self.index_errors) + len(self.shape_errors)


class CompiledProgram:
    """A lowered, JIT-compiled entry function, callable on numpy arrays
    from any number of threads at once; freed like any Python object."""

    def __init__(self, asm: str, entry: str, checked: bool, threads: int | None = None, allow_external: bool = False,
                 donate: tuple[int, ...] = ()):
        self.entry = entry
        self.donate = check_donate(donate)
        jitted = jit(asm, entry, checked, allow_external, self.donate)
        self.arguments: list[TensorSignature] = jitted.arguments
        self.results: list[TensorSignature] = jitted.results
        self.sites = jitted.sites
        self.assert_messages = jitted.assert_messages
        self._engine = jitted.engine
        self._log = _ErrorLog()
        # Kept here, as register_runtime asks: they must outlive the engine.
        self._callbacks = [_CALLBACK(self._log.on_index_error), _CALLBACK(self._log.on_shape_error),
                           _REPORTED(self._log.reported)]
        self._function = self._link(entry)
        self.destinations = jitted.destinations
        # Per result, the donated argument it is written into (None: a new array).
        self.donations: tuple[int | None, ...] = tuple(
            None if k == NOT_DONATED else k for k in (jitted.donations or (NOT_DONATED,) * len(self.results))
        )
        self._result_kinds = [(sig.rank, sig.dtype) for sig in self.results]
        self._frames = threading.local()
        self._set_threads(check_threads(threads))

    def _link(self, entry: str):
        """Hand the engine the runtime's symbols (the callbacks, memrefCopy,
        libomp: `external_symbols.REGISTERED`) and return the entry's C
        interface. `external_symbols` refused the modules that would not
        link beforehand; should LLVM's code still need a symbol nothing
        provides, the engine fails with a bare RuntimeError (LLVM names the
        symbol on stderr), which is a CompileError here, not a traceback."""
        try:
            self._engine.register_runtime(INDEX_ERROR_FN, self._callbacks[0])
            self._engine.register_runtime(SHAPE_ERROR_FN, self._callbacks[1])
            self._engine.register_runtime(REPORTED_FN, self._callbacks[2])
            self._engine.raw_register_runtime(MEMREF_COPY_FN, ctypes.cast(memref.MEMREF_COPY, ctypes.c_void_p))
            openmp.register(self._engine)
            return self._engine.lookup(entry)
        except RuntimeError as error:
            raise CompileError(
                f"<unknown>: error: the JIT could not link @{entry} ({error}): the compiled code needs a "
                "symbol that neither gmx.runtime nor the process provides, or defines one twice "
                "(LLVM's 'JIT session error' names it)"
            ) from None

    # -- threads -----------------------------------------------------------------
    def _set_threads(self, threads: int) -> None:
        self.threads = threads  # the OpenMP thread count of each call

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
        raise_reported(self.sites, shape_errors, index_errors, self.assert_messages)

    # -- calling ---------------------------------------------------------------
    def __call__(self, *arrays):
        openmp.set_threads(self.threads)
        frame = self._frame()
        given, arrays = arrays, frame.bind(self, arrays)
        if self.destinations:
            outputs = frame.allocate_outputs()
            self._invoke(frame.packed)
            if self.donate:
                outputs = self._with_donated(outputs, given)
        else:
            outputs = memref.adopt_results(self._call(frame), self._result_kinds)
        self._raise_reported_errors()
        if not self.destinations:
            self._check_results(outputs)
        del arrays  # alive until the call returned
        if len(outputs) == 1:
            return outputs[0]
        return tuple(outputs)

    def _with_donated(self, outputs: list, arrays: list) -> list:
        """The results in order: each donated one the very array passed for
        its argument, the others `outputs`."""
        own = iter(outputs)
        return [next(own) if k is None else arrays[k] for k in self.donations]

    def _frame(self) -> _Frame:
        """This thread's descriptors for calling the entry (built once per
        thread: two threads never share one)."""
        frame = getattr(self._frames, "frame", None)
        if frame is None:
            destinations = [r for r, k in zip(self.results, self.donations) if k is None] if self.destinations else []
            frame = self._frames.frame = _Frame(self.arguments, destinations, self.donate)
        return frame

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


class _Frame:
    """One thread's memref descriptors for calling an entry: one per
    argument, then one per destination, and the packed argument array the
    C interface takes (a pointer to a pointer to each descriptor). They are
    built once; a call only writes the data pointers in (and, for dynamic
    dims, the sizes and strides)."""

    def __init__(self, arguments: list[TensorSignature], destinations: list[TensorSignature],
                 donated: tuple[int, ...] = ()):
        self.signatures = arguments
        self.donated = donated
        self.outputs = destinations
        self.buffers: list[memref.AlignedBuffer | None] = [None] * len(destinations)
        self.descriptors = [memref.descriptor_type(s.rank)() for s in (*arguments, *destinations)]
        # The shape each argument must have to skip the slow path (None: no
        # fast path, it has a dynamic dim).
        self.static = [None if None in s.shape else s.shape for s in arguments]
        for d, s in zip(self.descriptors, (*arguments, *destinations)):
            if None not in s.shape:
                memref.set_contiguous_layout(d, s.shape)
        self.cells = [ctypes.c_void_p(ctypes.addressof(d)) for d in self.descriptors]
        addresses = [ctypes.addressof(c) for c in self.cells]
        self.packed = (ctypes.c_void_p * len(addresses))(*addresses)

    def bind(self, program: CompiledProgram, arrays: tuple) -> list:
        """Point the argument descriptors at `arrays` (checked; donated
        ones never copied, `donation`); return the arrays the descriptors
        view, which must outlive the call (donated ones as given)."""
        if len(arrays) != len(self.signatures):
            raise program._wrong_arity(len(arrays))
        for k in self.donated:
            check_donated_argument(program.entry, k, arrays[k], self.signatures[k])
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
        if self.donated:
            check_unaliased(program.entry, bound, self.donated)
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


def compile(
    asm_or_module, entry: str = "main", *, checked: bool = True, threads: int | None = None,
    allow_external: bool = False, backend: str = "engine", device: str | None = None, donate=(),
) -> CompiledProgram:
    """Lower and JIT-compile `entry`, a public function of a module given
    as text (`str`, UTF-8 `bytes`) or IR (`ir.Module`, `ir.Operation`).

    Raises TypeError for arguments of other types, CompileError with
    located diagnostics when the module does not parse, verify or lower
    (with a reproducer when the lowering fails). `checked=False` drops the
    run-time bounds check of gathered indices (for benchmarks only).
    A module may call only the functions the runtime provides, else a
    CompileError names the first other; `allow_external=True` lets it call
    any function of the process (`external_symbols`).
    `backend="iree"` compiles with IREE for `device` (`iree_backend`: same
    results and errors; needs the `[iree]` extra).
    `donate=(k, ...)`: a call writes the results into the buffers of
    those arguments and returns those arrays (`donation`; `program.donations`
    says which result takes which): a donated argument must not be used
    after the call but as that result.
    Thread-safe; the last programs compiled are cached, the others are
    freed once nothing refers to them.
    """
    key = (module_text(asm_or_module), check_entry(entry), check_checked(checked),
           check_checked(allow_external, "allow_external"), check_donate(donate), *check_backend(backend, device))
    threads = check_threads(threads)
    with _cache_lock:
        program = _cache.get(key)
        if program is not None:
            _cache.move_to_end(key)
            return program.with_threads(threads)
    # Compiled outside the lock, so that threads compile in parallel; of two
    # threads compiling the same program, both get the one cached first.
    text, entry, checked, allow_external, donate, *on_iree = key
    program = (iree_program(text, entry, checked, on_iree[1], donate) if on_iree
               else CompiledProgram(text, entry, checked, allow_external=allow_external, donate=donate))
    with _cache_lock:
        program = _cache.setdefault(key, program)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return program.with_threads(threads)


def run(
    asm_or_module, *arrays, entry: str = "main", checked: bool = True, threads: int | None = None,
    allow_external: bool = False, backend: str = "engine", device: str | None = None, donate=(),
):
    """compile(...) then call once: a numpy array, or a tuple for several results."""
    return compile(asm_or_module, entry, checked=checked, threads=threads, allow_external=allow_external,
                   backend=backend, device=device, donate=donate)(*arrays)
