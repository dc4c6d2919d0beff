"""What this build of gmx carries: `--version` (gmx's version, the
torch-mlir wheel whose MLIR it runs on, and that MLIR's LLVM version) and
`--show-dialects` (every dialect a gmx context knows).

The bindings list no dialects, so `KNOWN_DIALECTS` names the candidates
and a context is asked for each; tests/test_general_options.py checks
that they are all of those the context registers (the C API counts them),
so a wheel that brings a new dialect fails that test until it is named.
"""

from __future__ import annotations

import io

from gmx.dialect.mlir import ir

# Upstream's dialects (registerAllDialects), StableHLO's, torch-mlir's and gmx.
KNOWN_DIALECTS = (
    "acc", "affine", "amdgpu", "arith", "arm_neon", "arm_sme", "arm_sve", "async", "bufferization", "builtin",
    "cf", "chlo", "complex", "dlti", "emitc", "func", "gmx", "gpu", "index", "irdl", "linalg", "llvm", "math",
    "memref", "ml_program", "mpi", "nvgpu", "nvvm", "omp", "pdl", "pdl_interp", "ptr", "quant", "rocdl", "scf",
    "shape", "shard", "smt", "sparse_tensor", "spirv", "stablehlo", "tensor", "tm_tensor", "torch", "torch_c",
    "tosa", "transform", "ub", "vcix", "vector", "wasmssa", "x86", "xegpu", "xevm",
)


def available_dialects(context: ir.Context) -> list[str]:
    """The dialects of KNOWN_DIALECTS that `context` knows, sorted (asking
    loads each)."""
    found = []
    for name in KNOWN_DIALECTS:
        try:
            context.get_dialect_descriptor(name)
        except ValueError:
            continue
        found.append(name)
    return sorted(found)


def dialects_text(context: ir.Context) -> str:
    """mlir-opt's --show-dialects line."""
    return "Available Dialects: " + ",".join(available_dialects(context)) + "\n"


def llvm_version(context: ir.Context) -> str:
    """The LLVM version of the MLIR in use, as its bytecode writer names
    its producer (`MLIR24.0.0git` -> `24.0.0git`)."""
    with context, ir.Location.unknown():
        buffer = io.BytesIO()
        ir.Module.create().operation.write_bytecode(buffer)
    header = buffer.getvalue()
    # magic (4 bytes), version (a one-byte varint), then the producer, NUL-terminated
    return header[5:header.index(b"\0", 5)].decode("utf-8").removeprefix("MLIR")


def version_text(prog: str, context: ir.Context) -> str:
    """`--version`: gmx's version, the wheel and the LLVM it carries."""
    # Imported here, not at the top: importlib.metadata costs every
    # gmx-opt start ~28 ms of CPU (of ~500 ms), and only --version reads it.
    from importlib import metadata

    return (
        f"{prog} (gmx {metadata.version('gmx')})\n"
        f"  MLIR of torch-mlir {metadata.version('torch-mlir')}\n"
        f"  LLVM version {llvm_version(context)}\n"
    )
