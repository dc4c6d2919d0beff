"""gmx.runtime's `iree` backend: gmx's linalg compiled and run by IREE.

    program = gmx.runtime.compile(asm, backend="iree", device="local-task")
    out = program(x, idx)                      # numpy arrays, as the engine's

The module is lowered for IREE (`iree_lowering`), compiled by
`iree-base-compiler` for the device's target (`DEVICES`) into a VM flatbuffer
and loaded into an `iree-base-runtime` context on the device. A call checks
its arguments as the engine does, runs the entry and raises what its
reports say (`gmx.runtime.reports`: the engine's exceptions and messages),
so the same inputs give the same results and the same errors on both
backends. Donation (`compile(..., donate=)`) is the engine's contract with
a copy: IREE computes each donated result in memory of its own, and the
call copies it into the donated array (only once no error was raised) and
returns that array. Compiled programs are cached with the engine's
(`gmx.runtime.compile`).

Both IREE packages come with the `[iree]` extra; without them, or without
the device, compiling is one BackendUnavailable naming what to install or
which devices there are.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import gc
import os
import re
import shlex
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from gmx.passes.lowering.iree_reports import INDEX_COUNTS, INDEX_REPORT, SHAPE_KIND, IndexReport
from gmx.passes.lowering.runtime_abi import NOT_DONATED

from .donation import check_donate, check_donated_argument, check_unaliased, entry_donations
from .entry import TensorSignature, check_argument, wrong_arity
from .errors import CompileError
from .iree_lowering import IreeInput, dlpack_carries, lower_for_iree
from .lowering import write_reproducer
from .memref import AlignedBuffer
from .reports import raise_reported, site_text

INSTALL = "pip install -e '.[iree]'"
DEFAULT_DEVICE = "local-task"
# IREE 3.13 knows no sm_90 (iree-org/iree#22147); sm_80 code runs on an H100.
CUDA_TARGET = "sm_80"
# IREE reads a host array in place (DLPack) only at this alignment (bytes);
# gmx.runtime's engine returns its results at it too.
IMPORT_ALIGNMENT = 64


@dataclass(frozen=True)
class Device:
    """An IREE device gmx compiles for: its compiler target and flags."""

    target: str
    flags: tuple[str, ...] = ()


DEVICES = {
    "local-task": Device("llvm-cpu", ("--iree-llvmcpu-target-cpu=host",)),  # the CPU's cores, IREE's task system
    "local-sync": Device("llvm-cpu", ("--iree-llvmcpu-target-cpu=host",)),  # the calling thread only
    "cuda": Device("cuda", (f"--iree-cuda-target={CUDA_TARGET}",)),
}


class BackendUnavailable(CompileError):
    """The backend or the device asked for is not installed or not here."""


def check_device(device) -> str:
    """`device` (None: DEFAULT_DEVICE), a name of DEVICES."""
    if device is None:
        return DEFAULT_DEVICE
    if not isinstance(device, str):
        raise TypeError(f"device must be a str such as 'local-task' or 'cuda', got {type(device).__name__}")
    if device not in DEVICES:
        raise BackendUnavailable(f"unknown IREE device '{device}'; the iree backend runs on: {', '.join(DEVICES)}")
    return device


def _iree():
    """(iree.compiler, iree.runtime), or BackendUnavailable saying what to install."""
    try:
        import iree.compiler as compiler
        import iree.runtime as runtime
    except ImportError as error:
        raise BackendUnavailable(
            f"the iree backend needs iree-base-compiler and iree-base-runtime ({error}): {INSTALL}"
        ) from None
    return compiler, runtime


_devices: dict = {}
_programs: weakref.WeakSet = weakref.WeakSet()  # released at exit (`_release`)
_devices_lock = threading.Lock()
# In a process forked from one that used IREE: the parent's IREE objects,
# kept for ever (`_after_fork_in_child`).
_orphans: list = []
_forked = False


def hal_device(name: str):
    """The IREE device `name`, created once per process (a forked child
    makes its own: `_after_fork_in_child`); BackendUnavailable naming the
    devices there are when it cannot be."""
    _, runtime = _iree()
    with _devices_lock:
        if name not in _devices:
            try:
                _devices[name] = _fresh_device(runtime, name) if _forked else runtime.get_device(name)
            except (RuntimeError, ValueError) as error:
                reason = str(error).split("; ", 1)[-1].splitlines()[0]
                if "libcuda.so" in reason:  # containers often have libcuda.so.1 only
                    reason += "; where only libcuda.so.1 exists, link it as libcuda.so in a directory on LD_LIBRARY_PATH"
                raise BackendUnavailable(
                    f"IREE device '{name}' is not available here ({reason}); available: {', '.join(available_devices())}"
                ) from None
        return _devices[name]


def _fresh_device(runtime, name: str):
    """Device `name` from a driver of its own: in a forked child the
    runtime's cached driver holds the parent's task system, whose worker
    threads the child does not have."""
    from iree.runtime._binding import create_hal_driver

    driver = create_hal_driver(name)
    _orphans.append(driver)  # a device needs its driver for as long as it lives
    return driver.create_device_by_uri(name)


def _after_fork_in_child() -> None:
    """In a child forked from a process that used IREE: the parent's devices,
    contexts and buffers are kept, never released (releasing a `local-task`
    device waits for its task system's workers, which fork did not copy: a
    call, or the child's exit, would hang), IREE's report of them as leaks
    at exit is silenced, and each device and program is made again in the
    child when it is first used (`hal_device`, `IreeProgram._open`)."""
    global _devices_lock, _forked
    _devices_lock = threading.Lock()  # a parent's thread may have held it
    if not _devices:
        return  # IREE not used: nothing to keep
    _, runtime = _iree()
    if not _forked:  # the first fork: the kept objects outlive the interpreter
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(_orphans))
        runtime._binding.disable_leak_checker()
    _forked = True
    _orphans.extend(_devices.values())
    _orphans.extend(runtime.get_driver(name) for name in _devices)  # cached, with the parent's task system
    _devices.clear()
    for program in list(_programs):
        program._forget_device()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@functools.cache
def available_devices() -> tuple[str, ...]:
    """The devices of DEVICES that IREE's runtime can open on this machine."""
    _, runtime = _iree()
    found = []
    for name in DEVICES:
        try:
            if runtime.get_driver(name).query_available_devices():
                found.append(name)
        except (RuntimeError, ValueError):
            pass
    return tuple(found)


# iree-compile's flags for every device: IREE demotes f64 to f32 by
# default, which would change an f64 program's results and signature.
COMMON_FLAGS = ("--iree-input-type=none", "--iree-input-demote-f64-to-f32=false")


def compile_flags(device: str) -> list[str]:
    """iree-compile's flags for a module from `lower_for_iree` on `device`."""
    spec = DEVICES[device]
    return [*COMMON_FLAGS, f"--iree-hal-target-backends={spec.target}", *spec.flags]


def compile_vmfb(lowered: IreeInput, device: str, extra_flags: tuple[str, ...] = ()) -> bytes:
    """The VM flatbuffer of a lowered module for `device` (iree-compile's
    `extra_flags` added). A failure is a CompileError with IREE's
    diagnostics and the iree-compile command that reproduces it on a file
    holding the module."""
    compiler, _ = _iree()
    flags = [*compile_flags(device), *extra_flags]
    try:
        return compiler.compile_str(lowered.text, extra_args=flags)
    except compiler.CompilerToolError as error:
        found = _diagnostics(str(error))
        try:
            path = write_reproducer(lowered.text)
        except OSError as write_error:
            raise CompileError(f"{found}\n(no reproducer: could not write one: {write_error})") from None
        command = " ".join(["iree-compile", shlex.quote(path), *flags, "-o", "out.vmfb"])
        raise CompileError(f"{found}\nreproduce with: {command}") from None


def _diagnostics(message: str) -> str:
    """The diagnostics part of an iree.compiler error (after 'Diagnostics:')."""
    head, _, tail = message.partition("Diagnostics:")
    return (tail or head).strip() or message


class IreeProgram:
    """An entry compiled by IREE for one device, callable on numpy arrays
    like CompiledProgram (same checks, same results, same errors)."""

    def __init__(self, asm: str, entry: str, checked: bool, device: str, extra_flags: tuple[str, ...] = (),
                 details: bool = False, donate: tuple[int, ...] = ()):
        _, runtime = _iree()
        self.donate = check_donate(donate)
        self.entry, self.checked, self.device = entry, checked, device
        self.extra_flags = extra_flags  # iree-compile's, beside the device's (gmx-bench: DISPATCH_REPEAT)
        # Index reports in full (details), or their counts and first
        # positions alone: the fast path, which runs the program with full
        # reports (`_detailed`, compiled on the first error) to say an error.
        self.details = details
        self._detailed_program: IreeProgram | None = None
        hal_device(device)  # before compiling: a missing device fails fast
        self._asm = asm
        self._load(output_storage=DEVICES[device].target == "llvm-cpu")
        pairs = entry_donations(entry, self.arguments, self.results, self.donate)
        self.donations = tuple(None if k == NOT_DONATED else k for k in pairs)  # as CompiledProgram's
        _programs.add(self)
        self._staging = threading.local()  # per thread: argument -> (device array, its mapped memory)
        self.threads = None  # IREE's own: its task system runs on the usable cores

    def _load(self, output_storage: bool) -> None:
        """Lower, compile and load the entry; with `output_storage`, the
        caller hands IREE the memory of each result (CPU devices)."""
        _, runtime = _iree()
        cpu = DEVICES[self.device].target == "llvm-cpu"
        lowered = lower_for_iree(self._asm, self.entry, self.checked, output_storage=output_storage, cpu=cpu,
                                 details=self.details)
        self._storage = lowered.output_storage
        self._written_arguments = lowered.written_arguments
        self.arguments: list[TensorSignature] = lowered.arguments
        self.results: list[TensorSignature] = lowered.results
        self.sites = lowered.sites
        self._kinds, self._index_reports = lowered.report_kinds, lowered.index_reports
        self.vmfb = compile_vmfb(lowered, self.device, self.extra_flags)
        self._open()

    def _open(self) -> None:
        """Load the compiled module into a context on this process's device
        (again in a forked child: `_forget_device`)."""
        _, runtime = _iree()
        context = runtime.SystemContext(config=runtime.Config(device=hal_device(self.device)))
        module = runtime.VmModule.copy_buffer(context.instance, self.vmfb)
        context.add_vm_module(module)
        self._function = context.modules[module.name][self.entry]  # "module", or the module's own name (JAX's)
        self._context = context

    def _forget_device(self) -> None:
        """In a forked child: keep this program's IREE objects for ever
        (`_after_fork_in_child`) and open it again on its first call."""
        _orphans.extend([self._context, self._function, self._staging])
        self._context = self._function = None
        self._staging = threading.local()

    def with_threads(self, threads) -> IreeProgram:
        """Itself: IREE's task system, not the call, decides the threads."""
        return self

    def __call__(self, *arrays):
        if len(arrays) != len(self.arguments):
            raise wrong_arity(self.entry, self.arguments, len(arrays))
        for k in self.donate:
            check_donated_argument(self.entry, k, arrays[k], self.arguments[k])
        checked = [check_argument(self.entry, i, a, s) for i, (a, s) in enumerate(zip(arrays, self.arguments))]
        if self._function is None:  # first call in a forked child
            self._open()
        check_unaliased(self.entry, checked, self.donate)
        storage = self._output_storage() if self._storage else []
        views = [self._context.config.device.from_dlpack_capsule(a.__dlpack__()) for a in storage]
        handed: list[np.ndarray] = []  # host memory IREE reads the arguments from
        try:
            outputs = self._function(*[self._on_device(k, a, handed) for k, a in enumerate(checked)], *views)
        except RuntimeError as error:
            _raise_failed_assert(error)
            # IREE writes a result that is no dispatch's (a constant, an
            # argument returned as it is) with a transfer, which memory it
            # imported from numpy does not allow: such an entry is compiled
            # again to return its results in memory of IREE's own. The entry
            # is a pure function of its arguments, so calling it again is safe.
            if not (storage and "PERMISSION_DENIED" in str(error)):
                raise
            self._load(output_storage=False)
            return self(*arrays)
        if outputs is None:  # an entry with no results and no reports
            outputs = ()
        elif not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        own = len(self.results)
        self._raise_reported([np.asarray(o.to_host()) for o in outputs[own:]], arrays)
        results = _owned(storage or [np.asarray(o.to_host()) for o in outputs[:own]], handed)
        if self.donate:
            results = self._into_donated(results, arrays)
        if len(results) == 1:
            return results[0]
        return tuple(results)

    def _into_donated(self, results: list, arrays: tuple) -> list:
        """Each donated result copied into its argument's array, which
        replaces it (no in-place update through IREE's numpy interface)."""
        for r, k in enumerate(self.donations):
            if k is not None:
                np.copyto(arrays[k], results[r])
        return [results[r] if k is None else arrays[k] for r, k in enumerate(self.donations)]

    def _output_storage(self) -> list[np.ndarray]:
        """An aligned array per result for IREE to write it into: on this
        thread's buffer of the last call when the caller has let go of
        every array on it (warm memory: no page faults), else on a new one."""
        buffers = getattr(self._staging, "outputs", None)
        if buffers is None:
            buffers = self._staging.outputs = [None] * len(self.results)
        arrays = []
        for k, sig in enumerate(self.results):
            if buffers[k] is None or not buffers[k].unused():
                buffers[k] = AlignedBuffer(sig.shape, sig.dtype)
            arrays.append(buffers[k].array())
        return arrays

    def _on_device(self, k: int, array: np.ndarray, handed: list[np.ndarray]):
        """Argument k as the device reads it, its host memory appended to
        `handed` where the device reads it there. On the CPU devices: the
        array itself where it is IMPORT_ALIGNMENT-aligned (imported through
        DLPack, no copy) unless IREE may write it in place
        (`iree_written_arguments`: a scatter or an insert_slice into it),
        else copied into this thread's buffer for
        argument k, allocated by IREE once and mapped (a warm memcpy: the
        runtime's own conversion of a numpy argument allocates and fills a
        new buffer per call, slower than the gather itself). On a GPU, a
        copy in the device's memory."""
        _, runtime = _iree()
        hal = self._context.config.device
        if DEVICES[self.device].target != "llvm-cpu" or array.size == 0:
            return runtime.asdevicearray(hal, array)
        imported = array.ctypes.data % IMPORT_ALIGNMENT == 0 and array.flags.writeable and dlpack_carries(array.dtype)
        if imported and k not in self._written_arguments:  # one IREE may write in place is copied
            handed.append(array)
            return runtime.DeviceArray(hal, hal.from_dlpack_capsule(array.__dlpack__()))
        staged = getattr(self._staging, "buffers", None)
        if staged is None:
            staged = self._staging.buffers = {}
        key = (k, array.shape)
        if key not in staged:
            memory = runtime.MemoryType.DEVICE_LOCAL | runtime.MemoryType.HOST_VISIBLE
            usage = runtime.BufferUsage.DEFAULT | runtime.BufferUsage.MAPPING
            buffer = hal.allocator.allocate_buffer(memory, usage, array.nbytes)
            element_type = runtime.array_interop.map_dtype_to_element_type(array.dtype)
            view = runtime.HalBufferView(buffer, array.shape, element_type)
            staged[key] = (runtime.DeviceArray(hal, view), buffer.map().asarray(array.shape, array.dtype))
        device_array, host = staged[key]
        np.copyto(host, array)
        handed.append(host)
        return device_array

    def _raise_reported(self, reports: list[np.ndarray], arrays: tuple) -> None:
        """Raise what the reports say (`iree_reports`) as the engine would.
        Reports without details that count a bad index run the program
        again with full reports (a pure function of `arrays`) to say which."""
        values = iter(reports)
        index_reports = iter(self._index_reports)
        shape_errors, index_errors, count = [], [], 0
        for kind in self._kinds:
            if kind == SHAPE_KIND:
                failed, site, dim, a, b = (int(v) for v in next(values))
                if failed:
                    shape_errors.append((site, dim, a, b))
                continue
            report = next(index_reports)
            if not self.details:
                bad, _ = (int(next(values)) for _ in INDEX_COUNTS)
                if bad:
                    self._raise_detailed(arrays, report, bad)
                continue
            bad, first, value, size, elements = (int(next(values)) for _ in INDEX_REPORT)
            if not bad:
                continue
            is_shape_error, error = report.error(first, value, size, elements)
            if is_shape_error:
                shape_errors.append(error)
                continue
            index_errors = index_errors or [error]
            count += bad
        raise_reported(self.sites, shape_errors, index_errors, index_count=count)

    def _raise_detailed(self, arrays: tuple, report: IndexReport, bad: int) -> None:
        """Run `arrays` through the program with full reports (compiled the
        first time), which raises the engine's error. Only when it does not
        (the arguments changed in between, by another thread), an
        IndexError saying so."""
        if self._detailed_program is None:
            self._detailed_program = IreeProgram(self._asm, self.entry, self.checked, self.device,
                                                 self.extra_flags, details=True)
        self._detailed_program(*arrays)
        raise IndexError(
            f"{site_text(self.sites, report.site)}: {bad} indices were out of bounds, and none when read again: "
            "the arguments changed during the call"
        )


FAILED_ASSERT = re.compile(r"FAILED_PRECONDITION; (.*); $", re.DOTALL)


def _raise_failed_assert(error: RuntimeError) -> None:
    """A cf.assert that failed in the call (its message is located by
    `locate_asserts`) is the engine's ValueError, not IREE's RuntimeError."""
    failed = FAILED_ASSERT.search(str(error))
    if failed:
        raise ValueError(failed.group(1)) from None


def _owned(results: list[np.ndarray], handed: list[np.ndarray]) -> list[np.ndarray]:
    """The results as new arrays the caller owns, as the engine returns
    them: IREE hands back an argument returned as it is, or a reshape of
    one, in the argument's own memory (the caller's array, or this
    thread's staging buffer, which the next call overwrites), and the same
    value returned twice in one buffer. A result whose memory may overlap
    `handed` (the host memory the arguments were read from) or an earlier
    result is copied; the others (IREE's fresh buffers, the output
    storage) are the caller's already."""
    owned: list[np.ndarray] = []
    for result in results:
        if any(np.may_share_memory(result, other) for other in (*handed, *owned)):
            result = result.copy()
        owned.append(result)
    return owned


@atexit.register
def _release() -> None:
    """Drop every IREE object before the interpreter goes: released at its
    teardown, IREE's bindings report each one still alive as a leak."""
    for program in list(_programs):
        program._function = program._context = None
    _devices.clear()
    gc.collect()
