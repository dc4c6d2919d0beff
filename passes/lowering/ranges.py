"""Integer ranges of index values, as far as a few ops prove them: what
--gmx-check-linalg-extracts and --gmx-check-slices need to leave a
position unchecked (`unproven_dims`).

`Range` is a closed interval of Python ints (no overflow); the rules
(`Range.add`, `.mul`, ...) are pure and tested without IR. `value_range`
reads them off the IR: constants, `linalg.index d` of a loop of known
size, the induction variable of an `scf.for` of constant bounds, casts,
`addi`/`subi`/`muli`, `select`, `min`/`max`, `remui`/`remsi` and
`divui`/`divsi` by a positive constant. Anything else (the data) may be
any value of its type (`full`), so that min/max with a constant bound it
on one side (a clamp proves both).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gmx.dialect.mlir import ir

INDEX_BITS = 64


def _width(t: ir.Type) -> int:
    return INDEX_BITS if isinstance(t, ir.IndexType) else ir.IntegerType(t).width


@dataclass(frozen=True)
class Range:
    """The values lo..hi (both included)."""

    lo: int
    hi: int

    def within(self, size: int) -> bool:
        """Every value is an index into a dim of `size`."""
        return 0 <= self.lo and self.hi < size

    def fits(self, bits: int) -> bool:
        """Every value is a signed integer of `bits` bits (no op wrapped)."""
        return -(1 << (bits - 1)) <= self.lo and self.hi < (1 << (bits - 1))

    def add(self, other: Range) -> Range:
        return Range(self.lo + other.lo, self.hi + other.hi)

    def sub(self, other: Range) -> Range:
        return Range(self.lo - other.hi, self.hi - other.lo)

    def mul(self, other: Range) -> Range:
        corners = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Range(min(corners), max(corners))

    def union(self, other: Range) -> Range:
        return Range(min(self.lo, other.lo), max(self.hi, other.hi))

    def min(self, other: Range) -> Range:
        return Range(min(self.lo, other.lo), min(self.hi, other.hi))

    def max(self, other: Range) -> Range:
        return Range(max(self.lo, other.lo), max(self.hi, other.hi))

    def rem(self, divisor: Range, signed: bool) -> Range | None:
        """x % k for a constant k > 0: 0..k-1 (signed: -(k-1)..k-1 unless x >= 0;
        unsigned, a negative x is a large one)."""
        if divisor.lo != divisor.hi or divisor.lo <= 0:
            return None
        k = divisor.lo
        if self.lo >= 0:
            return Range(0, min(self.hi, k - 1))
        return Range(-(k - 1), k - 1) if signed else Range(0, k - 1)

    def div(self, divisor: Range) -> Range | None:
        """x / k (rounded toward zero) for a constant k > 0, x >= 0."""
        if divisor.lo != divisor.hi or divisor.lo <= 0 or self.lo < 0:
            return None
        return Range(self.lo // divisor.lo, self.hi // divisor.lo)


def _binary(rule: Callable[[Range, Range], Range | None]):
    """A rule of two operands' ranges as one of a list."""
    return lambda ranges: rule(*ranges)


# op name: the rule from its operands' ranges (all must be known).
RULES: dict[str, Callable[[list[Range]], Range | None]] = {
    "arith.addi": _binary(Range.add),
    "arith.subi": _binary(Range.sub),
    "arith.muli": _binary(Range.mul),
    "arith.minsi": _binary(Range.min),
    "arith.maxsi": _binary(Range.max),
    "arith.remsi": _binary(lambda a, b: a.rem(b, signed=True)),
    "arith.remui": _binary(lambda a, b: a.rem(b, signed=False)),
    "arith.divsi": _binary(Range.div),
    "arith.divui": _binary(Range.div),
    "arith.floordivsi": _binary(Range.div),
    "arith.index_cast": lambda r: r[0],  # index is 64 bits: a cast to a narrower type wraps (fits, below)
    "arith.index_castui": lambda r: r[0] if r[0].lo >= 0 else None,
    "arith.extsi": lambda r: r[0],
    "arith.extui": lambda r: r[0] if r[0].lo >= 0 else None,
}


def full(bits: int) -> Range:
    """Every signed integer of `bits` bits: nothing proven."""
    return Range(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def value_range(value: ir.Value, loop_size: Callable[[ir.Operation, int], int | None], depth: int = 24) -> Range:
    """The range `value` (an integer or index) is proven to lie in (`full`
    when nothing is proven). `loop_size(op, d)` is the static size of loop
    `d` of the linalg op `op` (None: unknown)."""
    bits = _width(value.type)
    found = None if depth == 0 else _proven(value, loop_size, depth)
    return found if found is not None and found.fits(bits) else full(bits)


def no_loops(op: ir.Operation, d: int) -> int | None:
    """`loop_size` outside linalg bodies: no loop of known size."""
    return None


def unproven_dims(indices: list[ir.Value], shape: list[int], loop_size=no_loops) -> list[int]:
    """The dims of an element's position (`indices` into a tensor or memref
    of `shape`) whose range is not proven inside the dim: a dynamic dim's
    never is."""
    return [d for d, (i, n) in enumerate(zip(indices, shape))
            if ir.ShapedType.is_dynamic_size(n) or not value_range(i, loop_size).within(n)]


def _proven(value: ir.Value, loop_size, depth: int) -> Range | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _block_argument_range(value, owner, loop_size, depth)
    name = owner.name
    if name == "arith.constant":
        attr = owner.attributes["value"]
        return Range(ir.IntegerAttr(attr).value, ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
    if name == "linalg.index":
        size = loop_size(owner.parent, ir.IntegerAttr(owner.attributes["dim"]).value)
        return None if size is None or size <= 0 else Range(0, size - 1)
    if name == "arith.select":
        a, b = (value_range(v, loop_size, depth - 1) for v in list(owner.operands)[1:])
        return a.union(b)
    if name not in RULES:
        return None
    return RULES[name]([value_range(v, loop_size, depth - 1) for v in owner.operands])


def _block_argument_range(value, block: ir.Block, loop_size, depth: int) -> Range | None:
    """An scf.for's induction variable: lb..ub-1 for a positive step."""
    parent = block.owner
    if parent is None or parent.name != "scf.for" or value.arg_number != 0:
        return None
    lower, upper, step = (value_range(v, loop_size, depth - 1) for v in list(parent.operands)[:3])
    if step.lo <= 0 or upper.hi <= lower.lo:
        return None
    return Range(lower.lo, upper.hi - 1)
