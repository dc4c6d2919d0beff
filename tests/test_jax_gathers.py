"""--gmx-canonicalize on what JAX emits as StableHLO for its gathers.

Each program is lowered by `jax.jit(f).lower(...).as_text()`
(`frontends.jax_to_stablehlo`), raised, and must leave one
`gmx.gather_multiaxis` per gather, in the mode JAX's gather has
(`jnp.take`'s and `x.at[i].get`'s modes: clip and promise_in_bounds
are a bare clamping `stablehlo.gather`, so "clip"; wrap is JAX's remainder
in front of that gather, absorbed: "wrap"; fill is JAX's mask-and-select,
so "fill"), and no `stablehlo.gather` (nor JAX's mask or remainder) left. Results are compared
with JAX's own:

  - the raised program on in-range indices (where every mode agrees with
    gmx's default, which is what gmx lowers today), always;
  - the raised program on the out-of-range and negative indices, once gmx
    lowers its modes (`modes_lowered`);
  - the unraised StableHLO (stablehlo-legalize-to-linalg) on the
    out-of-range and negative indices, always: inlining JAX's private
    helpers and the StableHLO lowering are checked end to end.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import gmx.runtime  # noqa: E402
from gmx.dialect import OP_NAME  # noqa: E402
from gmx.tools.experiments.frontends import jax_to_stablehlo  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from stablehlo_oracle import interpret, modes_lowered  # noqa: E402

RNG = np.random.default_rng(14)
X = RNG.standard_normal((4, 6)).astype(np.float32)
X3 = RNG.standard_normal((3, 4, 5)).astype(np.float32)
# out of range both ways, negative in range, and in range
I = np.array([0, -1, 5, 7, -8, 2], np.int32)
I64 = I.astype(np.int64)
I_ROWS = np.array([1, -2, 9, 3], np.int32)


def _batched_gather(x, i):
    """lax.gather with operand_batching_dims: row b reads x[b, i[b, k]]."""
    numbers = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                         operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    return lax.gather(x, i[..., None], numbers, slice_sizes=(1, 1), mode=lax.GatherScatterMode.CLIP)


def _windowed_gather(x, i):
    """A window of 2 columns at each start: gmx has no windows."""
    numbers = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(1,))
    return lax.gather(x, i[:, None], numbers, slice_sizes=(1, 2), mode=lax.GatherScatterMode.CLIP)


@functools.partial(jax.vmap, in_axes=(0, 0))
def _vmapped_row(row, k):
    return row[k]


# name -> (function, inputs, in-range inputs, modes of the gmx ops it must leave)
PROGRAMS = {
    "take_default": (lambda x, i: jnp.take(x, i, axis=1), (X, I), (X, I % 6), ["fill"]),
    "take_fill": (lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=-7.5), (X, I), (X, I % 6), ["fill"]),
    "take_fill_i64": (lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=-7.5), (X, I64), (X, I64 % 6),
                      ["fill"]),
    "take_clip": (lambda x, i: jnp.take(x, i, axis=1, mode="clip"), (X, I), (X, I % 6), ["clip"]),
    "take_wrap": (lambda x, i: jnp.take(x, i, axis=1, mode="wrap"), (X, I), (X, I % 6), ["wrap"]),
    "at_get_promise_in_bounds": (lambda x, i: jnp.asarray(x).at[i].get(mode="promise_in_bounds"),
                                 (X, I_ROWS), (X, I_ROWS % 4), ["clip"]),
    "take_along_axis": (lambda x, i: jnp.take_along_axis(x, i, axis=1), (X, I[:4, None] * np.ones((1, 3), np.int32)),
                        (X, (I[:4, None] % 6) * np.ones((1, 3), np.int32)), ["fill"]),
    "advanced_x_i_colon_j": (lambda x, i, j: x[i, :, j], (X3, np.array([0, -1, 2], np.int32), np.array([4, 1, -5], np.int32)),
                             (X3, np.array([0, 2, 2], np.int32), np.array([4, 1, 0], np.int32)), ["clip"]),
    "at_get_clip": (lambda x, i: jnp.asarray(x).at[i].get(mode="clip"), (X, I_ROWS), (X, I_ROWS % 4), ["clip"]),
    "at_get_fill": (lambda x, i: jnp.asarray(x).at[i].get(mode="fill", fill_value=3.0), (X, I_ROWS), (X, I_ROWS % 4), ["fill"]),
    "at_get_fill_two_axes": (lambda x, i, j: jnp.asarray(x).at[i, :, j].get(mode="fill", fill_value=-1.0),
                             (X3, np.array([0, -1, 3, 2], np.int64), np.array([4, -6, 1, 0], np.int64)),
                             (X3, np.array([0, 2, 0, 2], np.int64), np.array([4, 4, 1, 0], np.int64)), ["fill"]),
    "lax_gather_batching_dims": (_batched_gather, (X, np.array([[0, 5], [-1, 2], [9, 3], [1, 1]], np.int32)),
                                 (X, np.array([[0, 5], [0, 2], [5, 3], [1, 1]], np.int32)), ["clip"]),
    "vmap_row_index": (_vmapped_row, (X, np.array([1, -2, 9, 3], np.int32)), (X, np.array([1, 4, 5, 3], np.int32)),
                       ["clip"]),
    "vmap_take": (jax.vmap(lambda r, k: jnp.take(r, k, mode="clip")), (X, I_ROWS[:, None] * np.ones((1, 2), np.int32)),
                  (X, (I_ROWS[:, None] % 6) * np.ones((1, 2), np.int32)), ["clip"]),
}
# Gathers gmx cannot express stay as they are, and run as StableHLO defines them.
UNRAISED = {
    "lax_gather_window": (_windowed_gather, (X, np.array([0, 3, 5, -1], np.int32))),
}


@functools.lru_cache(maxsize=None)
def exported(name: str) -> str:
    fn, inputs = (PROGRAMS[name][:2]) if name in PROGRAMS else UNRAISED[name]
    return jax_to_stablehlo(fn, inputs)


@functools.lru_cache(maxsize=None)
def raised(name: str) -> str:
    return run_pipeline(exported(name), ["gmx-canonicalize"]).text


def jax_result(fn, inputs) -> np.ndarray:
    with jax.enable_x64(True):
        return np.asarray(fn(*inputs))


@pytest.mark.parametrize("name", PROGRAMS)
def test_jax_gather_raises(name):
    modes = PROGRAMS[name][3]
    text = raised(name)
    assert text.count(f'"{OP_NAME}"') == len(modes), text
    for mode in set(modes):
        assert text.count(f'mode = "{mode}"') == modes.count(mode), text
    assert "stablehlo.gather" not in text, text
    assert "func.call" not in text and "private" not in text, "JAX's helpers are inlined and dropped"
    if "fill" in modes or "wrap" in modes:
        assert "stablehlo.reduce" not in text and "stablehlo.select" not in text, "JAX's mask and wrap are gone"
        assert "stablehlo.remainder" not in text, "JAX's remainder is the wrap mode"


@pytest.mark.parametrize("name", PROGRAMS)
def test_raised_jax_gather_matches_jax_in_range(name):
    fn, _, in_range, _ = PROGRAMS[name]
    np.testing.assert_array_equal(gmx.runtime.run(raised(name), *in_range), jax_result(fn, in_range))


@pytest.mark.parametrize("name", PROGRAMS)
def test_raised_jax_gather_matches_jax_out_of_range(name):
    if not modes_lowered():
        pytest.skip("gmx does not lower its clip and fill modes yet")
    fn, inputs, _, _ = PROGRAMS[name]
    np.testing.assert_array_equal(gmx.runtime.run(raised(name), *inputs), jax_result(fn, inputs))


@pytest.mark.parametrize("name", [*PROGRAMS, *UNRAISED])
def test_jax_stablehlo_runs_unraised(name):
    """gmx-run's lowering of StableHLO itself (private helpers and all)
    gives JAX's result, and so does StableHLO's interpreter."""
    fn, inputs = (PROGRAMS[name][:2]) if name in PROGRAMS else UNRAISED[name]
    want = jax_result(fn, inputs)
    np.testing.assert_array_equal(gmx.runtime.run(exported(name), *inputs), want)
    np.testing.assert_array_equal(interpret(exported(name), *inputs)[0], want)


def test_windowed_gather_stays():
    text = raised("lax_gather_window")
    assert f'"{OP_NAME}"' not in text and "stablehlo.gather" in text


def test_narrowed_fill_index_is_jax_within_i32():
    """JAX narrows an i64 fill index to i32 after its wrap; the raised op
    narrows before gmx's wrap: the same for every index i32 holds, its
    extremes included."""
    fn, _, _, _ = PROGRAMS["take_fill_i64"]
    edges = np.array([-2**31, -2**31 + 5, -7, -6, 2**31 - 7, 2**31 - 1], np.int64)
    np.testing.assert_array_equal(gmx.runtime.run(raised("take_fill_i64"), X, edges), jax_result(fn, (X, edges)))


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="2**32 - 1 narrows to -1 after JAX's wrap (fill), "
                   "before gmx's (wrapped to 5): documented")
def test_narrowed_fill_index_beyond_i32():
    fn, _, _, _ = PROGRAMS["take_fill_i64"]
    beyond = np.array([2**32 - 1, 0, 0, 0, 0, 0], np.int64)
    np.testing.assert_array_equal(gmx.runtime.run(raised("take_fill_i64"), X, beyond), jax_result(fn, (X, beyond)))
