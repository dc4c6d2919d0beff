"""gmx.reference.scatter_multiaxis: the numpy reference of docs/semantics.md#scatters,
against its definition written out literally and against the libraries
whose scatters it generalises (numpy, PyTorch eager, ONNX's reference
evaluator)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from gmx.dialect.modes import Mode, OpKind, modes_of, normalize_index
from gmx.dialect.reductions import RULES as REDUCTION_RULES
from gmx.dialect.reductions import Reduction
from gmx.dialect.shapes import GatherShapeError, ScatterShapeError, ShapeError, infer_output_shape
from gmx.reference import gather_multiaxis, scatter_multiaxis


def definition(x, idx, upd, axes, mode="raise", reduction="none"):
    """docs/semantics.md#scatters written out literally: one update at a
    time, in row-major order of the gathered shape G."""
    r, c = x.ndim, max(len(axes), 1)
    logical = idx.shape[:-1] + (idx.shape[-1] // c,) if r else ()
    gathered = infer_output_shape(x.shape, idx.shape, axes)
    out = x.copy()
    ufunc = REDUCTION_RULES[Reduction(reduction)].ufunc
    for o in np.ndindex(*gathered):
        p = [o[d] if x.shape[d] > 1 else 0 for d in range(r)]
        q = [o[d] if logical[d] > 1 else 0 for d in range(r)]
        skipped = False
        for j, axis in enumerate(axes):
            v = normalize_index(int(idx[tuple(q[:-1]) + (q[-1] * c + j,)]), x.shape[axis], mode)
            skipped |= v is None
            p[axis] = v
        if skipped:
            continue
        u = upd[tuple(o[d] if upd.shape[d] > 1 else 0 for d in range(r))]
        out[tuple(p)] = u if ufunc is None else ufunc(out[tuple(p)], u)
    return out


def _case(seed):
    """A random scatter: rank 1-4, permuted and non-contiguous axes,
    broadcast dims on both sides, broadcast updates, many duplicates,
    values in and around range, a scatter mode and a reduction."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 5))
    k = int(rng.integers(0, r + 1))
    axes = [int(a) for a in rng.permutation(r)[:k]]
    shape = [int(rng.integers(1, 5)) for _ in range(r)]
    logical = [int(rng.integers(1, 4)) if d in axes else (shape[d] if rng.random() < 0.6 else 1) for d in range(r)]
    if rng.random() < 0.3:  # the input broadcasts against the indices too
        d = int(rng.integers(r))
        if d not in axes:
            shape[d], logical[d] = 1, int(rng.integers(1, 4))
    mode = str(rng.choice(modes_of(OpKind.SCATTER)))
    lo, hi = (-8, 9) if mode != "raise" else (-1, 1)
    idx = rng.integers(lo, hi, size=(*logical[:-1], logical[-1] * max(k, 1)))
    if mode == "raise":  # in range, negatives included
        for j, axis in enumerate(axes):
            idx.reshape(*logical, max(k, 1))[..., j] = rng.integers(-shape[axis], shape[axis], logical)
    gathered = infer_output_shape(shape, idx.shape, axes)
    upd_shape = [g if rng.random() < 0.8 else 1 for g in gathered]
    dtype = rng.choice([np.float32, np.float64, np.int32, np.int8])
    x = rng.integers(-5, 6, shape).astype(dtype)
    upd = rng.integers(-5, 6, upd_shape).astype(dtype)
    reduction = str(rng.choice([r.value for r in Reduction]))
    if reduction == "mul":  # keep products small and exact
        upd = np.clip(upd, -2, 2)
    return x, idx, upd, axes, mode, reduction


@pytest.mark.parametrize("seed", range(150))
def test_matches_definition(seed):
    x, idx, upd, axes, mode, reduction = _case(seed)
    assert_array_equal(scatter_multiaxis(x, idx, upd, axes, mode, reduction),
                       definition(x, idx, upd, axes, mode, reduction))


def test_onnx_scatter_elements_examples():
    """The ONNX ScatterElements page's examples (axis 0 and axis 1)."""
    data = np.zeros((3, 3), np.float32)
    indices = np.array([[1, 0, 2], [0, 2, 1]])
    updates = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)
    assert_array_equal(scatter_multiaxis(data, indices, updates, [0]),
                       np.array([[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]], np.float32))
    data = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32)
    assert_array_equal(scatter_multiaxis(data, np.array([[1, 3]]), np.array([[1.1, 2.1]], np.float32), [1]),
                       np.array([[1.0, 1.1, 3.0, 2.1, 5.0]], np.float32))


def test_onnx_scatter_nd_examples():
    """The ONNX ScatterND page's examples: ScatterND with index depth T is
    `axes = [0..T-1]` after giving the indices the updates' trailing unit dims."""
    data = np.arange(1, 9, dtype=np.float32)
    out = scatter_multiaxis(data, np.array([4, 3, 1, 7]), np.array([9, 10, 11, 12], np.float32), [0])
    assert_array_equal(out, np.array([1, 11, 3, 10, 9, 6, 7, 12], np.float32))
    data = np.array([[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]]] * 2 * 2, np.float32).reshape(4, 4, 4)
    updates = np.array([[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
                        [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]], np.float32)
    out = scatter_multiaxis(data, np.array([[[0]], [[2]]]), updates, [0])
    expected = data.copy()
    expected[0], expected[2] = updates
    assert_array_equal(out, expected)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_onnx_reference_evaluator_scatter_elements(reduction):
    """ONNX's own reference evaluator, ScatterElements-18 with each reduction, duplicates included."""
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(7)
    data = rng.integers(-4, 5, (3, 5)).astype(np.float32)
    indices = rng.integers(-5, 5, (3, 4)).astype(np.int64)
    updates = rng.integers(-4, 5, (3, 4)).astype(np.float32)
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1,
                            **({} if reduction == "none" else {"reduction": reduction}))
    f = TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", f, [3, 5]),
                                            helper.make_tensor_value_info("i", TensorProto.INT64, [3, 4]),
                                            helper.make_tensor_value_info("u", f, [3, 4])],
                              [helper.make_tensor_value_info("y", f, [3, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": data, "i": indices, "u": updates})
    if reduction == "none":  # ONNX leaves duplicates unspecified: compare rows without them
        unique = [len(set(np.mod(row, 5))) == len(row) for row in indices]
        data, indices, updates, expected = data[unique], indices[unique], updates[unique], expected[unique]
    assert_array_equal(scatter_multiaxis(data, indices, updates, [1], reduction=reduction), expected)


def test_numpy_assignment_last_wins():
    """numpy's `a[i] = v` with duplicate indices: the last update wins."""
    a = np.zeros(5, np.int32)
    i = np.array([1, 3, 1, 1, -1])
    v = np.array([10, 20, 30, 40, 50], np.int32)
    expected = a.copy()
    expected[i] = v
    assert_array_equal(scatter_multiaxis(a, i, v, [0]), expected)
    assert scatter_multiaxis(a, i, v, [0])[1] == 40


@pytest.mark.parametrize("reduction,ufunc", [("add", np.add), ("mul", np.multiply),
                                             ("max", np.maximum), ("min", np.minimum)])
def test_float_reductions_equal_ufunc_at_bit_for_bit(reduction, ufunc):
    """Duplicates combine in row-major order: float sums are np.add.at's bits
    (a pairwise or reordered sum would differ in the last bits), and NaN
    propagates through max and min."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(17).astype(np.float32)
    i = rng.integers(0, 17, 5000)
    u = (rng.standard_normal(5000) * 1e3).astype(np.float32)
    if reduction == "mul":
        u = (1 + u * 1e-6).astype(np.float32)
    u[123] = np.nan
    expected = x.copy()
    with np.errstate(invalid="ignore"):
        ufunc.at(expected, i, u)
    got = scatter_multiaxis(x, i, u, [0], reduction=reduction)
    assert got.tobytes() == expected.tobytes()
    assert np.isnan(got[i[123]])


def test_torch_scatter_family():
    """torch.scatter / scatter_add / scatter_reduce(include_self=True) /
    index_add / index_put(accumulate) / x[i, :, j] = v, against PyTorch eager."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    x = rng.integers(-9, 10, (4, 6)).astype(np.float64)
    idx = np.stack([rng.permutation(6)[:3] for _ in range(4)])  # unique per row: scatter_ is then defined
    src = rng.integers(-9, 10, (4, 3)).astype(np.float64)
    tx, ti, ts = map(torch.from_numpy, (x, idx, src))
    assert_array_equal(scatter_multiaxis(x, idx, src, [1]), tx.scatter(1, ti, ts).numpy())
    dup = rng.integers(0, 6, (4, 5))
    src5 = rng.integers(-3, 4, (4, 5)).astype(np.float64)
    td, t5 = torch.from_numpy(dup), torch.from_numpy(src5)
    assert_array_equal(scatter_multiaxis(x, dup, src5, [1], reduction="add"), tx.scatter_add(1, td, t5).numpy())
    for reduction, name in (("mul", "prod"), ("max", "amax"), ("min", "amin"), ("add", "sum")):
        assert_array_equal(scatter_multiaxis(x, dup, src5, [1], reduction=reduction),
                           tx.scatter_reduce(1, td, t5, name, include_self=True).numpy())
    # index_add_(0, rows, source): axes [0] with the rows as an [n, 1] index column.
    rows = np.array([2, 0, 2, 3, 2])
    source = rng.integers(-9, 10, (5, 6)).astype(np.float64)
    assert_array_equal(scatter_multiaxis(x, rows[:, None], source, [0], reduction="add"),
                       tx.index_add(0, torch.from_numpy(rows), torch.from_numpy(source)).numpy())
    # x[i, :, j] = v and index_put(accumulate=True): axes [0, 2].
    x3 = rng.integers(-9, 10, (4, 5, 6)).astype(np.float32)
    i = np.array([0, 3, 0])
    j = np.array([5, 1, 5])
    v = rng.integers(-9, 10, (3, 5)).astype(np.float32)
    ij = np.stack([i, j], -1)[:, None, :]  # [3, 1, 2]: tuples (i, j), one per row
    t3 = torch.from_numpy(x3.copy())
    t3.index_put_((torch.from_numpy(i)[:, None], torch.arange(5)[None, :], torch.from_numpy(j)[:, None]),
                  torch.from_numpy(v), accumulate=True)
    assert_array_equal(scatter_multiaxis(x3, ij, v[:, :, None], [0, 2], reduction="add"), t3.numpy())
    t3 = torch.from_numpy(x3.copy())
    t3[torch.tensor([1, 2]), :, torch.tensor([4, 0])] = 0.0
    ij = np.array([[[1, 4]], [[2, 0]]])
    assert_array_equal(scatter_multiaxis(x3, ij, np.zeros((1, 1, 1), np.float32), [0, 2]), t3.numpy())


def test_scatter_inverts_gather_at_unique_positions():
    """Scattering what the gather read back to where it read it is the identity."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 4, 6)).astype(np.float32)
    ij = np.stack([rng.permutation(5)[:3], rng.permutation(6)[:3]], -1)[:, None, :]
    g = gather_multiaxis(x, ij, [0, 2])
    assert_array_equal(scatter_multiaxis(np.zeros_like(x), ij, g, [0, 2]) != 0,
                       scatter_multiaxis(np.zeros_like(x), ij, np.ones_like(g), [0, 2]) != 0)
    assert_array_equal(scatter_multiaxis(x, ij, g, [0, 2]), x)


def test_modes():
    x = np.zeros(5, np.int64)
    i = np.array([-1, 5, 7, -6, 2])
    u = np.array([1, 2, 3, 4, 5], np.int64)
    assert_array_equal(scatter_multiaxis(x, i, u, [0], Mode.DROP), [0, 0, 5, 0, 1])
    assert_array_equal(scatter_multiaxis(x, i, u, [0], Mode.SKIP), [0, 0, 5, 0, 0])  # -1 skipped, not wrapped
    assert_array_equal(scatter_multiaxis(x, i.astype(np.uint8), u, [0], Mode.SKIP), [0, 0, 5, 0, 0])
    assert_array_equal(scatter_multiaxis(x, i, u, [0], "clip"), [4, 0, 5, 0, 3])
    assert_array_equal(scatter_multiaxis(x, i, u, [0], "wrap", "add"), [2, 0, 8, 0, 5])
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        scatter_multiaxis(x, i, u, [0])
    with pytest.raises(ValueError, match="mode 'fill' is not a scatter mode"):
        scatter_multiaxis(x, i, u, [0], "fill")
    # drop on an empty axis skips every update; the other modes refuse it.
    assert scatter_multiaxis(np.zeros(0), np.array([0, 1]), np.ones(2), [0], "drop").shape == (0,)
    with pytest.raises(IndexError, match="size 0"):
        scatter_multiaxis(np.zeros(0), np.array([0, 1]), np.ones(2), [0], "clip")


def test_input_untouched_and_result_new():
    x = np.arange(6.0).reshape(2, 3)
    x.setflags(write=False)
    out = scatter_multiaxis(x, np.array([[0], [2]]), np.array([[9.0], [8.0]]), [1])
    assert out is not x and out.flags.writeable and not np.shares_memory(out, x)
    assert_array_equal(x, np.arange(6.0).reshape(2, 3))
    assert_array_equal(out, [[9, 1, 2], [3, 4, 8]])


def test_rank0():
    assert scatter_multiaxis(np.array(3.0), np.zeros((), np.int64), np.array(2.0), [], reduction="mul") == 6.0
    assert scatter_multiaxis(np.array(3.0), np.zeros((), np.int64), np.array(2.0), []) == 2.0


def test_bool_and_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    m = np.array([False, False, True])
    assert_array_equal(scatter_multiaxis(m, np.array([0, 0, 2]), np.array([True, False, False]), [0],
                                         reduction="max"), [True, False, True])
    assert_array_equal(scatter_multiaxis(m, np.array([2, 0]), np.array([False, True]), [0], reduction="min"),
                       [False, False, False])
    with pytest.raises(ValueError, match="'add' is not defined on bool"):
        scatter_multiaxis(m, np.array([0]), np.array([True]), [0], reduction="add")
    bf = np.array([1, 2, 3], ml_dtypes.bfloat16)
    out = scatter_multiaxis(bf, np.array([0, 0]), np.array([0.5, 0.25], ml_dtypes.bfloat16), [0], reduction="add")
    assert out.dtype == bf.dtype and float(out[0]) == 1.75


@pytest.mark.parametrize("x_shape,i_shape,u_shape,axes,error,message", [
    ((4, 3), (2, 3), (6,), [0], ScatterShapeError, r"updates must have rank 2 \(the input's\), got rank 1"),
    ((4, 3), (2, 3), (2, 2), [0], ScatterShapeError, r"updates dim 1 has size 2; it must be 3"),
    ((4, 3), (2, 2), (2, 2), [0], GatherShapeError, "non-axis dim 1 is not broadcastable"),
    ((4, 3), (2, 3), (2, 3), [2], GatherShapeError, r"axis 2 is out of range \[0, 2\)"),
])
def test_shape_errors(x_shape, i_shape, u_shape, axes, error, message):
    with pytest.raises(error, match=message) as raised:
        scatter_multiaxis(np.zeros(x_shape), np.zeros(i_shape, np.int64), np.zeros(u_shape), axes)
    assert isinstance(raised.value, ShapeError) and isinstance(raised.value, ValueError)


def test_type_errors():
    with pytest.raises(TypeError, match="indices must have an integer dtype"):
        scatter_multiaxis(np.zeros(3), np.zeros(1), np.zeros(1), [0])
    with pytest.raises(TypeError, match="updates must have the dtype of input, float64, got float32"):
        scatter_multiaxis(np.zeros(3), np.zeros(1, int), np.zeros(1, np.float32), [0])
    with pytest.raises(ValueError, match="unknown reduction 'sum'"):
        scatter_multiaxis(np.zeros(3), np.zeros(1, int), np.zeros(1), [0], reduction="sum")


@pytest.mark.parametrize("reduction", list(Reduction))
def test_idempotent_reductions_write_their_first_result_again(reduction):
    """`ReductionRule.idempotent` (read by gmx-bench: a donated input it
    needs not reset) holds exactly for the reductions whose second
    application of the same updates keeps the first result's bits, NaN and
    duplicates included."""
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 5, (6, 5)).astype(np.float32)
    upd = rng.integers(-4, 5, (6, 8)).astype(np.float32)
    upd[0, 0], upd[2, 3] = np.nan, np.inf
    idx = rng.integers(0, 5, (6, 8))  # 8 updates into 5 positions a row: duplicates
    once = scatter_multiaxis(x, idx, upd, axes=[1], reduction=reduction.value)
    twice = scatter_multiaxis(once, idx, upd, axes=[1], reduction=reduction.value)
    assert (once.tobytes() == twice.tobytes()) == REDUCTION_RULES[reduction].idempotent
