"""The one place gmx imports the MLIR Python bindings.

The bindings come from the `torch-mlir` wheel (upstream MLIR bindings under
the `torch_mlir` namespace). Switching to another carrier of the same
bindings (e.g. `mlir`) is a change of the package name below, nowhere else.
`stablehlo` is the StableHLO extension the same wheel carries: its
`register_dialect`, `register_stablehlo_passes`, `GatherDimensionNumbers`
and `eval_module` (the StableHLO reference interpreter).
`register_torch_mlir_dialects` adds torch-mlir's own dialects (`tm_tensor`,
which its linalg-on-tensors export emits, `torch`, `torch_c`) and passes
(`tm-tensor-bufferize`, `tm-tensor-to-loops`, ...).
"""

import ctypes
import functools
import os
import threading

from torch_mlir import ir, passmanager, rewrite  # noqa: F401
from torch_mlir._mlir_libs import _stablehlo as stablehlo  # noqa: F401
from torch_mlir._mlir_libs._mlir import globals as binding_globals  # noqa: F401
from torch_mlir.dialects import (  # noqa: F401
    arith,
    bufferization,
    cf,
    ext,
    func,
    linalg,
    memref,
    scf,
    tensor,
    tosa,
    vector,
)
from torch_mlir.execution_engine import ExecutionEngine  # noqa: F401


def register_torch_mlir_dialects(context: ir.Context) -> None:
    """torch-mlir's dialects in `context`, its passes in every pipeline
    parser. The Python bindings register `torch` alone; the wheel's C API
    (in the library the bindings load) registers `tm_tensor` too, and the
    passes (once: the pass registry is global)."""
    capsule = context._CAPIPtr
    pointer = _capsule_pointer(capsule, _capsule_name(capsule))
    with _capi_lock:
        library = _torch_mlir_capi()
    library.torchMlirRegisterAllDialects(_MlirContext(pointer))


class _MlirContext(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


# The C API's handles travel in capsules; these read the pointer out.
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_capi_lock = threading.Lock()


@functools.cache
def _torch_mlir_capi() -> ctypes.CDLL:
    """The wheel's C API library, its passes registered."""
    from torch_mlir import _mlir_libs

    library = ctypes.CDLL(os.path.join(os.path.dirname(_mlir_libs.__file__), "libTorchMLIRAggregateCAPI.so"))
    library.torchMlirRegisterAllDialects.argtypes = [_MlirContext]
    library.torchMlirRegisterAllDialects.restype = None
    library.LLVMLookupIntrinsicID.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.LLVMLookupIntrinsicID.restype = ctypes.c_uint
    library.torchMlirRegisterAllPasses()
    return library


def is_llvm_intrinsic(name: str) -> bool:
    """Whether LLVM (the wheel's) has an intrinsic of this name
    (`llvm.abs.i32`, `llvm.memcpy.p0.p0.i64`): a `llvm.*` name that is not
    one is an ordinary symbol to LLVM, looked up in the process."""
    with _capi_lock:
        library = _torch_mlir_capi()
    encoded = name.encode("utf-8", "surrogatepass")
    return library.LLVMLookupIntrinsicID(encoded, len(encoded)) != 0
