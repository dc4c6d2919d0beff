"""--gmx-canonicalize on torch-mlir's StableHLO scatters
(`frontends.torch_export(..., output_type="stablehlo")`).

torch-mlir exports `scatter`/`scatter_add` as element-wise scatters (iota
coordinates concatenated with the index, every dim inserted), `index_put`,
`index_add` and the embedding's backward with window dims and an add
region. Each must leave one `gmx.scatter_multiaxis` per
`stablehlo.scatter`, in mode "skip" (StableHLO's out-of-bounds rule; a
negative index is skipped, as the export skips it: not eager's wrap) with
nothing computed on its indices in front, and
mean what the export means: the raised module (StableHLO's interpreter
around `gmx.reference.scatter_multiaxis`, `interpret_raised`) equals the
interpreter on the export, on indices in range, out of range and negative;
on in-range indices both equal eager. Run by gmx's engine once
`--gmx-lower-to-llvm` lowers the scatter (`scatters_lowered`). The
corpus's StableHLO scatters (`segment_means@stablehlo`,
`unpad_pad@stablehlo`) are checked raised by test_real_programs' `fused`.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gmx.runtime  # noqa: E402
from gmx.dialect.scatter import SCATTER_OP_NAME  # noqa: E402
from gmx.tools.experiments.frontends import torch_export  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from stablehlo_oracle import interpret, interpret_raised, scatters_lowered  # noqa: E402

RNG = np.random.default_rng(2929)
X = RNG.standard_normal((5, 4)).astype(np.float32)
X3 = RNG.standard_normal((3, 4, 5)).astype(np.float32)
SRC = RNG.standard_normal((3, 4)).astype(np.float32)
ROWS = RNG.standard_normal((4, 4)).astype(np.float32)
# element-wise: (in range, unique per row where the scatter assigns; out of range and negative)
INDEX = np.array([[1, 2, 3, 0], [4, 0, 0, 1], [0, 4, 2, 3]], np.int64)
INDEX_BAD = np.array([[1, 7, 3, 0], [-1, 0, 0, 1], [0, 4, -5, 3]], np.int64)
COLUMNS = np.array([[1, 2, 3, 0], [0, 3, 1, 2], [3, 1, 0, 2]], np.int64)
PICK = np.array([4, 1, 3, 0], np.int64)
PICK_DUP = np.array([4, 1, 4, 0], np.int64)
PICK_BAD = np.array([4, -1, 9, 0], np.int64)


def _index_put(accumulate: bool):
    return lambda x, i, v: torch.index_put(x, (i,), v, accumulate=accumulate)


def _broadcast_spelling(x, i, j, v):
    """`x[i[:, None], arange(n), j[:, None]] = v`: torch's spelling of `x[i, :, j] = v`."""
    x = x.clone()
    x[i[:, None], torch.arange(x.shape[1]), j[:, None]] = v
    return x


# name -> (function, inputs in range, inputs out of range, reductions of the gmx scatters, eager tolerance)
PROGRAMS = {
    "scatter_src_dim1": (lambda x, i, u: x.scatter(1, i, u), (X, COLUMNS, SRC), (X, INDEX_BAD, SRC), ["none"]),
    "scatter_src_same_shape": (lambda x, i, u: x[:3].scatter(1, i, u), (X, COLUMNS, SRC), (X, INDEX_BAD, SRC),
                               ["none"]),
    "scatter_add_dim0": (lambda x, i, u: x.scatter_add(0, i, u), (X, INDEX, SRC), (X, INDEX_BAD, SRC), ["add"]),
    "index_put": (_index_put(False), (X, PICK, ROWS), (X, PICK_BAD, ROWS), ["none"]),
    "index_put_accumulate": (_index_put(True), (X, PICK_DUP, ROWS), (X, PICK_BAD, ROWS), ["add"]),
    "index_add": (lambda x, i, v: x.index_add(0, i, v), (X, PICK_DUP, ROWS), (X, PICK_BAD, ROWS), ["add"]),
    "embedding_backward": (lambda g, i: torch.ops.aten.embedding_dense_backward(g, i, 5, -1, False),
                           (ROWS, PICK_DUP), (ROWS, PICK_BAD), ["add"]),
    "broadcast_spelling": (_broadcast_spelling, (X3, PICK[:4] % 3, PICK, ROWS),
                           (X3, np.array([2, -1, 5, 0]), PICK_BAD, ROWS), ["none"]),
}


@functools.lru_cache(maxsize=None)
def exported(name: str) -> str:
    fn, inputs = PROGRAMS[name][:2]
    return torch_export(fn, inputs, output_type="stablehlo")


@functools.lru_cache(maxsize=None)
def raised(name: str) -> str:
    return run_pipeline(exported(name), ["gmx-canonicalize"]).text


def eager(fn, inputs) -> np.ndarray:
    return fn(*[torch.from_numpy(a) for a in inputs]).numpy()


@pytest.mark.parametrize("name", PROGRAMS)
def test_torch_stablehlo_scatter_raises(name):
    reductions = PROGRAMS[name][3]
    text = raised(name)
    assert exported(name).count('"stablehlo.scatter"') == len(reductions)
    lines = [line for line in text.splitlines() if f'"{SCATTER_OP_NAME}"' in line]
    assert len(lines) == len(reductions) and "stablehlo.scatter" not in text, text
    largest = f"dense<{np.iinfo(np.int64).max}>"  # skip_negative's select of a negative index out of range
    assert largest not in text, "StableHLO's skip of a negative index is the mode's, not a select's"
    for line, reduction in zip(lines, reductions):
        assert 'mode = "skip"' in line, line
        assert (f'reduction = "{reduction}"' in line) if reduction != "none" else "reduction" not in line, line


def test_broadcast_spelling_is_two_axes():
    """The arange coordinate is no coordinate: a batching dim of the gmx op,
    along which the other indices are not broadcast either."""
    text = raised("broadcast_spelling")
    line = next(line for line in text.splitlines() if SCATTER_OP_NAME in line)
    assert "axes = array<i64: 0, 2>" in line and "tensor<4x1x2xi64>" in line, line
    assert "broadcast_in_dim" not in text, "the indices are read before their broadcast along the batching dim"


def test_iota_coordinate_over_the_whole_dim_is_no_coordinate():
    """torch's `scatter` on an index as large as the input: the iota
    coordinate pairs with the index's dim (one axis); smaller, it stays a
    coordinate (StableHLO writes only its rows)."""
    assert "axes = array<i64: 1>" in raised("scatter_src_same_shape")
    assert "axes = array<i64: 0, 1>" in raised("scatter_src_dim1")


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("which", ["in_range", "out_of_range"])
def test_raised_torch_scatter_means_what_the_export_means(name, which):
    fn, in_range, out_of_range, _ = PROGRAMS[name]
    inputs = in_range if which == "in_range" else out_of_range
    want = interpret(exported(name), *inputs)[0]
    np.testing.assert_array_equal(interpret_raised(raised(name), *inputs)[0], want)
    if which == "in_range":
        np.testing.assert_allclose(want, eager(fn, inputs), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", PROGRAMS)
def test_raised_torch_scatter_runs_as_eager(name):
    if not scatters_lowered():
        pytest.skip("--gmx-lower-to-llvm does not lower gmx.scatter_multiaxis yet")
    fn, inputs, _, _ = PROGRAMS[name]
    np.testing.assert_allclose(gmx.runtime.run(raised(name), *inputs), eager(fn, inputs), rtol=1e-6, atol=1e-6)

