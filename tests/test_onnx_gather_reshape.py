"""ONNX Gather followed by a Reshape that merges the gathered dim, through
torch-mlir's ONNX importer and `--gmx-canonicalize`.

`Reshape(batch, -1)` after a Gather folds into the gmx output first; raising
the linear index then refines that merged output space back. Before, the
linear terms kept the merged space's shape and the pattern threw (`cannot
reshape array of size 48 into shape (1,1,24)`). Each model must raise to one
gmx op with no linearisation left (strict mode, set by conftest, makes a
pattern's failure an error) and run exactly as ONNX's reference evaluator,
fused and unfused. The PyTorch spellings are in `torch_corpus` (`merge_*`).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import gmx.runtime
from gmx.dialect import OP_NAME
from gmx.tools.experiments.frontends import ONNX_OPSET, onnx_to_tosa
from gmx.tools.experiments.pipelines import run_pipeline
from torch_corpus import assert_bitwise_equal

RAISINGS = (["gmx-canonicalize"], ["tosa-to-tensor", "gmx-canonicalize"])
LINEARISATION = ("tosa.gather", "tosa.reduce_sum", "tosa.concat", "tosa.tile", "tosa.mul", "tensor.insert_slice")

# name: (data shape, index shape, axis, reshape target; None: (batch, -1)
# computed by a Shape -> Gather -> Concat subgraph, as exporters write it)
MODELS = {
    "batch_minus_one": ((2, 10, 8), (3,), 1, (2, -1)),
    "merge_before": ((2, 10, 8), (3,), 1, (6, 8)),
    "flat": ((2, 10, 8), (3,), 1, (-1,)),
    "index_2d": ((2, 10, 8), (3, 2), 1, (2, -1)),
    "shape_subgraph": ((2, 10, 8), (3,), 1, None),
}


def _model(data_shape, index_shape, axis, target):
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("Gather", ["x", "i"], ["g"], axis=axis)]
    initializers = []
    if target is None:  # (x.shape[0], -1)
        initializers += [numpy_helper.from_array(np.array(0, np.int64), "zero"),
                         numpy_helper.from_array(np.array([-1], np.int64), "rest")]
        nodes += [helper.make_node("Shape", ["x"], ["shape"]),
                  helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
                  helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"]),
                  helper.make_node("Concat", ["batch1", "rest"], ["target"], axis=0)]
        initializers.append(numpy_helper.from_array(np.array([0], np.int64), "axes"))
    else:
        initializers.append(numpy_helper.from_array(np.array(target, np.int64), "target"))
    nodes.append(helper.make_node("Reshape", ["g", "target"], ["out"]))
    gathered = data_shape[:axis] + index_shape + data_shape[axis + 1:]
    out_shape = np.empty(gathered, np.int8).reshape(target or (data_shape[0], -1)).shape
    graph = helper.make_graph(
        nodes, "main",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(data_shape)),
         helper.make_tensor_value_info("i", TensorProto.INT64, list(index_shape))],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, list(out_shape))],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", ONNX_OPSET)])


@functools.lru_cache(maxsize=None)
def _case(name: str):
    """(TOSA text, inputs, ONNX's expected output)."""
    from onnx.reference import ReferenceEvaluator

    data_shape, index_shape, axis, target = MODELS[name]
    model = _model(data_shape, index_shape, axis, target)
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(data_shape).astype(np.float32)
    size = data_shape[axis]
    i = rng.integers(-size, size, index_shape).astype(np.int64)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x, "i": i})
    return onnx_to_tosa(model), (x, i), expected


@pytest.mark.parametrize("raising", RAISINGS, ids=",".join)
@pytest.mark.parametrize("name", MODELS)
def test_gather_then_reshape_raises_to_one_gmx_op(name, raising):
    tosa, inputs, expected = _case(name)
    fused = run_pipeline(tosa, raising)
    left = {op: count for op, count in fused.counts.items() if op in LINEARISATION}
    assert (fused.counts[OP_NAME], left) == (1, {}), fused.text
    assert_bitwise_equal(gmx.runtime.run(fused.text, *inputs), (expected,), name)


def test_gather_then_reshape_runs_unfused():
    tosa, inputs, expected = _case("batch_minus_one")
    assert run_pipeline(tosa, []).counts["tosa.gather"] == 1
    assert_bitwise_equal(gmx.runtime.run(tosa, *inputs), (expected,), "unfused")
