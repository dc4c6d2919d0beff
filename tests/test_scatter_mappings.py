"""gmx.reference.scatter_mappings: every known scatter as its gather's
reshapes around scatter_multiaxis, against the libraries themselves
(numpy, torch eager, ONNX's reference evaluator, JAX) on random cases with
many duplicates."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from gmx.dialect.reductions import Reduction
from gmx.dialect.shapes import GatherShapeError, ScatterShapeError
from gmx.reference import (
    advanced_assign,
    advanced_index_plan,
    index_add,
    index_copy,
    index_fill,
    index_put,
    jax_at,
    numpy_assign,
    numpy_put,
    reduction_of_ufunc,
    scatter_elements,
    scatter_nd,
    stablehlo_scatter,
    tensor_scatter,
    tm_tensor_scatter,
    torch_scatter,
    torch_scatter_reduce,
    tosa_scatter,
    tvm_scatter_nd,
    ufunc_at,
)

SEEDS = range(4)


def rng_of(seed):
    return np.random.default_rng(seed)


def data(rng, shape, dtype=np.float32):
    return rng.integers(-9, 10, shape).astype(dtype)


# --- numpy ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
def test_ufunc_at(seed, ufunc):
    rng = rng_of(seed)
    a, i = data(rng, (5, 3)), rng.integers(-5, 5, 7)
    v = data(rng, (7, 3))
    expected = a.copy()
    ufunc.at(expected, i, v)
    assert_array_equal(ufunc_at(ufunc, a, i, v), expected)


def test_reduction_of_ufunc_is_the_table():
    assert reduction_of_ufunc(np.add) is Reduction.ADD
    with pytest.raises(ValueError, match="np.subtract.at is no scatter reduction"):
        reduction_of_ufunc(np.subtract)


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_assign_last_wins(seed):
    rng = rng_of(seed)
    a, i = data(rng, (6, 2)), rng.integers(-6, 6, (3, 4))
    v = data(rng, (3, 4, 2))
    out = numpy_assign(a, i, v)
    expected = a.copy()
    for pos in np.ndindex(i.shape):  # row-major, the last wins
        expected[i[pos]] = v[pos]
    assert_array_equal(out, expected)
    scalar = a.copy()
    scalar[i] = 7
    assert_array_equal(numpy_assign(a, i, 7), scalar)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_numpy_put(mode):
    rng = rng_of(1)
    a = data(rng, (3, 4))
    ind = rng.integers(-12, 12, 5) if mode == "raise" else rng.integers(-30, 30, 5)
    ind = np.unique(ind)  # np.put's winner of duplicates is unspecified
    v = data(rng, ind.shape)
    expected = a.copy()
    np.put(expected, ind, v, mode=mode)
    assert_array_equal(numpy_put(a, ind, v, mode), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_advanced_assign_and_add_at(seed):
    rng = rng_of(seed)
    x = data(rng, (4, 5, 6))
    i, j = rng.integers(-4, 4, 7), rng.integers(-6, 6, 7)
    v = data(rng, (7, 5))
    added = x.copy()
    np.add.at(added, (i, slice(None), j), v)
    assert_array_equal(advanced_assign(x, [0, 2], [i, j], v, Reduction.ADD), added)
    unique = np.unique(np.stack([i % 4, j % 6], -1), axis=0)
    assigned = x.copy()
    assigned[unique[:, 0], :, unique[:, 1]] = v[: len(unique)]
    assert_array_equal(advanced_assign(x, [0, 2], [unique[:, 0], unique[:, 1]], v[: len(unique)]), assigned)


def test_advanced_index_plan_refuses_a_transpose():
    assert advanced_index_plan((4, 5, 6), (0, 2), (3,)).axes == (0, 2)
    with pytest.raises(GatherShapeError, match="a transpose"):
        advanced_index_plan((4, 5, 6, 7), (1, 3), (3,))


# --- torch ------------------------------------------------------------------------

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("seed", SEEDS)
def test_torch_scatter_family(seed):
    rng = rng_of(seed)
    x = data(rng, (4, 6))
    index = rng.integers(0, 6, (3, 5))  # smaller than x on dim 0: a leading slice
    src = data(rng, (4, 5))
    t = torch.tensor
    assert_array_equal(torch_scatter(x, 1, index, src, Reduction.ADD),
                       t(x).scatter_add(1, t(index), t(src)).numpy())
    unique = np.stack([rng.permutation(6)[:5] for _ in range(3)])  # torch.scatter's winner is unspecified
    assert_array_equal(torch_scatter(x, 1, unique, src), t(x).scatter(1, t(unique), t(src)).numpy())
    assert_array_equal(torch_scatter(x, 1, unique, 2.5), t(x).scatter(1, t(unique), 2.5).numpy())


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin", "mean"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_torch_scatter_reduce(reduce, include_self, dtype):
    rng = rng_of(3)
    x, index, src = data(rng, (3, 6), dtype), rng.integers(0, 6, (3, 8)), data(rng, (3, 8), dtype)
    t = torch.tensor
    expected = t(x).scatter_reduce(1, t(index), t(src), reduce, include_self=include_self).numpy()
    assert_array_equal(torch_scatter_reduce(x, 1, index, src, reduce, include_self), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_index_family(seed):
    rng = rng_of(seed)
    x, index = data(rng, (4, 5, 3)), rng.integers(0, 5, 7)
    source = data(rng, (4, 7, 3))
    t = torch.tensor
    assert_array_equal(index_add(x, 1, index, source, alpha=2), t(x).index_add(1, t(index), t(source), alpha=2).numpy())
    assert_array_equal(index_fill(x, 1, index, -1.5), t(x).index_fill(1, t(index), -1.5).numpy())
    unique = rng.permutation(5)[:4]
    assert_array_equal(index_copy(x, 1, unique, source[:, :4]), t(x).index_copy(1, t(unique), t(source[:, :4])).numpy())
    i, j = rng.integers(0, 4, 6), rng.integers(0, 5, 6)
    values = data(rng, (6, 3))
    assert_array_equal(index_put(x, (i, j), values, accumulate=True),
                       t(x).index_put((t(i), t(j)), t(values), accumulate=True).numpy())


# --- ONNX's reference evaluator ------------------------------------------------------


def onnx_run(op_type, inputs, **attributes):
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    node = helper.make_node(op_type, ["data", "indices", "updates"], ["y"], **attributes)
    names = dict(zip(["data", "indices", "updates"], inputs))
    return ReferenceEvaluator(node).run(None, names)[0]


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_onnx_scatter_elements(reduction):
    rng = rng_of(4)
    x, indices = data(rng, (4, 5, 3)), rng.integers(-5, 5, (4, 6, 3))
    if reduction == "none":  # ONNX: duplicates "should not" occur
        indices = np.stack([rng.permutation(5) for _ in range(12)]).reshape(4, 3, 5).transpose(0, 2, 1)
    updates = data(rng, indices.shape)
    expected = onnx_run("ScatterElements", [x, indices, updates], axis=1, reduction=reduction)
    assert_array_equal(scatter_elements(x, indices, updates, 1, reduction), expected)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_onnx_scatter_nd(reduction):
    rng = rng_of(5)
    x = data(rng, (4, 5, 3))
    indices = rng.integers(0, [4, 5], (6, 2)) if reduction != "none" else np.array([[0, 1], [3, 4], [2, 2]])
    updates = data(rng, indices.shape[:-1] + (3,))
    expected = onnx_run("ScatterND", [x, indices, updates], reduction=reduction)
    assert_array_equal(scatter_nd(x, indices, updates, reduction), expected)


# --- JAX ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, "drop", "clip", "promise_in_bounds"])
@pytest.mark.parametrize("method", ["set", "add", "mul", "min", "max"])
def test_jax_at(method, mode):
    jnp = pytest.importorskip("jax.numpy")
    rng = rng_of(6)
    x = data(rng, (5, 3))
    i = rng.integers(-5, 5, 4) if mode == "promise_in_bounds" else rng.integers(-8, 8, 4)
    if method == "set":  # JAX applies duplicates of set in no stated order
        i = rng.permutation(np.arange(-5, 5))[:4] if mode == "promise_in_bounds" else np.array([7, -2, 2, -9])
    v = data(rng, (4, 3))
    expected = getattr(jnp.asarray(x).at[jnp.asarray(i)], method)(jnp.asarray(v), mode=mode)
    assert_array_equal(jax_at(x, i, method, v, mode), np.asarray(expected))


@pytest.mark.parametrize("method", ["set", "add", "max"])
def test_stablehlo_scatter_as_jax_emits_it(method):
    """`jax.jit` of `x.at[i, j].<method>(u)`: the stablehlo.scatter JAX
    emits (tuples into dims 0 and 1, a whole window of dim 2), run by XLA."""
    jax = pytest.importorskip("jax")
    rng = rng_of(8)
    x = data(rng, (4, 5, 3))
    tuples = rng.integers(-6, 6, (6, 2)) if method != "set" else np.array([[0, 1], [3, -1], [9, 0], [2, 2]])
    u = data(rng, (len(tuples), 3))
    jitted = jax.jit(lambda x, t, u: getattr(x.at[t[:, 0], t[:, 1]], method)(u))
    expected = np.asarray(jitted(x, tuples, u))
    reduction = {"set": Reduction.NONE, "add": Reduction.ADD, "max": Reduction.MAX}[method]
    assert_array_equal(stablehlo_scatter(x, tuples, u, [0, 1], reduction, "drop"), expected)


# --- documented examples: TF, TVM, TOSA, tensor.scatter, tm_tensor -------------------


def test_tf_tensor_scatter_nd_documented_examples():
    """tf.tensor_scatter_nd_update / _add / _max / _min, as TensorFlow's
    API pages show them (TensorFlow is not a dependency)."""
    assert_array_equal(scatter_nd(np.ones(8, np.int32), [[4], [3], [1], [7]], [9, 10, 11, 12], "add"),
                       [1, 12, 1, 11, 10, 1, 1, 13])
    assert_array_equal(scatter_nd(np.zeros(8, np.int32), [[1], [4], [5]], [1, -1, 1], "max"),
                       [0, 1, 0, 0, 0, 1, 0, 0])
    assert_array_equal(scatter_nd(np.zeros(8, np.int32), [[1], [4], [5]], [1, -1, 1], "min"),
                       [0, 0, 0, 0, -1, 0, 0, 0])
    assert_array_equal(scatter_nd(np.zeros(8, np.int32), [[4], [3], [1], [7]], [9, 10, 11, 12]),
                       [0, 11, 0, 10, 9, 0, 0, 12])


def test_tvm_scatter_nd_transposed_indices():
    """TVM's formula: output[indices[0, y], indices[1, y], x...] = updates[y, x...]."""
    x = np.zeros((3, 4, 2), np.float32)
    indices = np.array([[0, 2], [3, 1]])  # tuples (0, 3) and (2, 1) in columns
    updates = np.array([[1, 2], [3, 4]], np.float32)
    expected = x.copy()
    expected[0, 3], expected[2, 1] = updates
    assert_array_equal(tvm_scatter_nd(x, indices, updates), expected)


def test_tosa_tensor_and_tm_tensor_scatters():
    rng = rng_of(7)
    values = data(rng, (2, 5, 3))
    indices = np.array([[4, 0], [1, 3]])
    updates = data(rng, (2, 2, 3))
    expected = values.copy()
    for n in range(2):
        expected[n, indices[n]] = updates[n]
    assert_array_equal(tosa_scatter(values, indices, updates), expected)
    dest, tuples = data(rng, (4, 5, 6)), np.array([[[1, 5]], [[3, 0]]])  # B = [2, 1], scatter_dims [0, 2]
    source = data(rng, (2, 1, 1, 5, 1))
    expected = dest.copy()
    expected[tuples[..., 0], :, tuples[..., 1]] = source.reshape(2, 1, 5)
    assert_array_equal(tensor_scatter(source, dest, tuples, [0, 2]), expected)
    nd, rows = np.array([[1, 2], [1, 2]]), data(rng, (2, 6))  # a duplicate: added in order
    expected = dest.copy()
    for n in range(2):
        expected[nd[n, 0], nd[n, 1]] += rows[n]
    assert_array_equal(tm_tensor_scatter(dest, nd, rows, [0, 1], Reduction.ADD), expected)
    with pytest.raises(ScatterShapeError, match="leading dims"):
        tm_tensor_scatter(dest, nd, rows, [1, 2])


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: scatter_elements(np.zeros((2, 3)), [[0, 1, 2, 0]], [[1, 2, 3, 4]], 0), ScatterShapeError,
         "indices dim 1 has size 4, larger than input dim 1 of size 3"),
        (lambda: scatter_elements(np.zeros((2, 3)), [0, 1], [1, 2], 0), ScatterShapeError, "rank 1 must equal"),
        (lambda: scatter_elements(np.zeros((2, 3)), [[0, 3]], [[1.0, 2.0]], 1), IndexError,
         "index 3 is out of bounds for axis 1 with size 3"),
        (lambda: numpy_put(np.zeros(4), [0], [1.0], "fill"), ValueError, "'fill' is not a scatter mode"),
        (lambda: scatter_nd(np.zeros(4), [[0]], [1.0], "sum"), ValueError, "unknown reduction 'sum'"),
        (lambda: torch_scatter_reduce(np.zeros(4), 0, [0], [1.0], "add"), ValueError,
         "unknown torch's reduce 'add'; expected one of 'sum', 'prod', 'amax', 'amin', 'mean'"),
        (lambda: jax_at(np.zeros(4), [0], "put", [1.0]), ValueError, "unknown JAX's .at.. method 'put'"),
        (lambda: jax_at(np.zeros(4), [0], "set", [1.0], "wrap"), ValueError, "unknown JAX's mode 'wrap'"),
        (lambda: tensor_scatter(np.zeros((2, 4, 1)), np.zeros((3, 4, 5)), [[1], [2]], [2, 0]), ScatterShapeError,
         "do not start at dim 0"),
        (lambda: tensor_scatter(np.zeros((2, 4, 1, 1)), np.zeros((3, 4, 5)), [[1, 1], [2, 2]], [1, 2]),
         ScatterShapeError, "a transpose"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
