"""`--gmx-lower-to-llvm`: tensors (gmx, TOSA, linalg, tensor, arith) to the
LLVM dialect, ready for the ExecutionEngine.

Every stage but the first is upstream. Function boundaries bufferize to
identity-layout memrefs and results are owned by the caller (the ownership-
based deallocation pipeline clones what a function does not own), so a
caller can free each returned buffer once. Nothing here emits calls into
MLIR's runner-utils library, which this build's ExecutionEngine lacks.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from .convert_gmx_to_linalg import PASS as CONVERT_GMX_TO_LINALG
from .registry import PassInfo, PassOption, add_python_pass

# The tensor signature of each public function, kept through the lowering so
# that an LLVM-dialect module can still be called on numpy arrays.
SIGNATURE_ATTR = "gmx.signature"

UPSTREAM_STAGES = (
    "tosa-to-linalg-pipeline",
    "func.func(tosa-to-tensor)",
    "tosa-to-arith",
    "canonicalize",
    "cse",
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "unknown-type-conversion=identity-layout-map}",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    "convert-linalg-to-loops",
    "lower-affine",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "finalize-memref-to-llvm",
    "convert-complex-to-llvm",
    "convert-math-to-llvm",
    "convert-func-to-llvm",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-index-to-llvm",
    "reconcile-unrealized-casts",
)


def prepare_entry_points(module) -> None:
    """Give every public function with a body the C interface the
    ExecutionEngine calls, and record its tensor signature."""
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.func" or not op.regions[0].blocks:
            continue
        if "sym_visibility" in op.attributes:
            continue  # private or nested: not an entry point
        op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        op.attributes[SIGNATURE_ATTR] = op.attributes["function_type"]


def loop_level_elements(checked: bool = True) -> list[str]:
    """Pipeline elements (for `build_pass_manager`) taking a tensor module to
    its loop level: what `--gmx-lower-to-llvm` has made of it just before
    structured control flow is lowered to branches (scf loops on memrefs).
    Tools that show the lowering stage by stage (gmx-study) use this."""
    stop = next(i for i, s in enumerate(UPSTREAM_STAGES) if s.startswith("convert-scf-to-cf"))
    return [f"convert-gmx-to-linalg{{checked={str(checked).lower()}}}", *UPSTREAM_STAGES[:stop]]


def _build(pm, options) -> None:
    add_python_pass(pm, prepare_entry_points, PASS)
    CONVERT_GMX_TO_LINALG.add_to(pm, f"checked={str(options['checked']).lower()}")
    for stage in UPSTREAM_STAGES:
        pm.add(stage)


PASS = PassInfo(
    argument="gmx-lower-to-llvm",
    description="Lower gmx, TOSA, linalg, tensor and arith on tensors to the LLVM dialect",
    build=_build,
    options=(
        PassOption("checked", True, "bounds-check gathered indices at run time"),
    ),
)
