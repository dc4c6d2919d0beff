"""Scalar indices, size-1 dims and empty tensors through every pass and a run.

A rank-0 index tensor (ONNX Gather with a scalar index; `index_select` with
a 0-d tensor is in `torch_corpus`) and dims of size 0 or 1 must go through
`--gmx-canonicalize`, `--convert-gmx-to-linalg`, `--gmx-lower-to-llvm` and
gmx.runtime, exact against ONNX's reference evaluator or the numpy
reference. torch-mlir exports no empty tensor to TOSA and TOSA's verifier
rejects empty `tosa.gather` operands, so empty gathers come as gmx programs.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import gmx.reference
import gmx.runtime
from gmx.dialect import OP_NAME
from gmx.tools.experiments.frontends import gmx_program, onnx_model, onnx_to_tosa
from gmx.tools.experiments.pipelines import run_pipeline

LOWERINGS = (["convert-gmx-to-linalg"], ["gmx-lower-to-llvm"])
RAISINGS = (["gmx-canonicalize"], ["tosa-to-tensor", "gmx-canonicalize"])
# What is left of the linearisation if the raising missed it.
LINEARISATION = ("tosa.gather", "tosa.reduce_sum", "tosa.concat", "tosa.tile", "tosa.mul", "tensor.insert_slice")

# ONNX Gather with a scalar index: (axis, data shape, index dtype, index value).
SCALAR_INDEX = {
    "axis0": (0, (4, 3), np.int64, 2),
    "axis1_negative": (1, (4, 3), np.int64, -1),
    "axis1_of_r3": (1, (4, 5, 6), np.int64, 3),
    "rank1_data": (0, (5,), np.int64, 4),  # a rank-0 result
    "i32_negative": (0, (5,), np.int32, -5),
}


@functools.lru_cache(maxsize=None)
def _scalar_index_case(name: str):
    """(model, TOSA text, inputs, ONNX's expected output)."""
    from onnx.reference import ReferenceEvaluator

    axis, shape, index_dtype, value = SCALAR_INDEX[name]
    out_shape = shape[:axis] + shape[axis + 1:]
    dtype = "i64" if index_dtype == np.int64 else "i32"
    model = onnx_model("Gather", {"axis": axis}, [("x", "f32", shape), ("i", dtype, ())], ("f32", out_shape))
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    i = np.array(value, dtype=index_dtype)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x, "i": i})
    return onnx_to_tosa(model), (x, i), expected


def assert_exact(got, expected) -> None:
    got = np.asarray(got)
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
    assert np.array_equal(got, expected), f"got\n{got!r}\nexpected\n{expected!r}"


@pytest.mark.parametrize("raising", RAISINGS, ids=",".join)
@pytest.mark.parametrize("name", SCALAR_INDEX)
def test_onnx_scalar_index_is_raised_and_runs_exactly(name, raising):
    tosa, inputs, expected = _scalar_index_case(name)
    fused = run_pipeline(tosa, raising)
    assert fused.counts[OP_NAME] == 1, fused.text
    assert not {op: fused.counts[op] for op in LINEARISATION if fused.counts[op]}, fused.text
    for lowering in LOWERINGS:
        run_pipeline(fused.text, lowering)
    assert_exact(gmx.runtime.run(fused.text, *inputs), expected)


def test_onnx_scalar_index_runs_unfused():
    tosa, inputs, expected = _scalar_index_case("axis1_negative")
    assert_exact(gmx.runtime.run(tosa, *inputs), expected)


# gmx programs with dims of size 0 and 1: (input shape, indices shape, axes).
EMPTY_AND_UNIT = {
    "empty_indices_axis": ((4, 5), (4, 0), [1]),
    "empty_indices_rows": ((4, 5), (0, 5), [0]),
    "empty_input_kept_dim": ((0, 5), (0, 3), [1]),
    "empty_input_and_output": ((4, 0), (2, 0), [0]),
    "empty_output_only": ((3,), (0,), [0]),
    "empty_tuples": ((4, 5, 6), (0, 1, 2), [0, 2]),
    "unit_dims": ((1, 1), (1, 1), [1]),
    "unit_input_broadcast": ((1, 5), (3, 1), [1]),
    "unit_rank1": ((1,), (1,), [0]),
}
# Indices into an axis of size 0 with a non-empty output: every one is out of bounds.
EMPTY_AXIS = {
    "empty_axis": ((4, 0), (4, 2), [1]),
    "empty_axis_rank1": ((0,), (3,), [0]),
}


def _stages(text: str) -> None:
    """Every pass on `text`; the raising leaves the one gmx op."""
    assert run_pipeline(text, ["gmx-canonicalize"]).counts[OP_NAME] == 1
    for lowering in LOWERINGS:
        run_pipeline(text, lowering)


def _staged_program(input_shape, indices_shape, axes):
    """(text, x, indices): the gmx program, checked through every pass, and
    its operands (the last index -1: a negative index wraps once)."""
    text = gmx_program(("f32", input_shape), ("i64", indices_shape), axes)
    _stages(text)
    x = np.arange(int(np.prod(input_shape)), dtype=np.float32).reshape(input_shape)
    i = np.zeros(indices_shape, dtype=np.int64)
    if i.size:
        i.reshape(-1)[-1] = -1
    return text, x, i


@pytest.mark.parametrize("name", EMPTY_AND_UNIT)
def test_empty_and_unit_dims_pass_every_stage_and_run_exactly(name):
    input_shape, indices_shape, axes = EMPTY_AND_UNIT[name]
    text, x, i = _staged_program(input_shape, indices_shape, axes)
    assert_exact(gmx.runtime.run(text, x, i), gmx.reference.gather_multiaxis(x, i, axes))


@pytest.mark.parametrize("name", EMPTY_AXIS)
def test_indices_into_an_empty_axis_are_an_index_error(name):
    input_shape, indices_shape, axes = EMPTY_AXIS[name]
    text, x, i = _staged_program(input_shape, indices_shape, axes)
    with pytest.raises(IndexError):
        gmx.reference.gather_multiaxis(x, i, axes)
    with pytest.raises(IndexError, match=f"axis {axes[0]} has size 0"):
        gmx.runtime.run(text, x, i)


RANK0 = """
func.func @main(%x: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64>} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}
"""


def test_rank0_gather_passes_every_stage_and_is_its_input():
    _stages(RANK0)
    x, i = np.array(3.5, dtype=np.float32), np.array(7)
    assert_exact(gmx.runtime.run(RANK0, x, i), gmx.reference.gather_multiaxis(x, i, []))


# PyTorch gathers over size-1 dims. They run exactly after every pass; the
# raising leaves part of their linearisation (a unit dim's term is not told
# apart from its neighbour's: both have the same stride), so they are not in
# torch_corpus, whose check wants all of it gone.
UNIT_TORCH = {
    "unit_axis": (1, (4, 1), (4, 3), 1),  # (dim, input shape, index shape, axis size)
    "unit_dims": (1, (1, 5, 1), (1, 2, 1), 5),
}


@pytest.mark.parametrize("name", UNIT_TORCH)
def test_torch_gather_over_unit_dims_runs_exactly_after_every_pass(name):
    torch = pytest.importorskip("torch")
    from gmx.tools.experiments.frontends import torch_to_tosa

    dim, input_shape, index_shape, size = UNIT_TORCH[name]
    x = torch.arange(float(np.prod(input_shape))).reshape(input_shape)
    i = (torch.arange(int(np.prod(index_shape))) % size).reshape(index_shape)
    expected = torch.gather(x, dim, i).numpy()
    tosa = torch_to_tosa(lambda x, i: torch.gather(x, dim, i), (x, i))
    for raising in RAISINGS:
        fused = run_pipeline(tosa, raising)
        assert fused.counts[OP_NAME] == 1 and not fused.counts["tosa.gather"], fused.text
        for lowering in LOWERINGS:
            run_pipeline(fused.text, lowering)
        assert_exact(gmx.runtime.run(fused.text, x.numpy(), i.numpy()), expected)
