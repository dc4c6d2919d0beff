"""--gmx-lower-stablehlo-degenerate-reduce: torch-mlir's StableHLO
nll_loss (its unbatched form sums over no dims) runs equal to torch eager;
reduces over inputs with a size-0 dim give their init."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gmx.passes.lowering.gmx_lower_stablehlo_degenerate_reduce import (
    EMPTY, NO_DIMS, degenerate_kind, unit_dim_groups)
from gmx.runtime import compile
from gmx.tools.experiments.frontends import torch_export

pytest.importorskip("torch_mlir.fx")


def test_degenerate_kinds():
    assert degenerate_kind([], []) == NO_DIMS
    assert degenerate_kind([None, 4], []) == NO_DIMS
    assert degenerate_kind([0, 3], [0]) == EMPTY
    assert degenerate_kind([2, 0], []) == EMPTY
    assert degenerate_kind([None, 4], [0]) is None
    assert unit_dim_groups(0) == [] and unit_dim_groups(2) == [[0], [1, 2]]


def _inputs(batched: bool):
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(6, 5, generator=g).log_softmax(1)
    target = torch.tensor([1, 0, 4, 2, 2, 3])
    weight = torch.rand(5, generator=g) + 0.5
    return (scores, target, weight) if batched else (scores[0], target[0], weight)


# name -> (loss of (scores, target, weight), batched)
LOSSES = {
    "mean_weighted_ignore": (lambda s, t, w: F.nll_loss(s, t, weight=w, ignore_index=2), True),
    "sum_weighted": (lambda s, t, w: F.nll_loss(s, t, weight=w, reduction="sum"), True),
    "sum_ignore": (lambda s, t, w: F.nll_loss(s, t, reduction="sum", ignore_index=4), True),
    # unbatched: torch-mlir sums the rank-0 loss and weight over no dims
    "unbatched_mean_weighted": (lambda s, t, w: F.nll_loss(s, t, weight=w), False),
    "unbatched_sum": (lambda s, t, w: F.nll_loss(s, t, reduction="sum"), False),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_nll_loss_stablehlo_equals_eager(name):
    loss, batched = LOSSES[name]
    inputs = _inputs(batched)
    text = torch_export(loss, inputs, output_type="stablehlo")
    if not batched:
        assert "across dimensions = []" in text
    got = compile(text)(*[t.numpy() for t in inputs])
    np.testing.assert_allclose(got, loss(*inputs).numpy(), rtol=1e-6)


def test_nll_loss_target_out_of_range_clamps_as_stablehlo_defines():
    """Eager raises on a target past the classes; torch-mlir's StableHLO
    export reads it with a stablehlo.gather, which clamps (StableHLO's
    semantics, raised as mode clip): the loss at the last class."""
    loss, _ = LOSSES["unbatched_mean_weighted"]
    scores, target, weight = _inputs(False)
    text = torch_export(loss, (scores, target, weight), output_type="stablehlo")
    with pytest.raises(IndexError):
        loss(scores, torch.tensor(7), weight)
    got = compile(text)(scores.numpy(), np.array(7), weight.numpy())
    np.testing.assert_allclose(got, loss(scores, torch.tensor(4), weight).numpy(), rtol=1e-6)


def test_empty_reduces_give_the_init():
    text = """
    func.func @main(%x: tensor<0x3xf32>, %y: tensor<2x0xf32>) -> (tensor<3xf32>, tensor<0xf32>) {
      %c = stablehlo.constant dense<1.5> : tensor<f32>
      %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<0x3xf32>, tensor<f32>) -> tensor<3xf32>
      %s = stablehlo.reduce(%y init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x0xf32>, tensor<f32>) -> tensor<0xf32>
      return %r, %s : tensor<3xf32>, tensor<0xf32>
    }"""
    got, empty = compile(text)(np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32))
    np.testing.assert_array_equal(got, np.full(3, 1.5, np.float32))
    assert empty.shape == (0,)
