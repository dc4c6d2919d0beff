"""Which functions outside a module its compiled code may call.

The ExecutionEngine resolves a function a module declares but does not
define (an `llvm.func` without a body) against every symbol of the
process, as mlir-runner does: a module could call `system`, `exit` or
`abort`. By default gmx.runtime resolves only what it provides itself,
decided by name (`provided`):

- its callbacks (`runtime_abi`: the error callbacks, with their C
  interface wrappers, and `memrefCopy`);
- the C library's memory functions the lowering emits (`malloc`,
  `aligned_alloc`, `free`, `memcpy`, ...);
- libm, which `convert-math-to-libm` calls for math ops LLVM has no
  intrinsic for (`erff`, `tan`, ...);
- the OpenMP runtime (`__kmpc_*`, `omp_*`), which parallel code calls;
- LLVM intrinsics (`llvm.*`), which are no symbols of the process;
- and, where the lowering declared them itself (the module's text does
  not), `abort` and `puts`, which upstream's lowering of `cf.assert` calls
  to print its message and abort (`LOWERING_OWN`).

`check_external_functions` refuses any other declared function (and any
external global, whose address would be the process's) with a located
CompileError naming it, before the engine is built. `allow_external=True`
(gmx-run `--allow-external-symbols`) skips the check: the module is then
trusted code, as with mlir-runner. A declaration is what is checked: code
that makes a pointer into a function by arithmetic is not stopped by this,
which is why a module is code, and only the tensor-level ops gmx lowers
are held to its guarantees.
"""

from __future__ import annotations

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import ir
from gmx.passes.lowering.runtime_abi import ERROR_CALLBACKS, MEMREF_COPY_FN, REPORTED_FN

from .errors import CompileError

C_INTERFACE_PREFIX = "_mlir_ciface_"
_CALLBACKS = (*ERROR_CALLBACKS, REPORTED_FN)
RUNTIME_FUNCTIONS = frozenset((*_CALLBACKS, *(C_INTERFACE_PREFIX + name for name in _CALLBACKS), MEMREF_COPY_FN))
MEMORY_FUNCTIONS = frozenset(
    ("malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "free", "memcpy", "memmove", "memset")
)
# C99 <math.h>, each in double and float (`f` suffix) precision.
_LIBM = (
    "acos asin atan atan2 acosh asinh atanh cbrt ceil copysign cos cosh erf erfc exp exp2 expm1 "
    "fabs floor fma fmax fmin fmod hypot ldexp lgamma log log10 log1p log2 nearbyint pow "
    "remainder rint round roundeven sin sinh sqrt tan tanh tgamma trunc"
).split()
LIBM_FUNCTIONS = frozenset((*_LIBM, *(name + "f" for name in _LIBM)))
PROVIDED_PREFIXES = ("__kmpc_", "omp_", "llvm.")
LOWERING_OWN = frozenset(("abort", "puts"))

ALLOW_HINT = (
    "pass allow_external=True to gmx.runtime.compile, or --allow-external-symbols to gmx-run, "
    "to let the module call any function of the process"
)


def provided(name: str) -> bool:
    """Whether the runtime resolves the external function `name` by default."""
    return (
        name in RUNTIME_FUNCTIONS
        or name in MEMORY_FUNCTIONS
        or name in LIBM_FUNCTIONS
        or name.startswith(PROVIDED_PREFIXES)
    )


def refused(name: str, written: bool) -> bool:
    """Whether the runtime refuses to resolve the external function `name`,
    `written` when the module's text declared it (not the lowering)."""
    return not provided(name) and (written or name not in LOWERING_OWN)


def declared_functions(module: ir.Module) -> set[str]:
    """The names of the functions the module declares without defining
    them (`func.func` or `llvm.func`): before lowering, those its text
    declares."""
    return {
        ir.StringAttr(op.operation.attributes["sym_name"]).value
        for op in module.body.operations
        if op.operation.name in ("func.func", "llvm.func") and not op.operation.regions[0].blocks
    }


def external_symbols(module: ir.Module) -> list[tuple[str, str, ir.Location]]:
    """(kind, name, location) of each function the module declares without
    defining it, and each global it declares without a value, in order."""
    found = []
    for op in module.body.operations:
        op = op.operation
        if op.name == "llvm.func" and not op.regions[0].blocks:
            found.append(("function", ir.StringAttr(op.attributes["sym_name"]).value, op.location))
        elif op.name == "llvm.mlir.global" and "value" not in op.attributes and not op.regions[0].blocks:
            found.append(("global", ir.StringAttr(op.attributes["sym_name"]).value, op.location))
    return found


def check_external_functions(module: ir.Module, written: set[str]) -> None:
    """Raise CompileError, located at the first declaration of the lowered
    `module` that the runtime does not resolve, naming every such symbol;
    nothing when there is none. `written`: the functions the module's text
    declared (`declared_functions` before lowering)."""
    found = [
        (kind, name, location) for kind, name, location in external_symbols(module)
        if kind == "global" or refused(name, name in written)
    ]
    if not found:
        return
    kind, name, location = found[0]
    others = [f"@{n}" for _, n, _ in found[1:]]
    more = f" (and {', '.join(others)})" if others else ""
    raise CompileError(
        f"{location_text(location)}: error: the module declares external {kind} '@{name}'{more}, which gmx.runtime "
        f"does not provide: by default a module may call only the runtime's callbacks, libm, the memory "
        f"and OpenMP runtime functions; {ALLOW_HINT}"
    )
