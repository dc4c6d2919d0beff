"""The gmx dialect: its IRDL definition, builder, inference and verifier."""

import pytest

from gmx.dialect import GatherShapeError, Gmx, gather_multiaxis, infer_result_type, make_context
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
