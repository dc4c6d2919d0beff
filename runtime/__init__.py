"""gmx.runtime: compile MLIR with `--gmx-lower-to-llvm` and run it on numpy arrays."""

from .compiler import CompiledProgram, CompileError, compile, run  # noqa: F401
from .dtypes import ElementTypeError, numpy_dtype  # noqa: F401
