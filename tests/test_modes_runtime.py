"""Out-of-range modes end to end: `--convert-gmx-to-linalg` (checked and
unchecked, every strategy the plan picks: whole, column tiles, dynamic
shapes read through tensor.extract) run by `gmx.runtime`, against
numpy.take(mode=...) / numpy indexing of numpy-normalised indices and JAX's
fill semantics; never against gmx's own reference alone."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import gmx.runtime
from gather_programs import assert_identical, gather_module
from gmx.passes.lowering.gather_plan import ColumnTiles, Whole, plan_gather
from gmx.tools.experiments.pipelines import run_pipeline

jnp = pytest.importorskip("jax.numpy")

MODES = ("wrap", "clip", "fill")
FILL = {np.dtype(np.float32): -7.5, np.dtype(np.int32): -7, np.dtype(np.int8): 127}


@functools.cache
def program(input_shape, indices_shape, axes, mode, checked=True, dtype=np.float32, dyn=False):
    """The compiled gather (shared within the module: compiling dominates)."""
    rank = len(input_shape)
    dynamic = dict(dyn_input=range(rank), dyn_indices=range(rank)) if dyn else {}
    text = gather_module(input_shape, indices_shape, axes, dtype=dtype, mode=mode,
                         fill_value=FILL[np.dtype(dtype)] if mode == "fill" else None, **dynamic)
    return gmx.runtime.compile(text, checked=checked)


def numpy_normalized(i, size, mode):
    """numpy's own arithmetic: take(arange(size), i, mode=...)."""
    return np.take(np.arange(size), i, mode=mode)


# --- a row gather (index_select): axes [0] on [5, 3], whole -------------------


@pytest.mark.parametrize("checked", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_row_gather_is_numpy_take(mode, checked):
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    # (numpy's wrap subtracts the size until in range: a far value costs time)
    i = np.array([-11, -6, -5, -1, 0, 4, 5, 12, 10**6 + 3])
    got = program((5, 3), (9, 1), (0,), mode, checked)(x, i.reshape(9, 1))
    assert_identical(got, np.take(x, i, axis=0, mode=mode))


@pytest.mark.parametrize("checked", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_row_gather_fill_is_jax_take(dtype, checked):
    x = np.arange(15).reshape(5, 3).astype(dtype)
    i = np.array([-11, -6, -5, -1, 0, 4, 5, 12, 2**31 - 1])  # JAX reads int32 indices
    got = program((5, 3), (9, 1), (0,), "fill", checked, dtype)(x, i.reshape(9, 1))
    expected = jnp.take(jnp.asarray(x), jnp.asarray(i), axis=0, mode="fill", fill_value=FILL[np.dtype(dtype)])
    assert_identical(got, np.asarray(expected))


def test_checked_mode_reports_nothing_in_any_mode():
    """Only "raise" makes a value an error: the other modes' programs run
    on values far outside the axis without an IndexError (above), and the
    plan schedules no scan of their indices."""
    for mode in MODES:
        assert not plan_gather([5, 3], [9, 1], [0], mode=mode).checks_indices
    assert plan_gather([5, 3], [9, 1], [0]).checks_indices


# --- elementwise (take_along_axis): flagged when "raise", whole here ------------


@pytest.mark.parametrize("mode", MODES)
def test_elementwise_gather(mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    i = rng.integers(-10, 10, size=(3, 6))
    got = program((4, 6), (3, 6), (0,), mode)(x, i)
    if mode == "fill":
        expected = np.asarray(jnp.take_along_axis(jnp.asarray(x), jnp.asarray(i), 0, mode="fill", fill_value=-7.5))
    else:
        expected = np.take_along_axis(x, numpy_normalized(i, 4, mode), 0)
    assert_identical(got, expected)


# --- x[i, :, j]: column tiles ------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_column_tiled_gather(mode):
    assert plan_gather([8, 64, 32], [4, 1, 2], [0, 2], mode=mode).strategy == ColumnTiles(1, 32)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 64, 32)).astype(np.float32)
    i, j = rng.integers(-20, 20, size=4), rng.integers(-70, 70, size=4)
    got = program((8, 64, 32), (4, 1, 2), (0, 2), mode)(x, np.stack([i, j], -1).reshape(4, 1, 2))
    if mode == "fill":
        expected = jnp.asarray(x).at[jnp.asarray(i), :, jnp.asarray(j)].get(mode="fill", fill_value=-7.5)
    else:
        expected = x[numpy_normalized(i, 8, mode), :, numpy_normalized(j, 32, mode)]
    assert_identical(got, np.asarray(expected).reshape(4, 64, 1))


# --- dynamic shapes (indices read with tensor.extract), axes of size 0 ------------


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_gather(mode):
    assert plan_gather([None, None], [None, None], [1], mode=mode).strategy == Whole()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    i = rng.integers(-12, 12, size=(1, 7))
    got = program((3, 5), (1, 7), (1,), mode, dyn=True)(x, i)
    if mode == "fill":
        expected = jnp.take(jnp.asarray(x), jnp.asarray(i[0]), axis=1, mode="fill", fill_value=-7.5)
    else:
        expected = np.take(x, i[0], axis=1, mode=mode)
    assert_identical(got, np.asarray(expected))


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_size_zero_axis_with_indices_is_an_index_error(mode):
    x, i = np.zeros((3, 0), np.float32), np.array([[0, 1]])
    with pytest.raises(IndexError):
        np.take(x, i[0], axis=1, mode=mode)
    with pytest.raises(IndexError, match="axis 1 has size 0: every index into it is out of bounds"):
        program((3, 5), (1, 7), (1,), mode, dyn=True)(x, i)
    # Static: the same error; no index values, no error.
    with pytest.raises(IndexError, match="axis 1 has size 0"):
        program((3, 0), (1, 2), (1,), mode)(x, i)
    assert program((3, 5), (1, 7), (1,), mode, dyn=True)(x, np.zeros((1, 0), np.int64)).shape == (3, 0)


@pytest.mark.parametrize("dyn", [True, False], ids=["dynamic", "static"])
def test_size_zero_axis_fills(dyn):
    """Every index is outside an empty axis: all fill, nothing read."""
    x, i = np.zeros((3, 0), np.float32), np.array([[0, -1]])
    got = program((3, 5) if dyn else (3, 0), (1, 7) if dyn else (1, 2), (1,), "fill", dyn=dyn)(x, i)
    assert_identical(got, np.full((3, 2), -7.5, np.float32))


def test_raise_mode_is_unchanged():
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        program((5, 3), (9, 1), (0,), None)(np.zeros((5, 3), np.float32), np.array([0, 1, 2, 3, 4, -5, -1, 5, 0]).reshape(9, 1))


def test_large_fill_rows_are_streamed_and_exact():
    """A 4 MiB output: --gmx-stream-row-copies selects the fill value per
    64-byte vector (lit: gmx-stream-row-copies.mlir); same values as JAX."""
    from gmx.passes.lowering.gmx_stream_row_copies import NONTEMPORAL_MIN_BYTES

    assert 4096 * 256 * 4 >= NONTEMPORAL_MIN_BYTES
    text = gather_module((100, 256), (4096, 1), (0,), mode="fill", fill_value=-7.5)
    assert "nontemporal" in str(run_pipeline(text, ["gmx-lower-to-llvm"]).text)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((100, 256)).astype(np.float32)
    i = rng.integers(-150, 150, size=(4096, 1))
    got = program((100, 256), (4096, 1), (0,), "fill")(x, i)
    expected = jnp.take(jnp.asarray(x), jnp.asarray(i[:, 0]), axis=0, mode="fill", fill_value=-7.5)
    assert_identical(got, np.asarray(expected))


# --- torch.take_along_dim: absorb-floor-modulo ------------------------------------


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_take_along_dim_is_one_wrap_gather_equal_to_eager(dim):
    """torch-mlir's floor modulo in front of the gather becomes mode = "wrap"
    on the wide indices; fused and unfused programs run equal to eager
    PyTorch, on indices far outside the axis (both signs)."""
    torch = pytest.importorskip("torch")
    from gmx.tools.experiments.frontends import torch_to_tosa

    x = torch.randn(4, 5, 6)
    shape = [4, 5, 6]
    shape[dim] = 3
    i = torch.randint(-40, 40, tuple(shape))
    i.view(-1)[0] = 2**40 + 3  # a cast to i32 before the modulo would read 3 mod size
    tosa = torch_to_tosa(lambda x, i: torch.take_along_dim(x, i, dim), (x, i))
    fused = run_pipeline(tosa, ["gmx-canonicalize"])
    assert fused.counts["gmx.gather_multiaxis"] == 1 and 'mode = "wrap"' in fused.text
    assert not any(fused.counts[name] for name in ("tosa.intdiv", "tosa.select", "tosa.gather", "tosa.cast"))
    expected = torch.take_along_dim(x, i, dim).numpy()
    assert_identical(gmx.runtime.run(fused.text, x.numpy(), i.numpy()), expected)
    assert_identical(gmx.runtime.run(tosa, x.numpy(), i.numpy()), expected)
