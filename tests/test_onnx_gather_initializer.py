"""ONNX gathers on an initializer (a frozen weight), through torch-mlir's ONNX
importer and `--gmx-canonicalize`.

The importer folds the flattening reshape of the data into the constant
(`tosa.const` of shape 1xNxC), so there is no reshape to look through; the
linearisation's strides still say which dims the coordinates address.
Each model must raise to one gmx op with no linearisation left, gathering
from a constant of the initializer's shape (unit dims the gmx layout needs
aside), and run exactly as ONNX's reference evaluator.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

import gmx.runtime
from gmx.dialect import OP_NAME
from gmx.tools.experiments.frontends import ONNX_OPSET, onnx_to_tosa
from gmx.tools.experiments.pipelines import run_pipeline
from torch_corpus import assert_bitwise_equal

RAISINGS = (["gmx-canonicalize"], ["tosa-to-tensor", "gmx-canonicalize"])
LINEARISATION = ("tosa.gather", "tosa.reduce_sum", "tosa.concat", "tosa.tile", "tosa.mul", "tensor.insert_slice")

# name: (op, weight shape, index shape, axis, the gmx op's constant input shape)
MODELS = {
    "gather_rows": ("Gather", (5, 4), (3,), 0, (5, 4)),
    "gather_rows_index_2d": ("Gather", (5, 4), (3, 2), 0, (1, 5, 4)),
    "gather_cols": ("Gather", (5, 4), (3, 2), 1, (5, 1, 4)),
    "gather_mid": ("Gather", (2, 5, 4), (3,), 1, (2, 5, 4)),
    "gather_1d": ("Gather", (6,), (3,), 0, (6,)),
    "gather_elements": ("GatherElements", (4, 5), (4, 3), 1, (4, 5)),
}


def _model(op_type, weight_shape, index_shape, axis):
    from onnx import TensorProto, helper, numpy_helper

    weight = np.arange(np.prod(weight_shape), dtype=np.float32).reshape(weight_shape) / 4
    if op_type == "Gather":
        out = weight_shape[:axis] + index_shape + weight_shape[axis + 1:]
    else:
        out = index_shape
    graph = helper.make_graph(
        [helper.make_node(op_type, ["w", "i"], ["out"], axis=axis)], "main",
        [helper.make_tensor_value_info("i", TensorProto.INT64, list(index_shape))],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, list(out))],
        [numpy_helper.from_array(weight, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)])


@functools.lru_cache(maxsize=None)
def _case(name: str):
    """(TOSA text, index, ONNX's expected output)."""
    from onnx.reference import ReferenceEvaluator

    op_type, weight_shape, index_shape, axis, _ = MODELS[name]
    model = _model(op_type, weight_shape, index_shape, axis)
    size = weight_shape[axis]
    i = np.random.default_rng(len(name)).integers(-size, size, index_shape).astype(np.int64)
    (expected,) = ReferenceEvaluator(model).run(None, {"i": i})
    return onnx_to_tosa(model), i, expected


def _gathered_constant_shape(text: str) -> tuple[int, ...]:
    """The shape of the gmx op's input, which must be a constant's result."""
    (gather,) = re.findall(r'= "gmx.gather_multiaxis"\((%\w+), [^)]*\) {[^}]*} : \(tensor<([0-9x]+)xf32>', text)
    name, shape = gather
    assert re.search(rf'{name} = (arith.constant|"tosa.const"\(\))', text), f"the gmx input {name} is no constant"
    return tuple(int(s) for s in shape.split("x"))


@pytest.mark.parametrize("raising", RAISINGS, ids=",".join)
@pytest.mark.parametrize("name", MODELS)
def test_gather_on_initializer_reads_the_constant_in_its_shape(name, raising):
    tosa, i, expected = _case(name)
    fused = run_pipeline(tosa, raising)
    left = {op: count for op, count in fused.counts.items() if op in LINEARISATION}
    assert (fused.counts[OP_NAME], left) == (1, {}), fused.text
    assert _gathered_constant_shape(fused.text) == MODELS[name][4], fused.text
    assert_bitwise_equal(gmx.runtime.run(fused.text, i), (expected,), name)


def test_gather_on_initializer_runs_unfused():
    tosa, i, expected = _case("gather_rows")
    assert run_pipeline(tosa, []).counts["tosa.gather"] == 1
    assert_bitwise_equal(gmx.runtime.run(tosa, i), (expected,), "unfused")
