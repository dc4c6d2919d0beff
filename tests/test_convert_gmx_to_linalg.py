"""--convert-gmx-to-linalg emits folded IR: constants once per block, no
arithmetic on constants, for every strategy and mode (the lit test checks
what the IR does; this checks that it stays folded)."""

import pytest

from gmx.dialect import infer_result_type, make_context
from gmx.dialect.mlir import ir
from gmx.passes.lowering.convert_gmx_to_linalg import convert_gmx_to_linalg
from gmx.passes.lowering.gather_plan import ColumnTiles, Flagged, RowTiles, Whole, plan_gather

# (input type, indices type, axes, the strategy the plan picks when checked)
GATHERS = [
    pytest.param("tensor<4x3xf32>", "tensor<2x3xi64>", [0], Flagged(2), id="flagged"),
    pytest.param("tensor<64x64x32xf32>", "tensor<64x64x32xi64>", [1], Flagged(16), id="flagged-tiles"),
    pytest.param("tensor<4x3xf32>", "tensor<2x1xi32>", [0], Whole(), id="whole"),
    pytest.param("tensor<64x50x8xf32>", "tensor<64x1024x1xi64>", [1], RowTiles(32), id="row-tiles"),
    pytest.param("tensor<8x64x32xf32>", "tensor<4x1x2xi64>", [0, 2], ColumnTiles(1, 16, 8), id="column-tiles"),
    pytest.param("tensor<2x3x4xf16>", "tensor<2x1x4xi8>", [2, 0], Flagged(2), id="flagged-tuples"),
    pytest.param("tensor<4x5x6xf16>", "tensor<3x1x2xi8>", [2, 0], Whole(), id="whole-tuples"),
    pytest.param("tensor<?x?xf32>", "tensor<?x?xi64>", [1], Whole(), id="dynamic"),
    pytest.param("tensor<?x5x?xf32>", "tensor<3x1x?xi64>", [2, 0], Whole(), id="dynamic-tuples"),
    pytest.param("tensor<?x3xf32>", "tensor<4x3xi64>", [1], Whole(), id="dynamic-broadcast"),
    pytest.param("tensor<0x3xf32>", "tensor<2x3xi64>", [0], Flagged(2), id="empty-axis"),
    pytest.param("tensor<4x3xf32>", "tensor<4x1xi64>", [], Whole(), id="no-axes"),
]


def _lowered(input_type: str, indices_type: str, axes, checked: bool, mode: str = "raise") -> ir.Module:
    """A module of one function gathering `axes` in `mode`, after the pass."""
    result = infer_result_type(ir.Type.parse(input_type), ir.Type.parse(indices_type), axes)
    axes_attr = f"array<i64: {', '.join(map(str, axes))}>" if axes else "array<i64>"
    element = ir.RankedTensorType(ir.Type.parse(input_type)).element_type
    fill = f", fill_value = {'0.5' if isinstance(element, ir.FloatType) else '3'} : {element}" if mode == "fill" else ""
    axes_attr += f', mode = "{mode}"{fill}'
    module = ir.Module.parse(
        f"""func.func @main(%x: {input_type}, %i: {indices_type}) -> {result} {{
          %0 = "gmx.gather_multiaxis"(%x, %i) {{axes = {axes_attr}}} : ({input_type}, {indices_type}) -> {result}
          return %0 : {result}
        }}"""
    )
    convert_gmx_to_linalg(module.operation, checked)
    assert module.operation.verify()
    return module


def _ops(module: ir.Module) -> list:
    ops = []

    def collect(op):
        ops.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return ops


def _is_constant(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name == "arith.constant"


def unfolded(module: ir.Module) -> list[str]:
    """What a folding builder should not have emitted: a second identical
    arith.constant in a block, an arith op of constants only."""
    found, seen = [], set()
    for op in _ops(module):
        if op.name == "arith.constant":
            key = (op.block, str(op.attributes["value"]))
            if key in seen:
                found.append(f"duplicate {op}")
            seen.add(key)
        elif op.name.startswith("arith.") and op.operands and all(_is_constant(v) for v in op.operands):
            found.append(f"constant arithmetic {op}")
    return found


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip", "fill"])
@pytest.mark.parametrize("checked", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("input_type, indices_type, axes, strategy", GATHERS)
def test_emitted_ir_is_folded(input_type, indices_type, axes, strategy, checked, mode):
    with make_context(), ir.Location.unknown():
        shapes = [ir.RankedTensorType(ir.Type.parse(t)).shape for t in (input_type, indices_type)]
        shapes = [[None if ir.ShapedType.is_dynamic_size(n) else n for n in s] for s in shapes]
        if mode == "raise":
            assert plan_gather(*shapes, axes).strategy == strategy  # every strategy is covered
        else:  # no index is an error: nothing to scan or flag, column tiles stay (but in fill)
            expected = strategy if isinstance(strategy, ColumnTiles) and mode != "fill" else Whole()
            assert plan_gather(*shapes, axes, mode=mode).strategy == expected
        module = _lowered(input_type, indices_type, axes, checked, mode)
        assert "gmx.gather_multiaxis" not in str(module)
        assert unfolded(module) == []
        if mode != "raise":
            assert "gmx_index_error" not in str(module).split("func.func @main")[1]


def test_unfolded_finds_what_it_looks_for():
    """The check above can fail: hand-written unfolded IR is caught."""
    with make_context():
        module = ir.Module.parse(
            """func.func @f() -> index {
              %c2 = arith.constant 2 : index
              %c2_1 = arith.constant 2 : index
              %0 = arith.divui %c2, %c2_1 : index
              return %0 : index
            }"""
        )
        assert [line.split()[0] for line in unfolded(module)] == ["duplicate", "constant"]
