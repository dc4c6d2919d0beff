"""LLVM's OpenMP runtime (libomp, from the `cmeel-libomp` package), which
the parallel loops of compiled programs call (`convert-scf-to-openmp`).

It is loaded once, locally (`RTLD_LOCAL`): its symbols never rebind the
OpenMP calls of another library in the process (torch's libgomp, ONNX
Runtime's threads); the ExecutionEngine gets them one by one
(`register`). Its workers sleep as soon as a parallel region ends
(`KMP_BLOCKTIME=0`, set as a default of this libomp alone, through
`kmp_set_defaults`, before it starts): a spinning worker would take the
cores from torch's threads after a gmx call. The thread count is set per
calling thread (`omp_set_num_threads` sets the calling thread's own
count), so calls from several Python threads each run on their own. It
initialises without the OpenMP variables of the environment it would
misread (`openmp_environment`).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.metadata
import os
import threading

from . import openmp_environment
from .errors import CompileError

PACKAGE = "cmeel-libomp"
_LIBRARY = "cmeel.prefix/lib/libomp.so"
# The entry points LLVM's OpenMPIRBuilder calls for the parallel loops of
# `convert-scf-to-openmp` (a region, a static worksharing loop, a barrier,
# reductions), and the omp_* functions a program may call.
SYMBOLS = (
    "__kmpc_barrier",
    "__kmpc_end_reduce",
    "__kmpc_end_reduce_nowait",
    "__kmpc_end_serialized_parallel",
    "__kmpc_for_static_fini",
    "__kmpc_for_static_init_4",
    "__kmpc_for_static_init_4u",
    "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u",
    "__kmpc_fork_call",
    "__kmpc_global_thread_num",
    "__kmpc_push_num_threads",
    "__kmpc_reduce",
    "__kmpc_reduce_nowait",
    "__kmpc_serialized_parallel",
    "omp_get_max_threads",
    "omp_get_num_threads",
    "omp_get_thread_num",
)


# More threads than this are not asked of libomp (which would warn on
# stderr beyond its own limit); a count past the cores only oversubscribes.
MAX_THREADS = 256


class OpenMPUnavailable(CompileError):
    """libomp could not be found or loaded: no program can run."""


def library_path() -> str:
    """Where `cmeel-libomp` installed libomp.so."""
    try:
        distribution = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise OpenMPUnavailable(
            f"gmx runs parallel loops on LLVM's OpenMP runtime from the package '{PACKAGE}', "
            f"which is not installed (pip install {PACKAGE})"
        ) from None
    return str(distribution.locate_file(_LIBRARY))


@functools.cache
def library() -> ctypes.CDLL:
    """libomp, loaded locally, its workers set not to spin (once)."""
    path = library_path()
    with _loading, openmp_environment.for_libomp():
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        except OSError as error:
            raise OpenMPUnavailable(f"cannot load libomp of the package '{PACKAGE}' ({path}): {error}") from None
        lib.kmp_set_defaults.argtypes = [ctypes.c_char_p]
        # Initialises libomp (it reads the environment), then sets the default.
        lib.kmp_set_defaults(_DEFAULTS)
    lib.omp_set_num_threads.argtypes = [ctypes.c_int]
    return lib


_DEFAULTS = b"KMP_BLOCKTIME=0"
_loading = threading.Lock()  # one libomp initialisation at a time (functools.cache does not lock)


class _AcrossFork:
    """libomp's own fork handler starts it over in the child, reading the
    environment again, unguarded (a malformed OMP_NUM_THREADS crashed every
    call in a forked child, multiprocessing's included): from just before
    os.fork until it returns, the environment is the one libomp starts
    with (`openmp_environment`; the malformed values were named at load).
    In the child, this thread's count is libomp's default again."""

    hiding: contextlib.ExitStack | None = None

    @classmethod
    def before(cls) -> None:
        if library.cache_info().currsize:  # loaded in this process
            cls.hiding = contextlib.ExitStack()
            cls.hiding.enter_context(openmp_environment.for_libomp(warn=False))

    @classmethod
    def after(cls, in_child: bool = False) -> None:
        hiding, cls.hiding = cls.hiding, None
        if hiding is not None:
            hiding.close()
        if in_child:
            _count.value = 0


def register(engine) -> None:
    """Give `engine` libomp's entry points (before its first lookup)."""
    lib = library()
    for name in SYMBOLS:
        engine.raw_register_runtime(name, ctypes.cast(getattr(lib, name), ctypes.c_void_p))


class _ThreadCount(threading.local):
    value = 0


_count = _ThreadCount()
os.register_at_fork(before=_AcrossFork.before, after_in_parent=_AcrossFork.after,
                    after_in_child=lambda: _AcrossFork.after(in_child=True))


def set_threads(threads: int) -> None:
    """The OpenMP thread count of this thread's next parallel regions, at
    most MAX_THREADS (libomp is asked only when it changes)."""
    threads = min(threads, MAX_THREADS)
    if _count.value != threads:
        library().omp_set_num_threads(threads)
        _count.value = threads
