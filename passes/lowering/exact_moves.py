"""Half-precision values that are only moved are moved as integers.

IR in and out: the LLVM dialect, at the end of `--gmx-lower-to-llvm`.

    %v = llvm.load %p : !llvm.ptr -> bf16
    llvm.store %v, %q : bf16, !llvm.ptr
becomes
    %v = llvm.load %p : !llvm.ptr -> i16
    llvm.store %v, %q : i16, !llvm.ptr

A gather copies its elements and must keep every bit. LLVM's x86 backend
keeps `bf16` and `f16` scalars in f32 registers: a load extends, a store
rounds back, and with AVX512-BF16 that rounding (`vcvtneps2bf16`) flushes
subnormals to zero and quiets NaNs, so a plain scalar bf16 copy loses
values (found by the fuzz test: 4.1e-39 came back as 0). An integer of the
same width is copied as it is. Only loads whose every use is the value of
a store change (a load feeding arithmetic keeps its type); vectors of
halves become vectors of i16.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

_HALF_TYPES = ("bf16", "f16")


def _integer_of_same_width(t: ir.Type) -> ir.Type | None:
    """i16 for a half, vector<Nxi16> for a vector of halves, else None."""
    i16 = ir.IntegerType.get_signless(16)
    if str(t) in _HALF_TYPES:
        return i16
    if isinstance(t, ir.VectorType) and str(t.element_type) in _HALF_TYPES:
        return ir.VectorType.get(t.shape, i16)
    return None


def _only_stored(value: ir.Value) -> bool:
    """Every use of `value` is as the stored value (operand 0) of an llvm.store."""
    uses = list(value.uses)
    return bool(uses) and all(u.owner.name == "llvm.store" and u.operand_number == 0 for u in uses)


def move_halves_as_integers(module) -> None:
    """Retype each half-precision `llvm.load` that is only stored (see the
    module docstring)."""
    loads = []

    def collect(op):
        if op.name == "llvm.load" and _integer_of_same_width(op.results[0].type) is not None:
            loads.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)
    for op in loads:
        value = op.results[0]
        if _only_stored(value):
            value.set_type(_integer_of_same_width(value.type))
