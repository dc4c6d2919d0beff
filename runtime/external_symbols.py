"""Which symbols of the process a module's compiled code may use.

The ExecutionEngine resolves every symbol a module does not define against
the symbols the runtime registered, then against every symbol of the
process, as mlir-runner does: a module could call `system`, `exit` or
`abort`, or read `environ`. What LLVM takes from the process is not only
what is declared without a body (`process_symbols`): a top-level symbol is
the module's own only when it is defined (a function's body, a global's
value or initializer, an alias's initializer, an ifunc's resolver) with a
linkage LLVM keeps, `external`, `internal` or `private` (KEPT_LINKAGES).
Any other linkage is taken as the process's: `available_externally`
(LLVM drops the body and links the process's symbol), `extern_weak` (a
declaration), and, conservatively, `weak`, `linkonce`, `common`, their
`_odr` forms and `appending`, which another definition may preempt. This
holds for every op that makes an LLVM symbol: `func.func` (its
`llvm.linkage`), `llvm.func`, `llvm.mlir.global`, `llvm.mlir.alias`,
`llvm.mlir.ifunc`.

By default gmx.runtime lets such a symbol through only when the runtime
provides it (`provided`), exactly what it hands the engine or finds in the
process:

- its callbacks (`runtime_abi`: the C interface of the error callbacks,
  and `memrefCopy`), which it registers;
- libomp's entry points it registers (`openmp.SYMBOLS`), no other
  `__kmpc_*` or `omp_*` name (libomp is loaded privately: nothing else of
  it is reachable);
- the C library's memory functions the lowering emits (`malloc`,
  `aligned_alloc`, `free`, `memcpy`, ...) and C99 libm, which
  `convert-math-to-libm` calls (`erff`, `tan`, ...), each only where the
  process has it;
- LLVM intrinsics (`llvm.abs.i32`: LLVM's own table), which are no symbols
  of the process (another `llvm.*` name is an ordinary symbol);
- and, where the lowering declared them itself (the module's text does
  not), `abort` and `puts`, which upstream's lowering of `cf.assert` calls
  to print its message and abort (`LOWERING_OWN`).

`check_external_symbols` refuses any other such symbol with a located
CompileError naming it, before the engine is built. `allow_external=True`
(gmx-run `--allow-external-symbols`) lets the module use any symbol of the
process, as mlir-runner does: the module is then trusted code. Either way
a symbol that neither the runtime nor the process provides is a located
CompileError naming it, where the JIT would fail to link with no location.
Symbols are what is checked: code that makes a pointer into a function by
arithmetic is not stopped by this, which is why a module is code, and only
the tensor-level ops gmx lowers are held to its guarantees.
"""

from __future__ import annotations

import ctypes
import functools
import re
from dataclasses import dataclass

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import ir, is_llvm_intrinsic
from gmx.passes.lowering.runtime_abi import ERROR_CALLBACKS, MEMREF_COPY_FN, REPORTED_FN

from . import openmp
from .errors import CompileError

C_INTERFACE_PREFIX = "_mlir_ciface_"
# What the runtime hands the engine itself (compiler.CompiledProgram):
# register_runtime registers a callback under its C interface name.
_CALLBACKS = (*ERROR_CALLBACKS, REPORTED_FN)
REGISTERED = frozenset(
    (*(C_INTERFACE_PREFIX + name for name in _CALLBACKS), MEMREF_COPY_FN, *openmp.SYMBOLS)
)
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
LOWERING_OWN = frozenset(("abort", "puts"))
# The linkages with which a definition is the module's own: LLVM keeps it
# and never links the process's symbol of that name in its place.
KEPT_LINKAGES = frozenset(("external", "internal", "private"))
# The linkages with which LLVM never emits the module's definition: the
# symbol must come from elsewhere (a weak or linkonce one the JIT keeps
# when nothing else defines it).
DROPPED_LINKAGES = frozenset(("available_externally", "extern_weak"))
_LINKAGE = re.compile(r"#llvm\.linkage<(\w+)>")
# The ops that make an LLVM symbol, by their kind in messages.
SYMBOL_OPS = {
    "func.func": "function", "llvm.func": "function", "llvm.mlir.global": "global",
    "llvm.mlir.alias": "alias", "llvm.mlir.ifunc": "ifunc",
}

ALLOW_HINT = (
    "pass allow_external=True to gmx.runtime.compile, or --allow-external-symbols to gmx-run, "
    "to let the module call any function of the process"
)


@dataclass(frozen=True)
class Symbol:
    """A top-level symbol of a module, as LLVM will link it."""

    kind: str  # "function", "global", "alias" or "ifunc"
    name: str
    linkage: str
    defined: bool
    location: ir.Location

    @property
    def from_process(self) -> bool:
        """Whether LLVM takes (or may take) it from the process: declared,
        or defined with a linkage LLVM may replace."""
        return not self.defined or self.linkage not in KEPT_LINKAGES

    @property
    def needs_provider(self) -> bool:
        """Whether the JIT must find it elsewhere: the module has no
        definition LLVM emits."""
        return not self.defined or self.linkage in DROPPED_LINKAGES

    def described(self) -> str:
        if not self.from_process:
            return f"defines {self.kind} '@{self.name}'"
        if not self.defined:
            return f"declares external {self.kind} '@{self.name}'"
        return (
            f"defines {self.kind} '@{self.name}' with {self.linkage} linkage (LLVM may link the "
            "process's symbol of that name in its place)"
        )


@functools.cache
def _process() -> ctypes.CDLL:
    """The process's global symbols, as the engine searches them (dlopen(NULL))."""
    return ctypes.CDLL(None)


def in_process(name: str) -> bool:
    """Whether the process has a global symbol `name` for the engine to link."""
    try:
        _process()[name]
    except (AttributeError, ValueError):
        return False
    return True


def resolvable(name: str) -> bool:
    """Whether the engine can link `name` at all: the runtime registers it,
    LLVM has it as an intrinsic, or the process has it."""
    return name in REGISTERED or (name.startswith("llvm.") and is_llvm_intrinsic(name)) or in_process(name)


def provided(name: str) -> bool:
    """Whether the runtime lets compiled code use the process symbol `name`
    by default: exactly what it registers or resolves itself (module
    docstring)."""
    if name in REGISTERED:
        return True
    if name.startswith("llvm."):
        return is_llvm_intrinsic(name)
    return (name in MEMORY_FUNCTIONS or name in LIBM_FUNCTIONS) and in_process(name)


def refused(name: str, written: bool) -> bool:
    """Whether the runtime refuses to resolve the process symbol `name`,
    `written` when the module's text declared it (not the lowering)."""
    return not provided(name) and (written or name not in LOWERING_OWN)


def _linkage(op: ir.Operation) -> str:
    """The op's LLVM linkage (`llvm.linkage` on a func.func; external when unset)."""
    attributes = op.attributes
    for key in ("linkage", "llvm.linkage"):
        if key in attributes:
            found = _LINKAGE.fullmatch(str(attributes[key]))
            return found.group(1) if found else str(attributes[key])
    return "external"


def _has_definition(op: ir.Operation) -> bool:
    """A body, a value or an initializer (an ifunc is defined by its resolver)."""
    return (
        op.name == "llvm.mlir.ifunc"
        or (op.name == "llvm.mlir.global" and "value" in op.attributes)
        or any(region.blocks for region in op.regions)
    )


def top_level_symbols(module: ir.Module) -> list[Symbol]:
    """Every symbol the module's top-level ops make for LLVM, in order."""
    found = []
    for op in module.body.operations:
        op = op.operation
        kind = SYMBOL_OPS.get(op.name)
        if kind is not None and "sym_name" in op.attributes:
            name = ir.StringAttr(op.attributes["sym_name"]).value
            found.append(Symbol(kind, name, _linkage(op), _has_definition(op), op.location))
    return found


def process_symbols(module: ir.Module) -> list[Symbol]:
    """The module's top-level symbols that LLVM takes, or may take, from
    the process (the module docstring's rule), in order."""
    return [symbol for symbol in top_level_symbols(module) if symbol.from_process]


def written_symbols(module: ir.Module) -> set[str]:
    """The names of the process symbols the module's text has (before
    lowering): those the lowering did not declare itself."""
    return {symbol.name for symbol in process_symbols(module)}


def check_external_symbols(module: ir.Module, written: set[str], allow_external: bool = False) -> None:
    """Raise CompileError, located at the first symbol of the lowered
    `module` that the runtime does not let through (any symbol with
    `allow_external`), that nothing provides, or that the module defines
    where the runtime registers one of that name, naming every such symbol;
    nothing when there is none. `written`: the process symbols the
    module's text had (`written_symbols` before lowering)."""
    symbols = top_level_symbols(module)
    clashes = [symbol for symbol in symbols if not symbol.from_process and symbol.name in REGISTERED]
    if clashes:
        _raise(clashes, "a symbol gmx.runtime defines itself for compiled code: rename it")
    symbols = [symbol for symbol in symbols if symbol.from_process]
    missing = [symbol for symbol in symbols if symbol.needs_provider and not resolvable(symbol.name)]
    if missing:
        _raise(missing, "which neither gmx.runtime nor the process provides: the JIT could not link it")
    if allow_external:
        return
    found = [symbol for symbol in symbols if refused(symbol.name, symbol.name in written)]
    if found:
        _raise(found, (
            "which gmx.runtime does not provide: by default a module may use only the runtime's "
            f"callbacks, libm, the memory and OpenMP runtime functions; {ALLOW_HINT}"
        ))


def _raise(symbols: list[Symbol], why: str) -> None:
    first, others = symbols[0], [f"@{symbol.name}" for symbol in symbols[1:]]
    more = f" (and {', '.join(others)})" if others else ""
    raise CompileError(f"{location_text(first.location)}: error: the module {first.described()}{more}, {why}")
