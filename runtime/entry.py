"""The entry function of a module and its numpy signature.

An entry is a public function with a body: a `func.func` (no
`sym_visibility`, or `"public"`), or an `llvm.func` that
--gmx-lower-to-llvm lowered from one (it keeps its tensor signature).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gmx.dialect.mlir import ir
from gmx.passes.lowering.entry_points import is_entry_point, visibility
from gmx.passes.lowering.runtime_abi import SIGNATURE_ATTR, tensor_signature

from .dtypes import numpy_dtype
from .errors import CompileError
from .scalars import number_as_array

_FUNCTIONS = ("func.func", "llvm.func")


@dataclass(frozen=True)
class TensorSignature:
    """Element dtype and shape (None for `?`) of an argument or result."""

    dtype: np.dtype
    shape: tuple
    # The MLIR type it was read from (what donations pair by): "" when
    # built from numpy alone.
    type: str = field(default="", compare=False)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def describe(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"


def _functions(module: ir.Module) -> dict:
    """The module's top-level functions by name."""
    functions = {}
    for op in module.body.operations:
        op = op.operation
        if op.name in _FUNCTIONS:
            functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
    return functions


def _callable(op) -> bool:
    """A public function with a body (and its signature, once lowered)."""
    if not is_entry_point(op) or not op.regions[0].blocks:
        return False
    return op.name == "func.func" or SIGNATURE_ATTR in op.attributes


def _public_functions(functions: dict) -> str:
    names = [f"@{name}" for name, op in functions.items() if _callable(op)]
    return f"its public functions: {', '.join(names)}" if names else "it has no public function"


def find_entry(module: ir.Module, entry: str):
    """The entry's op; a CompileError says why `entry` is none."""
    functions = _functions(module)
    op = functions.get(entry)
    if op is None:
        raise CompileError(f"no function '@{entry}' in the module ({_public_functions(functions)})")
    if not is_entry_point(op):
        spelled = visibility(op)
        raise CompileError(
            f"'@{entry}' is {spelled} (sym_visibility = \"{spelled}\"): "
            f"only public functions are entry points ({_public_functions(functions)})"
        )
    if not op.regions[0].blocks:
        raise CompileError(f"entry function '@{entry}' is only a declaration")
    if op.name == "llvm.func" and SIGNATURE_ATTR not in op.attributes:
        raise CompileError(
            f"'@{entry}' is already in the LLVM dialect without its tensor signature: "
            "lower it with --gmx-lower-to-llvm, or pass the tensor-level module"
        )
    return op


def _tensor(t: ir.Type, role: str) -> TensorSignature:
    if not isinstance(t, ir.RankedTensorType):
        raise CompileError(f"{role} has type {t}; gmx.runtime exchanges ranked tensors only")
    shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in t.shape)
    try:
        return TensorSignature(numpy_dtype(t.element_type), shape, str(t))
    except TypeError as error:
        raise CompileError(f"{role}: {error}") from None


def numpy_signature(entry_op) -> tuple[list[TensorSignature], list[TensorSignature]]:
    """(arguments, results) of the entry as numpy dtypes and shapes."""
    ftype = tensor_signature(entry_op)
    arguments = [_tensor(t, f"argument #{i}") for i, t in enumerate(ftype.inputs)]
    results = [_tensor(t, f"result #{i}") for i, t in enumerate(ftype.results)]
    return arguments, results


def check_argument(entry: str, i: int, array, sig: TensorSignature) -> np.ndarray:
    """Argument #i of @entry as a C-contiguous array of its signature `sig`
    (every backend checks its arguments with this: the same messages); a
    Python number for a rank-0 argument is a 0-d array of its dtype."""
    what = f"argument #{i} of @{entry}"
    array = np.asarray(number_as_array(array, sig.dtype, what) if sig.rank == 0 else array)
    # Exactly the dtype: an unsigned array for a signless integer would be
    # reinterpreted silently (uint8 200 read as i8 -56).
    if array.dtype != sig.dtype:
        raise TypeError(f"argument #{i} of @{entry} must be {sig.describe()}, got dtype {array.dtype}")
    shape_ok = array.ndim == sig.rank and all(
        want is None or want == got for want, got in zip(sig.shape, array.shape)
    )
    if not shape_ok:
        raise ValueError(f"argument #{i} of @{entry} must be {sig.describe()}, got shape {list(array.shape)}")
    # (ascontiguousarray makes a 0-d array 1-d; one is contiguous already)
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def wrong_arity(entry: str, arguments: list[TensorSignature], count: int) -> TypeError:
    """The error of a call of @entry with `count` arguments."""
    return TypeError(
        f"@{entry} takes {len(arguments)} arguments ({', '.join(s.describe() for s in arguments)}), got {count}"
    )
