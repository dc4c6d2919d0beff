"""`--gmx-lower-tosa-negate`: every integer `tosa.negate` whose zero points
are 0 becomes a subtraction from 0, before upstream's tosa-to-linalg sees it.

This build's tosa-to-linalg lowers an integer negate through a wider
intermediate it sizes from the element type's maximum plus one; for 64 bits
that sum overflows and it emits `arith.extsi i64 to i16`, which does not
verify (every `-x` torch-mlir exports on an int64 tensor). For narrower
types it negates saturating (`-(-128) = 127` on i8), where torch, numpy and
upstream's newer lowering wrap (`-(-128) = -128`). With zero points of 0,
negation is plain two's complement subtraction at every width, which
tosa.sub lowers to (`arith.subi`):

    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %r = tosa.negate %x, %zp, %zp : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>

becomes

    %zero = "tosa.const"() <{values = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %r = tosa.sub %zero, %x : (tensor<1xi64>, tensor<4xi64>) -> tensor<4xi64>

(`%zero` has the rank of `%x`, all dims 1: tosa.sub broadcasts it.) TOSA
requires zero points of 0 for every integer type but i8, so a negate of
another width is that subtraction whatever its zero point operands are
(constants or not). Left alone: float negates, and i8 negates whose zero
points are not known to be 0 (quantized TOSA, which upstream lowers as TOSA
defines).
"""

from __future__ import annotations

from gmx.dialect.mlir import ir, tosa

from ..registry import PassInfo, add_python_pass
from ..views import defining_op
from ..walking import ops_named

NEGATE = "tosa.negate"
# The one integer width with zero points (TOSA's quantized int8).
QUANTIZED_WIDTH = 8


def is_plain_negation(width: int, zero_points: list[int | None]) -> bool:
    """Whether an integer negate of `width` bits with these zero points
    (None: not a constant) is `0 - x`."""
    return width != QUANTIZED_WIDTH or all(v == 0 for v in zero_points)


def _constant_value(value: ir.Value) -> int | None:
    """The value of a splat integer tosa.const, else None."""
    op = defining_op(value)
    if op is None or op.name != "tosa.const":
        return None
    attr = op.attributes["values"]
    if not isinstance(attr, ir.DenseIntElementsAttr) or not attr.is_splat:
        return None
    return ir.IntegerAttr(attr.get_splat_value()).value


def _integer_negate(op) -> tuple[ir.RankedTensorType, ir.IntegerType] | None:
    t = op.operands[0].type
    if not isinstance(t, ir.RankedTensorType) or not isinstance(t.element_type, ir.IntegerType):
        return None
    return t, ir.IntegerType(t.element_type)


def negate_as_subtraction(op) -> bool:
    """tosa.negate(x, 0, 0) on integers -> tosa.sub(0, x) (module
    docstring); False, nothing changed, for any other negate."""
    found = _integer_negate(op)
    if found is None:
        return False
    t, element = found
    if not is_plain_negation(element.width, [_constant_value(v) for v in op.operands[1:3]]):
        return False
    with ir.InsertionPoint(op), op.location:
        zeros = ir.RankedTensorType.get([1] * t.rank, element)
        zero = tosa.ConstOp(ir.DenseElementsAttr.get_splat(zeros, ir.IntegerAttr.get(element, 0)))
        difference = tosa.SubOp(op.results[0].type, zero.result, op.operands[0])
    op.results[0].replace_all_uses_with(difference.result)
    zero_points = {defining_op(v) for v in op.operands[1:3]} - {None}
    op.erase()
    for constant in zero_points:  # left unused: as a rewrite driver would, erase them
        if not list(constant.results[0].uses):
            constant.erase()
    return True


def lower_tosa_negate(module) -> None:
    """Rewrite every plain integer negate (module docstring)."""
    for op in ops_named(module, NEGATE):
        negate_as_subtraction(op)


PASS = PassInfo(
    argument="gmx-lower-tosa-negate",
    description="Integer tosa.negate (zero points 0) as tosa.sub from 0: two's complement at every width, "
    "before tosa-to-linalg",
    build=lambda pm, options: add_python_pass(pm, lower_tosa_negate, PASS),
)
