"""The gmx dialect: its IRDL definition, builder, inference and verifier."""

import pytest

from gmx.dialect import (
    GatherShapeError,
    Gmx,
    Mode,
    gather_multiaxis,
    infer_result_type,
    make_context,
    mode_kwargs,
    read_mode,
)
from gmx.dialect.mlir import func, ir


def test_irdl_definition():
    """The generated IRDL, printed once as upstream's ext.py test does."""
    with make_context():
        text = str(Gmx._mlir_module)
    assert 'irdl.dialect @gmx' in text
    assert 'irdl.operation @gather_multiaxis' in text
    assert 'irdl.operands(input: %0, indices: %1)' in text
    assert 'irdl.attributes {"axes" = %2}' in text
    assert 'irdl.results(output: %3)' in text


def test_op_is_pure():
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(
            """func.func @f(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
              %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
              return %x : tensor<4xf32>
            }"""
        )
        from gmx.dialect.mlir import passmanager

        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        assert "gmx.gather_multiaxis" not in str(module)  # dead and pure: erased


def _build(input_shape, indices_shape, axes, index_type=None):
    with make_context(), ir.Location.unknown():
        f32 = ir.F32Type.get()
        index_type = index_type or ir.IntegerType.get_signless(64)
        module = ir.Module.create()
        x_type = ir.RankedTensorType.get(input_shape, f32)
        i_type = ir.RankedTensorType.get(indices_shape, index_type)
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(x_type, i_type)
            def gather(x, i):
                return gather_multiaxis(x, i, axes)

        assert module.operation.verify()
        return str(module)


def test_builder_infers_result_type_permuted_axes():
    assert "-> tensor<3x5x1xf32>" in _build([4, 5, 6], [3, 1, 2], [2, 0])


def test_builder_infers_dynamic_result():
    dyn = ir.ShapedType.get_dynamic_size()
    assert "-> tensor<3x?xf32>" in _build([dyn, dyn], [3, dyn], [1])


def test_builder_rejects_invalid_operands():
    with pytest.raises(GatherShapeError, match="not broadcastable"):
        _build([4, 3], [2, 2], [0])


def test_infer_result_type_shape_example():
    with make_context(), ir.Location.unknown():
        f32, i64 = ir.F32Type.get(), ir.IntegerType.get_signless(64)
        x = ir.RankedTensorType.get([4, 2, 1, 2], f32)
        i = ir.RankedTensorType.get([1, 3, 2, 2], i64)
        assert str(infer_result_type(x, i, [1])) == "tensor<4x3x2x2xf32>"


# --- out-of-range modes (docs/semantics.md#out-of-range-modes) --------------------


def _build_mode(element_type, mode, fill_value=None):
    """The op `gather_multiaxis(x, i, [0], mode=..., fill_value=...)` builds,
    with `read_mode` of it; x is 4x3 of `element_type`, i is 2x1 i64."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        x_type = ir.RankedTensorType.get([4, 3], element_type())
        i_type = ir.RankedTensorType.get([2, 1], ir.IntegerType.get_signless(64))
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(x_type, i_type)
            def gather(x, i):
                return gather_multiaxis(x, i, [0], mode=mode, fill_value=fill_value)

        assert module.operation.verify()
        op = next(o for o in module.body.operations[0].regions[0].blocks[0].operations
                  if o.operation.name == "gmx.gather_multiaxis")
        return str(op), read_mode(op), mode_kwargs(op)


def _f32():
    return ir.F32Type.get()


def test_builder_default_and_raise_emit_no_mode():
    for mode in (None, "raise", Mode.RAISE):
        text, read, kwargs = _build_mode(_f32, mode)
        assert "mode" not in text and "fill_value" not in text
        assert read == (Mode.RAISE, None)
        assert kwargs == {"mode": Mode.RAISE, "fill_value": None}
    _, _, kwargs = _build_mode(_f32, "fill", -7.5)
    assert kwargs["mode"] is Mode.FILL and str(kwargs["fill_value"]) == "-7.500000e+00 : f32"


def test_builder_emits_wrap_and_clip():
    for mode in ("wrap", "clip"):
        text, read, _ = _build_mode(_f32, mode)
        assert f'mode = "{mode}"' in text
        assert read == (Mode(mode), None)


def test_builder_types_fill_value_with_element_type():
    text, read, _ = _build_mode(_f32, "fill", -7.5)
    assert 'fill_value = -7.500000e+00 : f32, mode = "fill"' in text
    assert read == (Mode.FILL, -7.5)
    text, read, _ = _build_mode(lambda: ir.IntegerType.get_signless(8), "fill", 255)
    assert "fill_value = -1 : i8" in text  # the unsigned spelling of the same bits
    assert read == (Mode.FILL, -1)
    text, read, _ = _build_mode(lambda: ir.IntegerType.get_signless(1), Mode.FILL, 1)
    assert "fill_value = true" in text and read == (Mode.FILL, True)


@pytest.mark.parametrize(
    "element_type, mode, fill_value, message",
    [
        (_f32, "modulo", None, "unknown mode 'modulo'; expected one of 'raise', 'wrap', 'clip', 'fill'"),
        (_f32, "fill", None, "mode 'fill' requires a fill_value"),
        (_f32, "clip", 0.0, "fill_value is only allowed with mode 'fill', got mode 'clip'"),
        (_f32, "fill", "nan", "fill_value must be a number for element type f32, got 'nan'"),
        (lambda: ir.IntegerType.get_signless(32), "fill", 0.5, "fill_value must be an integer for element type i32, got 0.5"),
        (lambda: ir.IntegerType.get_signless(8), "fill", 256, "fill_value 256 does not fit i8"),
        (lambda: ir.IntegerType.get_signless(1), "fill", 2, r"fill_value must be 0 or 1 \(false or true\) for i1, got 2"),
        (lambda: ir.ComplexType.get(ir.F32Type.get()), "fill", 0.0,
         r"mode 'fill' needs an integer or floating-point element type, got complex<f32>"),
    ],
)
def test_builder_rejects_bad_mode_or_fill_value(element_type, mode, fill_value, message):
    with pytest.raises(ValueError, match=message):
        _build_mode(element_type, mode, fill_value)


def test_builder_takes_a_fill_value_attribute_of_the_element_type():
    with make_context(), ir.Location.unknown():
        f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
        from gmx.dialect.gmx import fill_value_attr

        nan = ir.Attribute.parse("0x7FC00001 : f32")  # a NaN payload survives
        assert fill_value_attr(f32, nan) == nan
        with pytest.raises(ValueError, match="fill_value -1 : i32 is not a scalar of the element type f32"):
            fill_value_attr(f32, ir.IntegerAttr.get(i32, -1))
