"""The semantics of integer ops, in numpy: the one home of what TOSA's
elementwise ops, arith's scalar and tensor integer ops and StableHLO's
mean on integers (`evaluate_op`, `combine`), torch-mlir's elementwise
`linalg.generic`s (its linalg-on-tensors spelling of tensor arithmetic)
included (`elementwise_generic`, `linear_generic`). `index_values`
evaluates index tensors with them.

Integers follow MLIR's signless two's-complement semantics: every result is
wrapped to its element type's width, `intdiv` truncates toward zero and an
integer cast truncates or sign-extends.
"""

from __future__ import annotations

import numpy as np

from gmx.dialect.mlir import ir

from ..views import defining_op, static_shape_of

# --- op -> numpy: the semantics of each integer op --------------------------------------------

_BINARY = {
    "tosa.add": np.add,
    "tosa.sub": np.subtract,
    "tosa.mul": np.multiply,  # its third operand is the shift, which must be 0
    "tosa.maximum": np.maximum,
    "tosa.minimum": np.minimum,
    "tosa.greater": np.greater,
    "tosa.greater_equal": np.greater_equal,
    "tosa.equal": np.equal,
    "tosa.logical_and": np.logical_and,
    "tosa.logical_or": np.logical_or,
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "stablehlo.add": np.add,
    "stablehlo.subtract": np.subtract,
    "stablehlo.multiply": np.multiply,
    "stablehlo.and": np.logical_and,
    "stablehlo.or": np.bitwise_or,
    "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum,
}
_UNARY = {
    "tosa.cast": lambda a: a,
    "tosa.logical_not": np.logical_not,
    "tosa.abs": np.abs,
    "arith.extsi": lambda a: a,  # signed casts: the wrap to the result's width truncates
    "arith.trunci": lambda a: a,
    "arith.index_cast": lambda a: a,
    "stablehlo.convert": lambda a: a,
    "stablehlo.not": lambda a: np.logical_not(a) if a.dtype == bool else np.invert(a),
}
_UNSIGNED_CASTS = ("arith.index_castui", "arith.extui")
_SELECTS = ("tosa.select", "arith.select", "stablehlo.select")
_DIVISIONS = ("tosa.intdiv", "arith.divsi", "arith.remsi", "arith.floordivsi", "stablehlo.remainder")
# arith.cmpi predicates (mlir::arith::CmpIPredicate)
_CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater, 5: np.greater_equal}
_UNSIGNED_CMPI = {6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}
# stablehlo.compare directions (signed)
_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}

# The scalar arith ops `evaluate_op` knows (what a linalg body may compute a position with).
ARITH_SCALAR_OPS = frozenset(
    {n for n in _BINARY if n.startswith("arith.")} | {n for n in _UNARY if n.startswith("arith.")}
    | set(_UNSIGNED_CASTS) | {"arith.cmpi", "arith.select", "arith.divsi", "arith.remsi", "arith.floordivsi"})


def integer_width(element_type) -> int | None:
    """Bit width of a signless integer (or index: 64) type, else None."""
    if isinstance(element_type, ir.IndexType):
        return 64
    if isinstance(element_type, ir.IntegerType) and element_type.is_signless:
        return element_type.width
    return None


def wrap_to_width(values: np.ndarray, width: int) -> np.ndarray:
    """Two's-complement wrap of int64 `values` to `width` bits (i1 -> bool),
    an array of the same shape (rank 0 included)."""
    values = np.asarray(values)
    if values.dtype == bool or width == 1:
        return values.astype(bool) if width == 1 else values.astype(np.int64)
    if width >= 64:
        return values.astype(np.int64)
    half = np.int64(1) << np.int64(width - 1)
    # asarray: arithmetic on a rank-0 array gives a numpy scalar
    return np.asarray(((values.astype(np.int64) + half) % (2 * half)) - half)


def element_width(value: ir.Value) -> int | None:
    return integer_width(ir.ShapedType(value.type).element_type)


def truncating_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed division rounding toward zero (tosa.intdiv, arith.divsi); by 0: any value."""
    quotient = np.abs(a) // np.where(b == 0, 1, np.abs(b))
    return np.where((a < 0) != (b < 0), -quotient, quotient)


def _unsigned(values: np.ndarray, width: int) -> np.ndarray:
    """Signless values read as unsigned integers of `width` bits."""
    values = np.asarray(values).astype(np.int64)
    return values.view(np.uint64) if width >= 64 else values & ((1 << width) - 1)


def _apply(name: str, args: list[np.ndarray], operand_width: int = 64, predicate=None) -> np.ndarray:
    """What op `name` computes from `args` (before the wrap to its result's width)."""
    if name in _UNARY:
        return _UNARY[name](args[0])
    if name in _UNSIGNED_CASTS:
        return _unsigned(args[0], operand_width)
    if name in _SELECTS:
        return np.where(args[0], args[1], args[2])
    if name in _DIVISIONS:
        divisor = np.where(args[1] == 0, 1, args[1])  # division by 0 is undefined: any value
        if name == "arith.floordivsi":
            return np.floor_divide(args[0], divisor)
        if name in ("arith.remsi", "stablehlo.remainder"):  # the dividend's sign, as C's %
            return np.fmod(args[0], divisor)
        return truncating_divide(args[0], divisor)
    if name == "arith.cmpi":
        if predicate in _CMPI:
            return _CMPI[predicate](args[0], args[1])
        return _UNSIGNED_CMPI[predicate](_unsigned(args[0], operand_width), _unsigned(args[1], operand_width))
    if name == "stablehlo.compare":
        return _COMPARE[predicate](args[0], args[1])
    return _BINARY[name](args[0], args[1])


def evaluate_op(name: str, args: list[np.ndarray], width: int, operand_width: int = 64, predicate=None) -> np.ndarray:
    """One TOSA, arith or StableHLO integer op on numpy arrays of values, its
    result wrapped to `width` bits (MLIR's signless two's complement;
    `operand_width`: its first operand's, for unsigned casts and compares;
    `predicate`: arith.cmpi's predicate number or stablehlo.compare's
    direction). NoMatch-free: the caller knows the op (`knows_op`)."""
    result = _apply(name, args, operand_width, predicate)
    if name == "arith.cmpi" or name == "stablehlo.compare":
        return result
    return wrap_to_width(result, width)


def knows_op(name: str, predicate=None) -> bool:
    """Whether `evaluate_op` knows op `name` (with that predicate)."""
    if name == "arith.cmpi":
        return predicate in _CMPI or predicate in _UNSIGNED_CMPI
    if name == "stablehlo.compare":
        return predicate in _COMPARE
    return name in _BINARY or name in _UNARY or name in _UNSIGNED_CASTS or name in _SELECTS or name in _DIVISIONS


def compare_direction(op) -> str | None:
    """A stablehlo.compare's direction (EQ, LT, ...), None for one that
    compares integers wider than i1 unsigned (read as signed, they differ)."""
    from gmx.dialect.mlir import stablehlo

    kind = op.attributes["compare_type"] if "compare_type" in op.attributes else None
    if kind is not None and stablehlo.ComparisonTypeAttr(kind).value == "UNSIGNED" and element_width(op.operands[0]) != 1:
        return None
    return stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value


def _predicate(op):
    return compare_direction(op) if op.name == "stablehlo.compare" else None


# --- elementwise linalg.generic: torch-mlir's linalg-on-tensors spelling of tensor arithmetic -----------

_PARALLEL = "#linalg.iterator_type<parallel>"


def elementwise_generic(op) -> bool:
    """Whether `op` is a `linalg.generic` computing integer tensor arithmetic
    elementwise, as torch-mlir's linalg-on-tensors spells `where(i < 0, i + n, i)`:
    one result, every indexing map the identity, every loop parallel, a body
    of arith scalar ops `evaluate_op` knows on the inputs' elements and
    scalar integer constants (defined in the body or in front of the
    generic), the output's element unread."""
    if op is None or op.name != "linalg.generic" or len(op.results) != 1:
        return False
    shape = static_shape_of(op.results[0])
    if shape is None or element_width(op.results[0]) is None:
        return False
    identity = ir.AffineMap.get_identity(len(shape))
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    if any(m != identity for m in maps) or any(str(t) != _PARALLEL for t in op.attributes["iterator_types"]):
        return False
    block = op.regions[0].blocks[0]
    inputs = len(op.opview.inputs)
    if len(list(block.arguments[inputs].uses)):
        return False
    for inner in block.operations:
        if inner.name == "linalg.yield":
            continue
        if inner.name != "arith.constant" and not (inner.name in ARITH_SCALAR_OPS
                                                   and knows_op(inner.name, _cmpi_predicate(inner))):
            return False
        for operand in inner.operands:
            owner = defining_op(operand)
            inside = operand.owner == block if owner is None else owner.block == block
            if not inside and _scalar_integer(operand) is None:
                return False
    return True


def _cmpi_predicate(op):
    return ir.IntegerAttr(op.attributes["predicate"]).value if op.name == "arith.cmpi" else None


def _scalar_integer(value: ir.Value) -> int | None:
    """The value of a scalar integer `arith.constant`, else None."""
    owner = defining_op(value)
    if owner is None or owner.name != "arith.constant" or not isinstance(owner.attributes["value"], ir.IntegerAttr):
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def _generic_value(op, args: list[np.ndarray]) -> np.ndarray:
    """What an `elementwise_generic` computes from its inputs' values `args`."""
    block = op.regions[0].blocks[0]
    known = {block.arguments[k]: np.asarray(a) for k, a in enumerate(args)}

    def read(value):
        return known[value] if value in known else np.int64(_scalar_integer(value))

    for inner in block.operations:
        if inner.name == "linalg.yield":
            return read(inner.operands[0])
        if inner.name == "arith.constant":
            known[inner.results[0]] = np.int64(_scalar_integer(inner.results[0]))
            continue
        operand_width = integer_width(inner.operands[0].type) or 64
        known[inner.results[0]] = evaluate_op(inner.name, [read(v) for v in inner.operands],
                                              integer_width(inner.results[0].type), operand_width,
                                              _cmpi_predicate(inner))
    raise AssertionError("a linalg.generic body without its yield")


def linear_generic(op) -> list[int] | None:
    """The coefficients `c` of an `elementwise_generic` computing
    `sum(c[k] * input[k])` (its body only `arith.addi` and `arith.muli` by a
    scalar constant: torch-mlir's linearisation `c0 * 5 + c1`, ONNX
    ScatterND's flat index), else None."""
    if not elementwise_generic(op):
        return None
    block = op.regions[0].blocks[0]
    for inner in block.operations:
        if inner.name in ("linalg.yield", "arith.addi"):
            continue
        if inner.name != "arith.muli" or all(_scalar_integer(v) is None for v in inner.operands):
            return None
    inputs = len(op.opview.inputs)
    if _generic_value(op, [np.int64(0)] * inputs) != 0:
        return None
    return [int(_generic_value(op, [np.int64(int(k == j)) for k in range(inputs)])) for j in range(inputs)]


def combine(op, args: list[np.ndarray]) -> np.ndarray:
    """What elementwise `op` computes from its operands' values (before the wrap to its width)."""
    if op.name == "linalg.generic":
        return _generic_value(op, args)
    return _apply(op.name, args, predicate=_predicate(op))
