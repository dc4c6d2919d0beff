"""`--gmx-lower-stablehlo-sort`: every `stablehlo.sort` becomes torch-mlir's
`tm_tensor.sort` (which `--gmx-bufferize-tm-tensor` and `tm-tensor-to-loops`
lower), its comparator on scalars. Upstream has no lowering of the sort
to linalg; JAX's argsort and top_k and torch-mlir's sort, argsort and topk
in StableHLO all use it.

    %r:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i64>, %d: tensor<i64>):
      %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<3x5xf32>, tensor<3x5xi64>) -> (tensor<3x5xf32>, tensor<3x5xi64>)

becomes

    %r:2 = tm_tensor.sort dimension(1) outs(%x, %i : tensor<3x5xf32>, tensor<3x5xi64>) {
    ^bb0(%a: f32, %b: f32, %c: i64, %d: i64):
      ...                                   // the comparator on (%b, %a, %d, %c)
      %keep = arith.xori %b_lt_a, %true : i1
      tm_tensor.yield %keep : i1
    } -> tensor<3x5xf32>, tensor<3x5xi64>

tm_tensor.sort's loops swap a neighbouring pair unless its comparator
holds for it; given "keep unless the right one is less than the left",
they swap only pairs out of order, so the sort is stable (StableHLO's
`is_stable`, which a sort with no ties cannot tell from unstable).

The comparator's ops become arith on scalars: `constant`, `compare` (every
direction; FLOAT as IEEE's ordered predicates, NE unordered; TOTALORDER on
the bits, -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN; SIGNED,
UNSIGNED), `select`, `and`, `or`, `xor`, `not`. Any other op is a located
error naming it. tm-tensor-to-loops sorts each row in quadratic time: fine
for top-k over tens or hundreds, slow for a vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable

from gmx.dialect.mlir import arith, ir

from ..registry import PassInfo, Refused, add_python_pass
from ..views import defining_op
from ..walking import ops_named

SORT = "stablehlo.sort"
TM_SORT = "tm_tensor.sort"

_FLOAT = {"EQ": "OEQ", "NE": "UNE", "LT": "OLT", "LE": "OLE", "GT": "OGT", "GE": "OGE"}
_SIGNED = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
_UNSIGNED = {"EQ": "eq", "NE": "ne", "LT": "ult", "LE": "ule", "GT": "ugt", "GE": "uge"}


def enum_word(attr: ir.Attribute) -> str:
    """`LT` for `#stablehlo<comparison_direction LT>`."""
    return str(attr).rstrip(">").split()[-1]


def compare_kind(compare_type: str | None, element: ir.Type) -> str:
    """FLOAT, TOTALORDER, SIGNED or UNSIGNED: the compare's own type, or
    (NOTYPE, absent) the one its element type implies."""
    if compare_type not in (None, "NOTYPE"):
        return compare_type
    if isinstance(element, ir.FloatType):
        return "FLOAT"
    return "UNSIGNED" if ir.IntegerType(element).width == 1 else "SIGNED"


def _total_order_key(x: ir.Value) -> ir.Value:
    """The float `x`'s bits as a signed integer ordered as IEEE's total
    order: negative values have their magnitude bits flipped."""
    width = ir.FloatType(x.type).width
    int_type = ir.IntegerType.get_signless(width)
    bits = arith.bitcast(int_type, x)
    sign = arith.shrsi(bits, arith.constant(int_type, width - 1))  # all ones if negative
    magnitude = arith.andi(sign, arith.constant(int_type, (1 << (width - 1)) - 1))
    return arith.xori(bits, magnitude)


def _compare(op, a: ir.Value, b: ir.Value) -> ir.Value:
    direction = enum_word(op.attributes["comparison_direction"])
    declared = enum_word(op.attributes["compare_type"]) if "compare_type" in op.attributes else None
    kind = compare_kind(declared, a.type)
    if kind == "FLOAT":
        return arith.cmpf(getattr(arith.CmpFPredicate, _FLOAT[direction]), a, b)
    if kind == "TOTALORDER":
        return arith.cmpi(getattr(arith.CmpIPredicate, _SIGNED[direction]), _total_order_key(a), _total_order_key(b))
    table = _SIGNED if kind == "SIGNED" else _UNSIGNED
    return arith.cmpi(getattr(arith.CmpIPredicate, table[direction]), a, b)


def _constant(op) -> ir.Value:
    attr = ir.DenseElementsAttr(op.attributes["value"])
    element = ir.RankedTensorType(op.results[0].type).element_type
    return arith.constant(element, attr.get_splat_value())


def _not(a: ir.Value) -> ir.Value:
    width = ir.IntegerType(a.type).width
    return arith.xori(a, arith.constant(a.type, -1 if width > 1 else 1))


# The comparator's ops: name -> builder of the scalar value from (op, operands).
_SCALAR: dict[str, Callable[..., ir.Value]] = {
    "stablehlo.constant": lambda op, _: _constant(op),
    "stablehlo.compare": lambda op, v: _compare(op, *v),
    "stablehlo.select": lambda op, v: arith.select(*v),
    "stablehlo.and": lambda op, v: arith.andi(*v),
    "stablehlo.or": lambda op, v: arith.ori(*v),
    "stablehlo.xor": lambda op, v: arith.xori(*v),
    "stablehlo.not": lambda op, v: _not(*v),
}


def _scalar_comparator(comparator: ir.Block, arguments: list[ir.Value]) -> ir.Value | ir.Operation:
    """Build `comparator` on scalars at the insertion point, its block
    arguments bound to `arguments`: its returned i1, or the first op it has
    no scalar lowering for."""
    # (comparator value, scalar) pairs: Values compare equal, but a
    # result and the same value as an operand do not hash alike.
    values = list(zip(comparator.arguments, arguments))

    def scalar(v: ir.Value) -> ir.Value | ir.Operation:
        found = next((s for c, s in values if c == v), None)
        if found is not None:
            return found
        # Defined above the comparator: a constant hoisted by a greedy rewrite.
        op = defining_op(v)
        if op is None or op.name != "stablehlo.constant":
            return op or comparator.owner.operation
        values.append((v, _constant(op)))
        return values[-1][1]

    for op in comparator.operations:
        if op.name == "stablehlo.return":
            return scalar(op.operands[0])
        build = _SCALAR.get(op.name)
        operands = [scalar(v) for v in op.operands]
        unsupported = next((o for o in operands if isinstance(o, ir.Operation)), None)
        if build is None or unsupported is not None:
            return unsupported or op.operation
        with op.location:
            values.append((op.results[0], build(op, operands)))
    return comparator.owner.operation


def _element(t: ir.Type) -> ir.Type:
    return ir.ShapedType(t).element_type


def sort_as_tm_tensor(op) -> ir.Operation | None:
    """Replace the stablehlo.sort `op` by a tm_tensor.sort (module
    docstring); None, or the comparator op it has no lowering for (`op`
    then left as it was)."""
    operands = list(op.operands)
    elements = [_element(v.type) for v in operands]
    with ir.InsertionPoint(op), op.location:
        sort = ir.Operation.create(
            TM_SORT,
            results=[v.type for v in op.results],
            operands=operands,
            attributes={
                "dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ir.IntegerAttr(op.attributes["dimension"]).value),
                "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, len(operands)]),
            },
            regions=1,
        )
        block = sort.regions[0].blocks.append(*[t for e in elements for t in (e, e)])
        left, right = list(block.arguments)[0::2], list(block.arguments)[1::2]
        swapped = [v for pair in zip(right, left) for v in pair]  # (right, left) per operand
        with ir.InsertionPoint(block):
            right_less = _scalar_comparator(op.regions[0].blocks[0], swapped)
            if isinstance(right_less, ir.Operation):
                sort.erase()
                return right_less
            ir.Operation.create("tm_tensor.yield", operands=[_not(right_less)])
    for old, new in zip(op.results, sort.results):
        old.replace_all_uses_with(new)
    op.erase()
    return None


def lower_stablehlo_sort(module) -> None:
    """Every stablehlo.sort of `module` as a tm_tensor.sort; Refused,
    errors emitted, for each comparator that has an op left out."""
    failed = 0
    for op in ops_named(module, SORT):
        unsupported = sort_as_tm_tensor(op)
        if unsupported is not None:
            unsupported.location.emit_error(
                f"{unsupported.name} in a stablehlo.sort comparator has no lowering "
                f"(supported: {', '.join(sorted(_SCALAR))})"
            )
            failed += 1
    if failed:
        raise Refused(f"{failed} stablehlo.sort not lowered")


PASS = PassInfo(
    argument="gmx-lower-stablehlo-sort",
    description="stablehlo.sort as tm_tensor.sort (stable), its comparator on scalars",
    build=lambda pm, options: add_python_pass(pm, lower_stablehlo_sort, PASS),
)
