"""Integer arithmetic folded while it is built, as upstream's `createOrFold`
and `OpFoldResult` do: what is known statically stays a Python int (or
bool), only what depends on run-time values becomes an `arith` op, and each
constant is emitted once per function.

    fold = Folder(Constants(Constants.entry_block(op)))
    n = fold.add(4, 4)                  # 8, nothing emitted
    ok = fold.cmp("ult", value, n)      # arith.cmpi ult, %value, %c8
    all_ok = fold.all_of([True, ok])    # ok, nothing emitted

A `Folded` is an int, a bool (an i1) or an `ir.Value`. A Python int takes the
type of the value it meets (the other operand), index when it meets none;
`Folder.value` materialises one as a constant of a given type.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from gmx.dialect.mlir import arith, ir

from ..views import defining_op

Folded = int | bool | ir.Value

_MASK = (1 << 64) - 1  # index and i64 are 64 bits wide on every target we run on
_PREDICATES: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "slt": operator.lt,
    "sge": operator.ge,
    "ult": lambda a, b: (a & _MASK) < (b & _MASK),
    "uge": lambda a, b: (a & _MASK) >= (b & _MASK),
    "ule": lambda a, b: (a & _MASK) <= (b & _MASK),
}


# The negation of each comparison, as canonicalize rewrites `xori(cmpi, true)`.
_NEGATED = {"eq": "ne", "slt": "sge", "sle": "sgt", "ult": "uge", "ule": "ugt"}
_NEGATED.update({b: a for a, b in _NEGATED.items()})


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def _same(a: Folded, b: Folded) -> bool:
    """Statically the same value (two equal ints, or one ir.Value)."""
    if isinstance(a, ir.Value) and isinstance(b, ir.Value):
        return a == b
    return not isinstance(a, ir.Value) and not isinstance(b, ir.Value) and a == b


class Constants:
    """One `arith.constant` per (value, type) at the top of the entry block of
    the nearest isolated-from-above op (a function): there it dominates every
    use in the function, gathers nested in loops or regions included."""

    def __init__(self, block: ir.Block):
        self._block = block
        self._values: dict[tuple, ir.Value] = {}  # by (int or attribute text, type)
        self._last: ir.Operation | None = None  # constants keep their creation order

    @staticmethod
    def entry_block(op) -> ir.Block:
        """The entry block of the function (isolated-from-above op) around `op`."""
        parent = op.operation.parent
        while not parent.has_trait(ir.IsIsolatedFromAboveTrait):
            parent = parent.parent
        return parent.regions[0].blocks[0]

    def get(self, value: int, type: ir.Type) -> ir.Value:
        """The constant `value : type`, emitted on first use."""
        return self._constant((int(value), type), lambda: arith.ConstantOp(type, int(value)))

    def attribute(self, attr: ir.Attribute) -> ir.Value:
        """The constant of a typed scalar attribute (a fill value), emitted on
        first use."""
        return self._constant((str(attr), attr.type), lambda: arith.ConstantOp(attr.type, attr))

    def _constant(self, key: tuple, build: Callable[[], ir.OpView]) -> ir.Value:
        if key not in self._values:
            with ir.InsertionPoint.at_block_begin(self._block):
                constant = build().operation
            if self._last is not None:
                constant.move_after(self._last)
            self._last = constant
            self._values[key] = constant.result
        return self._values[key]


class Folder:
    """Folding builders of the `arith` ops the lowering uses, at the current
    insertion point (constants go to `constants`)."""

    def __init__(self, constants: Constants):
        self.constants = constants

    # -- materialising -----------------------------------------------------------
    def value(self, x: Folded, type: ir.Type | None = None) -> ir.Value:
        """`x` as an ir.Value: a constant of `type` (i1 for a bool, index by
        default) if it is static."""
        if isinstance(x, ir.Value):
            return x
        if isinstance(x, bool):
            return self.constants.get(x, _i1())
        return self.constants.get(x, type or ir.IndexType.get())

    def index(self, x: Folded) -> ir.Value:
        return self.value(x, ir.IndexType.get())

    def _operands(self, a: Folded, b: Folded) -> tuple[ir.Value, ir.Value]:
        """Both as values, a static one typed like the other."""
        type = a.type if isinstance(a, ir.Value) else b.type if isinstance(b, ir.Value) else None
        return self.value(a, type), self.value(b, type)

    @staticmethod
    def _static(*xs: Folded) -> bool:
        return not any(isinstance(x, ir.Value) for x in xs)

    # -- arithmetic --------------------------------------------------------------
    def add(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return a + b
        if _same(b, 0):
            return a
        if _same(a, 0):
            return b
        return arith.addi(*self._operands(a, b))

    def mul(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return a * b
        if _same(b, 1):
            return a
        if _same(a, 1):
            return b
        return arith.muli(*self._operands(a, b))

    def divui(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return (a & _MASK) // (b & _MASK)
        if _same(b, 1):
            return a
        return arith.divui(*self._operands(a, b))

    def remui(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return (a & _MASK) % (b & _MASK)
        return arith.remui(*self._operands(a, b))

    def remsi(self, a: Folded, b: Folded) -> Folded:
        """Signed remainder (the dividend's sign, as C's %)."""
        if self._static(a, b):
            r = abs(a) % abs(b)
            return -r if a < 0 else r
        if _same(b, 1):
            return 0
        return arith.remsi(*self._operands(a, b))

    def andi(self, a: Folded, b: Folded) -> Folded:
        """Bitwise and of integers (not of i1 flags: `and_`)."""
        if self._static(a, b):
            return a & b
        return arith.andi(*self._operands(a, b))

    def maxsi(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return max(a, b)
        return arith.maxsi(*self._operands(a, b))

    def minsi(self, a: Folded, b: Folded) -> Folded:
        if self._static(a, b):
            return min(a, b)
        return arith.minsi(*self._operands(a, b))

    def cmp(self, predicate: str, a: Folded, b: Folded) -> Folded:
        """arith.cmpi `predicate` (eq, ne, slt, ult, uge): a bool if static."""
        if self._static(a, b):
            return _PREDICATES[predicate](a, b)
        if _same(a, b):
            return _PREDICATES[predicate](0, 0)
        if predicate in ("eq", "ne") and self._static(a):
            a, b = b, a  # the constant on the right, as canonicalize puts it
        return arith.cmpi(getattr(arith.CmpIPredicate, predicate), *self._operands(a, b))

    def select(self, condition: Folded, a: Folded, b: Folded, type: ir.Type | None = None) -> Folded:
        """`condition ? a : b`; static ints become constants of `type`
        (default: that of the other arm, else index)."""
        if self._static(condition):
            return a if condition else b
        if _same(a, b):
            return a
        if type is not None:
            a, b = self.value(a, type), self.value(b, type)
        return arith.select(condition, *self._operands(a, b))

    # -- i1 ------------------------------------------------------------------------
    def and_(self, a: Folded, b: Folded) -> Folded:
        if self._static(a):
            return b if a else False
        if self._static(b):
            return a if b else False
        return arith.andi(a, b)

    def or_(self, a: Folded, b: Folded) -> Folded:
        if self._static(a):
            return True if a else b
        if self._static(b):
            return True if b else a
        return arith.ori(a, b)

    def not_(self, a: Folded) -> Folded:
        """`!a`: the negated comparison when `a` is a cmpi, else xori with true."""
        if self._static(a):
            return not a
        cmp = defining_op(a)
        if cmp is not None and cmp.name == "arith.cmpi":
            predicate = arith.CmpIPredicate(ir.IntegerAttr(cmp.attributes["predicate"]).value)
            negated = getattr(arith.CmpIPredicate, _NEGATED[predicate.name])
            return arith.cmpi(negated, *cmp.operands)
        return arith.xori(a, self.value(True))

    def all_of(self, flags: Sequence[Folded]) -> Folded:
        result: Folded = True
        for flag in flags:
            result = self.and_(result, flag)
        return result

    def any_of(self, flags: Sequence[Folded]) -> Folded:
        result: Folded = False
        for flag in flags:
            result = self.or_(result, flag)
        return result

    # -- conversions ---------------------------------------------------------------
    def to_i64(self, x: Folded) -> Folded:
        """An index or integer as i64 (a static one stays an int)."""
        if self._static(x):
            return int(x)
        i64 = ir.IntegerType.get_signless(64)
        if isinstance(x.type, ir.IndexType):
            return arith.index_cast(i64, x)
        if ir.IntegerType(x.type).width < 64:
            return arith.extsi(i64, x)
        return x
