"""torch-mlir's linalg-on-tensors export uses its TMTensor dialect (cumsum,
sort, argsort, topk, scatter): gmx parses it, raises the gathers around it
and runs it, equal to torch eager."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gmx.dialect import OP_NAME, make_context
from gmx.dialect.mlir import ir
from gmx.passes.pipeline import build_pass_manager
from gmx.runtime import compile
from gmx.tools.experiments.frontends import torch_export


def opt_positions(mask, table):
    """OPT's learned positions: a cumsum of the attention mask, then an embedding."""
    positions = (torch.cumsum(mask, dim=1) * mask).long() - 1
    return torch.nn.functional.embedding(positions + 1, table)


def random_masking(x, noise):
    """MAE: keep the rows of the 3 smallest noise values, in that order."""
    keep = torch.argsort(noise, dim=1)[:, :3]
    return torch.gather(x, 1, keep[:, :, None].expand(-1, -1, x.shape[2]))


def top_k_rows(x, scores):
    return torch.index_select(x, 0, torch.topk(scores, 2).indices)


def scatter_rows(x, i, s):
    return x.scatter(1, i, s)


PROGRAMS = {
    "cumsum": (opt_positions, [torch.tensor([[1, 1, 1, 0], [0, 1, 1, 1]]), torch.randn(5, 3)]),
    "argsort": (random_masking, [torch.randn(2, 6, 4), torch.rand(2, 6)]),
    "topk": (top_k_rows, [torch.randn(5, 3), torch.tensor([0.5, 3.0, -1.0, 2.0, 0.0])]),
}


def _gmx_ops(text: str) -> int:
    with make_context():
        module = ir.Module.parse(text)
        build_pass_manager(["gmx-canonicalize"]).run(module.operation)
        return str(module).count(f'"{OP_NAME}"')


@pytest.mark.parametrize("name", PROGRAMS)
def test_linalg_export_with_tm_tensor_runs_equal_to_eager(name):
    torch.manual_seed(0)
    forward, inputs = PROGRAMS[name]
    text = torch_export(forward, inputs, output_type="linalg-on-tensors")
    assert "tm_tensor." in text
    assert _gmx_ops(text) == 1  # the gather around it raised
    got = compile(text)(*[t.numpy() for t in inputs])
    np.testing.assert_array_equal(got, forward(*inputs).numpy())


def test_tm_tensor_scatter_is_checked():
    """--gmx-check-tm-tensor-scatter: a bad index is an IndexError naming
    the dim it indexes, and nothing is written; unchecked it runs too."""
    inputs = [torch.randn(3, 5), torch.tensor([[0, 1], [2, 3], [4, 0]]), torch.randn(3, 2)]
    text = torch_export(scatter_rows, inputs, output_type="linalg-on-tensors")
    arrays = [t.numpy() for t in inputs]
    for checked in (True, False):
        np.testing.assert_array_equal(compile(text, checked=checked)(*arrays), scatter_rows(*inputs).numpy())
    arrays[1] = np.array([[0, 1], [2, 5], [4, 0]])
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 1 with size 5"):
        compile(text)(*arrays)
