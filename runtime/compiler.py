"""Compile a module with `--gmx-lower-to-llvm` and call it on numpy arrays.

    program = compile(asm, entry="main")
    out = program(x, idx)            # new numpy array(s)

The entry function takes and returns ranked tensors. An index outside its
axis raises IndexError (located at the gather that read it); shapes that
turn out incompatible at run time raise ValueError. Programs are cached by
(text, entry, checked), so compiling the same program again is free.
"""

from __future__ import annotations

import ctypes
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from gmx.dialect import make_context
from gmx.dialect.locations import error_text
from gmx.dialect.mlir import ExecutionEngine, ir, passmanager
from gmx.dialect.parsing import UnparsableText, parse_text
from gmx.passes.lowering.gmx_lower_to_llvm import PASS as LOWER_TO_LLVM
from gmx.passes.lowering.runtime_abi import (
    CALLBACK_ARITY,
    INDEX_ERROR_FN,
    MEMREF_COPY_FN,
    SHAPE_ERROR_EMPTY_AXIS,
    SHAPE_ERROR_FN,
    SHAPE_ERROR_NOT_DIVISIBLE,
    SIGNATURE_ATTR,
    error_sites,
    tensor_signature,
)

from . import memref
from .dtypes import numpy_dtype

_CALLBACK = ctypes.CFUNCTYPE(None, *[ctypes.c_int64] * CALLBACK_ARITY)
_CACHE_SIZE = 64
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


class CompileError(Exception):
    """The program could not be parsed, verified or lowered; the message
    holds located diagnostics (`file:line:col: error: ...`)."""


@dataclass(frozen=True)
class TensorSignature:
    """Element dtype and shape (None for `?`) of an argument or result."""

    dtype: np.dtype
    shape: tuple

    @property
    def rank(self) -> int:
        return len(self.shape)

    def describe(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"


def _tensor_signature(t: ir.Type, role: str) -> TensorSignature:
    if not isinstance(t, ir.RankedTensorType):
        raise CompileError(f"{role} has type {t}; gmx.runtime exchanges ranked tensors only")
    shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape)
    try:
        return TensorSignature(numpy_dtype(t.element_type), shape)
    except TypeError as error:
        raise CompileError(f"{role}: {error}") from None


def _find_entry(module: ir.Module, entry: str):
    """The entry's op: a `func.func`, or an `llvm.func` that
    --gmx-lower-to-llvm lowered (it carries its tensor signature)."""
    for op in module.body.operations:
        op = op.operation
        if op.name not in ("func.func", "llvm.func"):
            continue
        if ir.StringAttr(op.attributes["sym_name"]).value != entry:
            continue
        if not op.regions[0].blocks:
            raise CompileError(f"entry function '@{entry}' is only a declaration")
        if op.name == "llvm.func" and SIGNATURE_ATTR not in op.attributes:
            raise CompileError(
                f"'@{entry}' is already in the LLVM dialect without its tensor signature: "
                "lower it with --gmx-lower-to-llvm, or pass the tensor-level module"
            )
        return op
    raise CompileError(f"no function '@{entry}' in the module")


class _ErrorLog(threading.local):
    """Errors reported by the compiled code during one call, per thread."""

    def __init__(self):
        self.index_errors: list[tuple] = []
        self.shape_errors: list[tuple] = []


class CompiledProgram:
    """A lowered, JIT-compiled entry function, callable on numpy arrays."""

    def __init__(self, asm: str, entry: str, checked: bool):
        self.entry = entry
        self._context = make_context()
        with self._context, ir.Location.unknown():
            module = _parse(asm)
            entry_op = _find_entry(module, entry)
            ftype = tensor_signature(entry_op)
            self.arguments = [_tensor_signature(t, f"argument #{i}") for i, t in enumerate(ftype.inputs)]
            self.results = [_tensor_signature(t, f"result #{i}") for i, t in enumerate(ftype.results)]
            if entry_op.name == "func.func":
                _lower(module, checked)
            self.sites = error_sites(module.operation)
            self._engine = ExecutionEngine(module, opt_level=3)
        self._log = _ErrorLog()
        self._callbacks = [_CALLBACK(self._on_index_error), _CALLBACK(self._on_shape_error)]
        self._engine.register_runtime(INDEX_ERROR_FN, self._callbacks[0])
        self._engine.register_runtime(SHAPE_ERROR_FN, self._callbacks[1])
        self._engine.raw_register_runtime(MEMREF_COPY_FN, ctypes.cast(memref.MEMREF_COPY, ctypes.c_void_p))
        self._function = self._engine.lookup(entry)

    # -- callbacks from the compiled code -------------------------------------
    def _on_index_error(self, site, axis, value, size):
        self._log.index_errors.append((site, axis, value, size))

    def _on_shape_error(self, site, dim, a, b):
        self._log.shape_errors.append((site, dim, a, b))

    def _site(self, site: int) -> str:
        return self.sites[site] if 0 <= site < len(self.sites) else "<unknown>"

    def _raise_reported_errors(self) -> None:
        log = self._log
        shape_errors, index_errors = log.shape_errors, log.index_errors
        log.shape_errors, log.index_errors = [], []
        if shape_errors:
            site, dim, a, b = shape_errors[0]
            if dim == SHAPE_ERROR_EMPTY_AXIS:
                raise IndexError(
                    f"{self._site(site)}: axis {a} has size {b}: every index into it is out of bounds"
                )
            raise ValueError(self._shape_error_message(site, dim, a, b))
        if index_errors:
            site, axis, value, size = index_errors[0]
            more = f" ({len(index_errors)} indices out of bounds)" if len(index_errors) > 1 else ""
            raise IndexError(
                f"{self._site(site)}: index {value} is out of bounds for axis {axis} "
                f"with size {size}{more}"
            )

    def _shape_error_message(self, site, dim, a, b) -> str:
        where = self._site(site)
        if dim == SHAPE_ERROR_NOT_DIVISIBLE:
            return f"{where}: indices last dim {a} is not a multiple of the coordinate size {b}"
        return (
            f"{where}: non-axis dim {dim} is not broadcastable at run time: "
            f"input has size {a}, logical indices have size {b}"
        )

    # -- calling ---------------------------------------------------------------
    def __call__(self, *arrays):
        arrays = self._check_arguments(arrays)
        descriptors = [memref.to_descriptor(a) for a in arrays]
        returned = self._call(descriptors)
        outputs = memref.adopt_results(returned, [(sig.rank, sig.dtype) for sig in self.results])
        self._raise_reported_errors()
        if len(outputs) == 1:
            return outputs[0]
        return tuple(outputs)

    def _call(self, descriptors) -> list:
        """Invoke the C interface; return the result descriptors."""
        args = [ctypes.pointer(ctypes.pointer(d)) for d in descriptors]
        if not self.results:
            self._invoke(args)
            return []
        if len(self.results) == 1:
            result = memref.descriptor_type(self.results[0].rank)()
            self._invoke([ctypes.pointer(ctypes.pointer(result))] + args)
            return [result]
        packed = memref.results_struct_type([r.rank for r in self.results])()
        self._invoke([ctypes.pointer(ctypes.pointer(packed))] + args)
        return [getattr(packed, f"r{i}") for i in range(len(self.results))]

    def _invoke(self, args) -> None:
        self._log.index_errors, self._log.shape_errors = [], []
        packed = (ctypes.c_void_p * len(args))(*[ctypes.cast(a, ctypes.c_void_p) for a in args])
        self._function(packed)

    def _check_arguments(self, arrays) -> list[np.ndarray]:
        if len(arrays) != len(self.arguments):
            raise TypeError(
                f"@{self.entry} takes {len(self.arguments)} arguments "
                f"({', '.join(s.describe() for s in self.arguments)}), got {len(arrays)}"
            )
        return [self._check_argument(i, a, sig) for i, (a, sig) in enumerate(zip(arrays, self.arguments))]

    def _check_argument(self, i: int, array, sig: TensorSignature) -> np.ndarray:
        array = np.asarray(array)
        # Exactly the dtype: an unsigned array for a signless integer would be
        # reinterpreted silently (uint8 200 read as i8 -56).
        if array.dtype != sig.dtype:
            raise TypeError(f"argument #{i} of @{self.entry} must be {sig.describe()}, got dtype {array.dtype}")
        shape_ok = array.ndim == sig.rank and all(
            want is None or want == got for want, got in zip(sig.shape, array.shape)
        )
        if not shape_ok:
            raise ValueError(
                f"argument #{i} of @{self.entry} must be {sig.describe()}, got shape {list(array.shape)}"
            )
        return np.ascontiguousarray(array)


def _parse(asm: str) -> ir.Module:
    try:
        return parse_text(ir.Module.parse, asm, "-")
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None
    except UnparsableText as error:
        raise CompileError(str(error)) from None


def _lower(module: ir.Module, checked: bool) -> None:
    pm = passmanager.PassManager("builtin.module")
    LOWER_TO_LLVM.add_to(pm, f"checked={str(checked).lower()}")
    try:
        pm.run(module.operation)
    except ir.MLIRError as error:
        raise CompileError(error_text(error)) from None


def _module_text(asm_or_module) -> str:
    if isinstance(asm_or_module, str):
        return asm_or_module
    operation = getattr(asm_or_module, "operation", asm_or_module)
    return operation.get_asm(enable_debug_info=True)


def compile(asm_or_module, entry: str = "main", *, checked: bool = True) -> CompiledProgram:
    """Lower and JIT-compile `entry` of a module (text or ir.Module).

    Raises CompileError with located diagnostics when the module does not
    parse, verify or lower. `checked=False` drops the run-time bounds
    check of gathered indices (for benchmarks only).
    """
    key = (_module_text(asm_or_module), entry, checked)
    with _cache_lock:
        program = _cache.get(key)
        if program is not None:
            _cache.move_to_end(key)
            return program
    program = CompiledProgram(*key)
    with _cache_lock:
        _cache[key] = program
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return program


def run(asm_or_module, *arrays, entry: str = "main", checked: bool = True):
    """compile(...) then call once: a numpy array, or a tuple for several results."""
    return compile(asm_or_module, entry, checked=checked)(*arrays)
