"""Gathers with dynamic (`?`) dims: the pure decisions of
`passes.views` / `passes.raising.dynamic_gathers`, and torch-mlir's
dynamic exports (`torch_to_tosa(..., dynamic_dims=...)`) raised into one gmx
op and run at two sizes, bit for bit against eager.

What torch-mlir exports with a `torch.export.Dim`: embeddings
(`F.embedding`, `nn.Embedding`) with one dynamic dim in the ids, the
table's rows or its width. It refuses `w[i]`, `index_select` and
`torch.gather` with dynamic dims, and an embedding with two dynamic ids dims
(its result reshape would need two -1s); `test_torch_mlir_refuses` keeps
that list honest.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import gmx.runtime
from gmx.passes.views import align_shapes, view_groups
from gmx.passes.raising.dynamic_gathers import ReshapedGather, reshaped_gather
from gmx.passes.patterns import NoMatch
from gmx.tools.experiments.frontends import FrontendError, torch_to_tosa
from gmx.tools.experiments.pipelines import run_pipeline

# --- pure decisions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, target, groups",
    [
        ([1, None, 8], [2, None, 8], [([0, 1], [0, 1]), ([2], [2])]),  # torch-mlir's embedding result
        ([2, None], [1, None], [([0, 1], [0, 1])]),  # its ids
        ([None, 8], [1, None, 8], [([0], [0, 1]), ([1], [2])]),
        ([10, 8], [1, 10, 8], [([0], [0, 1]), ([1], [2])]),
        ([2, 3, None], [6, None], [([0, 1], [0]), ([2], [1])]),
        ([1, 5, None], [1, None], [([0], [0]), ([1, 2], [1])]),
        ([None, 1], [None], [([0, 1], [0])]),
        ([2, None, 4], [8, None], [([0, 1, 2], [0, 1])]),  # no static prefix or suffix closes
    ],
)
def test_align_shapes(source, target, groups):
    assert align_shapes(source, target) == groups


@pytest.mark.parametrize("source, target", [([None], []), ([0, None], [None]), ([None, 3], [3])])
def test_align_shapes_refuses(source, target):
    assert align_shapes(source, target) is None


@pytest.mark.parametrize(
    "source, target",
    [
        ([1, None, 1], [None, None, 1]),  # two `?` in one group: which is which?
        ([1, None], [1, 8]),  # a `?` taken for a static size
        ([None, None], [1, None, None]),
    ],
)
def test_view_groups_refuses_what_is_not_certain(source, target):
    assert view_groups(source, target) is None


def test_reshaped_gather_of_torch_mlirs_embedding():
    assert reshaped_gather([1, 10, 8], [1, None, 1], [1], [1, None, 8], [2, None, 8]) == ReshapedGather(
        [1, 10, 8], [2, None, 1], [1]
    )


def test_reshaped_gather_drops_unit_dims():
    assert reshaped_gather([1, None, 8], [1, None, 1], [1], [1, None, 8], [None, 8]) == ReshapedGather(
        [None, 8], [None, 1], [0]
    )


@pytest.mark.parametrize(
    "gather, target, why",
    [
        (([1, 10, None], [1, 5, 1], [1], [1, 5, None]), [1, None], "merged with the axis"),
        (([4, 10, 8], [4, None, 1], [1], [4, None, 8]), [4, None, 8], "indices vary along a dim the input has"),
        (([4, 10, 8], [4, None, 2], [0, 1], [None, None, 8]), [None, 8], "single-axis"),
        (([1, 10, 8], [1, None, 1], [1], [1, None, 8]), [None, 4, 2], "reshape of an input dim"),
    ],
)
def test_reshaped_gather_refuses(gather, target, why):
    with pytest.raises(NoMatch, match=why):
        reshaped_gather(*gather, target)


# --- torch-mlir's dynamic exports ------------------------------------------------------------------


def embedding(w, ids):
    return torch.nn.functional.embedding(ids, w)


class Embedding3d(torch.nn.Module):
    """nn.Embedding (the table a frozen weight, a tosa.const) on 3-D ids."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = torch.nn.Embedding(10, 8)

    def forward(self, ids):
        return self.table(ids)


# name: (forward, dynamic_dims, inputs at a size)
PROGRAMS = {
    "sequence": (embedding, [None, {1: "S"}], lambda n: (torch.randn(10, 8), torch.randint(0, 10, (2, n)))),
    "batch_1d": (embedding, [None, {0: "B"}], lambda n: (torch.randn(10, 8), torch.randint(0, 10, (n,)))),
    "table_rows_and_sequence": (
        embedding, [{0: "V"}, {1: "S"}], lambda n: (torch.randn(n + 4, 8), torch.randint(0, n + 4, (2, n))),
    ),
    "row_width": (embedding, [{1: "D"}, None], lambda n: (torch.randn(10, n), torch.randint(0, 10, (2, 5)))),
    "module_3d_ids": (Embedding3d(), [{2: "S"}], lambda n: (torch.randint(0, 10, (2, 3, n)),)),
}
SIZES = (3, 7)


@functools.cache
def exported(name: str) -> str:
    forward, dims, inputs = PROGRAMS[name]
    return torch_to_tosa(forward, inputs(SIZES[0]), dims)


@functools.cache
def raised(name: str, form: str):
    """The export after `--gmx-canonicalize` (`form` "tensor": after `--tosa-to-tensor` first)."""
    return run_pipeline(exported(name), (["tosa-to-tensor"] if form == "tensor" else []) + ["gmx-canonicalize"])


@pytest.mark.parametrize("form", ["tosa", "tensor"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_raised_into_one_gmx_op(name, form):
    text = exported(name)
    assert "?" in text.splitlines()[1] and "tosa.gather" in text  # @main's signature
    counts = raised(name, form).counts
    assert counts["gmx.gather_multiaxis"] == 1
    left = {op for op in counts if op.startswith("tosa.")} - {"tosa.cast", "tosa.const"}
    assert not left, left  # no gather, no reshape
    assert counts["tensor.collapse_shape"] + counts["tensor.expand_shape"] <= 2  # one view per operand


@pytest.mark.parametrize("name", PROGRAMS)
def test_runs_at_two_sizes_bit_exact(name):
    forward, _, inputs = PROGRAMS[name]
    program = gmx.runtime.compile(raised(name, "tosa").text)
    for n in SIZES:
        args = inputs(n)
        with torch.no_grad():
            want = forward(*args).numpy()
        got = program(*(a.numpy() for a in args))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_unfused_export_runs_too():
    """`--gmx-lower-to-llvm` alone (every tosa.gather raised with nothing
    fused, TOSA's `?` reshapes and casts lowered by upstream)."""
    w, ids = PROGRAMS["sequence"][2](SIZES[1])
    got = gmx.runtime.run(exported("sequence"), w.numpy(), ids.numpy())
    np.testing.assert_array_equal(got, embedding(w, ids).numpy())


@pytest.mark.parametrize("n", SIZES)
def test_an_id_outside_the_run_time_table_is_a_located_error(n):
    """Checked mode bounds an id by the table's size at run time."""
    program = gmx.runtime.compile(raised("table_rows_and_sequence", "tosa").text)
    w, ids = PROGRAMS["table_rows_and_sequence"][2](n)
    ids[1, -1] = n + 4
    with pytest.raises(IndexError, match=rf":\d+:\d+: index {n + 4} is out of bounds for axis 1 with size {n + 4}"):
        program(w.numpy(), ids.numpy())


def test_a_static_dim_is_still_checked():
    program = gmx.runtime.compile(raised("sequence", "tosa").text)
    with pytest.raises(ValueError, match=r"int64\[2x\?\].*shape \[3, 4\]"):
        program(np.zeros((10, 8), np.float32), np.zeros((3, 4), np.int64))


def test_gmx_run_runs_a_dynamic_module(gmx_run, mlir_file, tmp_path, capsys):
    path = mlir_file(exported("sequence"))
    w = np.arange(80, dtype=np.float32).reshape(10, 8)
    for n in SIZES:
        ids = np.arange(2 * n).reshape(2, n) % 10
        np.save(tmp_path / "w.npy", w)
        np.save(tmp_path / "ids.npy", ids)
        out = tmp_path / f"out{n}.npy"
        assert gmx_run(path, "--input", tmp_path / "w.npy", "--input", tmp_path / "ids.npy", "--output", out) == 0
        np.testing.assert_array_equal(np.load(out), w[ids])


@pytest.mark.parametrize(
    "forward, inputs, dims",
    [
        (lambda w, i: w[i], (torch.randn(10, 8), torch.randint(0, 10, (2, 5))), [None, {1: "S"}]),
        (lambda w, i: w.index_select(0, i), (torch.randn(10, 8), torch.randint(0, 10, (5,))), [None, {0: "S"}]),
        (lambda x, i: x.gather(1, i), (torch.randn(4, 6), torch.randint(0, 6, (4, 3))), [None, {1: "S"}]),
        (embedding, (torch.randn(10, 8), torch.randint(0, 10, (2, 5))), [None, {0: "B", 1: "S"}]),
    ],
    ids=["advanced_index", "index_select", "torch_gather", "two_dynamic_ids_dims"],
)
def test_torch_mlir_refuses(forward, inputs, dims):
    with pytest.raises(FrontendError, match="torch-mlir could not export"):
        torch_to_tosa(forward, inputs, dims)
