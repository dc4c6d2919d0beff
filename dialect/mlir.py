"""The one place gmx imports the MLIR Python bindings.

The bindings come from the `torch-mlir` wheel (upstream MLIR bindings under
the `torch_mlir` namespace). Switching to another carrier of the same
bindings (e.g. `mlir`) is a change of the package name below, nowhere else.
`stablehlo` is the StableHLO extension the same wheel carries: its
`register_dialect`, `register_stablehlo_passes`, `GatherDimensionNumbers`
and `eval_module` (the StableHLO reference interpreter).
"""

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
