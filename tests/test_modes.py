"""Out-of-range modes (docs/semantics.md#out-of-range-modes): the arithmetic
(`gmx.dialect.modes.normalize_index`) and the numpy reference, against
numpy.take(mode=...) and JAX's fill semantics, independent implementations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from gmx.dialect.modes import Mode, normalize_index, parse_mode
from gmx.reference import gather_multiaxis

jnp = pytest.importorskip("jax.numpy")

HYPOTHESIS = settings(derandomize=True, max_examples=40, deadline=None)
VALUES = range(-9, 10)


def test_parse_mode():
    assert parse_mode(None) is Mode.RAISE
    assert parse_mode("clip") is Mode.CLIP and parse_mode(Mode.FILL) is Mode.FILL
    assert str(Mode.WRAP) == "wrap" and Mode.WRAP == "wrap"
    with pytest.raises(ValueError, match="unknown mode 'Wrap'; expected one of 'raise', 'wrap', 'clip', 'fill'"):
        parse_mode("Wrap")


@pytest.mark.parametrize("mode", ["wrap", "clip"])
@pytest.mark.parametrize("size", [1, 3, 4])
def test_normalize_index_is_numpy_take(mode, size):
    axis = np.arange(size)
    for v in VALUES:
        assert normalize_index(v, size, mode) == np.take(axis, v, mode=mode)


@pytest.mark.parametrize("size", [1, 3, 4])
def test_normalize_index_raise_is_numpy_take(size):
    axis = np.arange(size)
    for v in VALUES:
        if -size <= v < size:
            assert normalize_index(v, size) == np.take(axis, v, mode="raise")
        else:
            with pytest.raises(IndexError):
                np.take(axis, v, mode="raise")
            with pytest.raises(IndexError, match=f"index {v} is out of bounds for an axis of size {size}"):
                normalize_index(v, size)


@pytest.mark.parametrize("size", [1, 3])  # jnp.take rejects an axis of size 0
def test_normalize_index_fill_is_jax_take(size):
    got = [normalize_index(v, size, "fill") for v in VALUES]
    expected = jnp.take(jnp.arange(size), jnp.asarray(list(VALUES)), mode="fill", fill_value=-100)
    assert [-100 if g is None else g for g in got] == np.asarray(expected).tolist()


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_size_zero_axis_is_an_error_but_in_fill(mode):
    with pytest.raises(IndexError, match="out of bounds for an axis of size 0"):
        normalize_index(0, 0, mode)
    with pytest.raises(IndexError, match=f"index 1 is out of bounds for axis 0 with size 0"):
        gather_multiaxis(np.zeros((0, 2)), np.array([[1]]), [0], mode=mode)
    # No index values: nothing to reject.
    assert gather_multiaxis(np.zeros((0, 2)), np.zeros((0, 1), np.int64), [0], mode=mode).shape == (0, 2)


def test_size_zero_axis_fills():
    assert [normalize_index(v, 0, "fill") for v in (-1, 0, 1)] == [None, None, None]
    out = gather_multiaxis(np.zeros((0, 2), np.float32), np.array([[1], [-1]]), [0], mode="fill", fill_value=2.5)
    assert_array_equal(out, np.full((2, 2), 2.5, np.float32))
    assert out.dtype == np.float32


# --- the reference against numpy.take and jnp.take ----------------------------


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_reference_is_numpy_take(mode, axis):
    """numpy.take(x, i, axis, mode) is gmx with axes=[axis] after unit dims."""
    rng = np.random.default_rng(axis)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    size = x.shape[axis]
    i = rng.integers(-size if mode == "raise" else -3 * size, size if mode == "raise" else 3 * size, size=6)
    shape = [1, 1, 1]
    shape[axis] = 6
    got = gather_multiaxis(x, i.reshape(shape), [axis], mode=mode)
    assert_array_equal(got, np.take(x, i, axis=axis, mode=mode))


@pytest.mark.parametrize("dtype, fill_value", [(np.float32, -7.5), (np.float32, np.nan), (np.int32, -7), (np.int8, 127)])
@pytest.mark.parametrize("axis", [0, 2])
def test_reference_fill_is_jax_take(dtype, fill_value, axis):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(dtype)
    size = x.shape[axis]
    i = rng.integers(-2 * size, 2 * size, size=8).astype(np.int32)
    shape = [1, 1, 1]
    shape[axis] = 8
    got = gather_multiaxis(x, i.reshape(shape), [axis], mode="fill", fill_value=fill_value)
    expected = jnp.take(jnp.asarray(x), jnp.asarray(i), axis=axis, mode="fill", fill_value=fill_value)
    assert got.dtype == dtype
    assert_array_equal(got, np.asarray(expected))


def test_reference_fill_multiaxis_is_jax_advanced_indexing():
    """x[i, :, j] with out-of-range tuples: JAX's .at[].get(mode='fill')."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    i = np.array([0, 2, -1, 3, -4, 1])
    j = np.array([4, -5, 5, 0, 0, -6])
    got = gather_multiaxis(x, np.stack([i, j], -1).reshape(6, 1, 2), [0, 2], mode="fill", fill_value=-1.0)
    expected = jnp.asarray(x).at[jnp.asarray(i), :, jnp.asarray(j)].get(mode="fill", fill_value=-1.0)
    assert_array_equal(got, np.asarray(expected).reshape(6, 4, 1))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"mode": "fill"}, ValueError, "mode 'fill' requires a fill_value"),
        ({"mode": "wrap", "fill_value": 1}, ValueError, "fill_value is only allowed with mode 'fill', got mode 'wrap'"),
        ({"mode": "nearest"}, ValueError, "unknown mode 'nearest'"),
        ({"mode": "fill", "fill_value": 0.5}, ValueError, r"fill_value 0.5 is not an integer, the dtype is int64"),
        ({"mode": "fill", "fill_value": 1 << 64}, ValueError, "does not fit int64"),
    ],
)
def test_reference_rejects_bad_mode_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        gather_multiaxis(np.arange(4), np.array([1]), [0], **kwargs)


def test_reference_bool_fill_value():
    x = np.array([True, False])
    assert_array_equal(gather_multiaxis(x, np.array([1, 5]), [0], mode="fill", fill_value=True), [False, True])
    with pytest.raises(ValueError, match="fill_value must be 0 or 1 for a bool array, got 2"):
        gather_multiaxis(x, np.array([1]), [0], mode="fill", fill_value=2)


def test_mode_variant_rejects_an_empty_axis():
    from gmx.tools.experiments.variants import StudyError, make_study

    with pytest.raises(StudyError, match="take-clip: the axis 1 has size 0: every index is out of bounds"):
        make_study("take-clip", shape=(4, 0, 6))
    study = make_study("take-fill", shape=(4, 0, 6))  # all fill values
    x, idx = study.inputs()
    assert_array_equal(study.variant.numpy_fn(study)(x, idx), np.ones((4, 3, 6), x.dtype))


@st.composite
def mode_cases(draw):
    """(x, indices, axes, mode) of rank 1..3, values far outside the axes."""
    r = draw(st.integers(1, 3))
    axes = draw(st.permutations(range(r)))[: draw(st.integers(1, r))]
    shape = [draw(st.integers(1, 4)) for _ in range(r)]
    logical = [draw(st.integers(1, 3)) if d in axes else draw(st.sampled_from([shape[d], 1])) for d in range(r)]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    tuples = np.stack([rng.integers(-3 * shape[a], 3 * shape[a], size=logical) for a in axes], -1)
    return (np.arange(np.prod(shape)).reshape(shape), tuples.reshape(*logical[:-1], logical[-1] * len(axes)),
            axes, draw(st.sampled_from(["wrap", "clip", "fill"])))


@HYPOTHESIS
@given(mode_cases())
def test_reference_is_the_scalar_arithmetic(case):
    """Every element of the reference is x at the tuple normalize_index gives."""
    x, idx, axes, mode = case
    out = gather_multiaxis(x, idx, axes, mode=mode, fill_value=-1 if mode == "fill" else None)
    c = len(axes)
    logical = idx.shape[:-1] + (idx.shape[-1] // c,)
    for o in np.ndindex(out.shape):
        q = [o[d] if logical[d] > 1 else 0 for d in range(x.ndim)]
        p = [o[d] if x.shape[d] > 1 else 0 for d in range(x.ndim)]
        filled = False
        for j, a in enumerate(axes):
            v = normalize_index(int(idx[tuple(q[:-1]) + (q[-1] * c + j,)]), x.shape[a], mode)
            filled |= v is None
            p[a] = v
        assert out[o] == (-1 if filled else x[tuple(p)])


def test_every_mode_has_one_row_of_rules():
    from gmx.dialect.modes import RULES

    assert set(RULES) == set(Mode) and all(rule.mode is mode for mode, rule in RULES.items())
    assert [m for m in Mode if RULES[m].maps_into_range] == [Mode.WRAP, Mode.CLIP]


def test_no_mode_spelled_outside_the_mode_table():
    """Modes and reductions are `Mode` / `Reduction` members and their
    `RULES`, never spellings compared or passed around: a string constant
    equal to a mode's or a reduction's spelling in the raising, the
    reference, the study's variants or the study itself is refused."""
    import ast
    from pathlib import Path

    from gmx.dialect.reductions import Reduction

    root = Path(__file__).resolve().parent.parent
    files = [*root.glob("passes/raising/*.py"), *root.glob("reference/*.py"),
             *root.glob("tools/experiments/*variant*.py"), *root.glob("tools/study/*.py")]
    assert root / "tools/study/stages.py" in files and root / "tools/experiments/variants.py" in files
    spellings = {m.value for m in Mode} | {r.value for r in Reduction}
    found = [f"{path.relative_to(root)}:{node.lineno}: {node.value!r}" for path in files
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Constant) and node.value in spellings]
    assert found == []
