"""raise-linalg-gather and raise-tensor-gather (`--gmx-canonicalize`): gathers
spelled in linalg-on-tensors and as `tensor.gather` become gmx ops.

- The decisions as pure functions: which index read is a view, which unit
  dims pair, which position function is which mode, which assert only
  rejects what gmx rejects, tensor.gather's coordinates.
- The torch corpus (`torch_corpus.CORPUS`) exported by torch-mlir as
  linalg-on-tensors: one gmx op per gather, no `tensor.extract` left,
  bit-exact against PyTorch eager; and dynamic-shape exports run at two
  sizes each.
- Upstream's tosa-to-linalg (against numpy), stablehlo-legalize-to-linalg
  (mode clip, against StableHLO's reference interpreter) and tensor.gather
  (against a numpy reading of its documented semantics).
"""

from __future__ import annotations

import numpy as np
import pytest

import gmx.runtime
from gmx.dialect import OP_NAME, make_context
from gmx.dialect.mlir import ir, passmanager
from gmx.passes.patterns import NoMatch
from gmx.passes.raising.gather_spec import Iota, Zero
from gmx.passes.raising.index_maps import clamps_like_gmx, position_mode
from gmx.passes.raising.integer_ops import evaluate_op
from gmx.passes.raising.linalg_gathers import check_accepts_valid
from gmx.passes.raising.loop_gathers import indexed_form, pair_unit_dims
from gmx.passes.raising.tensor_gathers import tensor_gather_coords
from gmx.tools.experiments.pipelines import run_pipeline

# --- decisions, without IR -----------------------------------------------------------------------


def test_indexed_form_reads_views_of_the_index_tensor():
    # torch's broadcast of a unit dim: (d0, d1) -> (d0, 0)
    assert indexed_form((("loop", 0), ("at", 0)), [3, 1], 2) == ((True, False), 0, 1)
    # StableHLO's tuple component 1 of a 3x2 tensor
    assert indexed_form((("loop", 0), ("at", 1)), [3, 2], 2) == ((True, False), 1, 2)
    assert indexed_form((("loop", 1),), [None], 3) == ((False, True, False), 0, 1)


@pytest.mark.parametrize("dims, shape, why", [
    ((("loop", 1), ("loop", 0)), [3, 2], "permuted"),
    ((("loop", 0), ("loop", 0)), [3, 3], "repeated"),
    ((("at", 1), ("loop", 0)), [2, 3], "constant position"),
    ((("loop", 0), ("at", 2)), [3, 2], "constant position"),
    ((("loop", 0), ("at", 0)), [3, None], "constant position"),
])
def test_indexed_form_refuses_what_is_no_view(dims, shape, why):
    with pytest.raises(NoMatch, match=why):
        indexed_form(dims, shape, 2)


def test_pair_unit_dims():
    indexed = object()
    assert pair_unit_dims([indexed, Zero()], [7, 1]) == [indexed, Iota(1)]
    # the output dim lined up with it is not a unit dim
    assert pair_unit_dims([indexed, Zero()], [7, 3]) == [indexed, Zero()]
    # an iota already reads that dim
    assert pair_unit_dims([Iota(1), Zero()], [7, 1]) == [Iota(1), Zero()]
    # right-aligned: the embedding's extra leading output dim
    assert pair_unit_dims([Zero(), Iota(2)], [2, 1, 4]) == [Iota(1), Iota(2)]
    # pairing would put two iotas out of order
    assert pair_unit_dims([Iota(1), Zero()], [1, 5]) == [Iota(1), Zero()]


def _normalise(t, size):
    return np.where(t < 0, t + size, t)


def _floor_mod(t, size):
    return np.mod(t, size)


@pytest.mark.parametrize("function, mode", [
    (lambda t, n: t, "raise"),  # tosa-to-linalg: no normalisation, out of range undefined
    (_normalise, "raise"),  # TorchToLinalg's select
    (lambda t, n: np.clip(t, 0, n - 1), "clip"),  # StableHLO's clamp
    (lambda t, n: np.minimum(np.maximum(t, 0), n - 1), "clip"),
    (_floor_mod, "wrap"),  # numpy's take(mode="wrap"), take_along_dim
    (lambda t, n: np.fmod(t, n), None),  # a truncating remainder reads -1 as -1
    (lambda t, n: np.clip(t, 0, n - 2), None),  # a clamp to the wrong bound
    (lambda t, n: t + 1, None),
    (lambda t, n: np.where(t < 0, t + 2 * n, t), None),  # wraps [-2n, -n) into range
])
@pytest.mark.parametrize("size", [2, 5, 64])
def test_position_mode(function, mode, size):
    assert position_mode(lambda t: function(t, size), 64, size) == mode


def test_position_mode_on_a_unit_dim():
    """On a dim of 1 a floor modulo is a clamp (both read 0 for any index)."""
    assert position_mode(lambda t: _floor_mod(t, 1), 64, 1) == "clip"
    assert position_mode(lambda t: _normalise(t, 1), 64, 1) == "raise"


def test_clamps_like_gmx_looks_beyond_the_valid_range():
    assert clamps_like_gmx(lambda t: np.clip(t, 0, 4), 32, 5)
    # equal on [-size, size), different far out
    assert not clamps_like_gmx(lambda t: np.where(t > 100, 0, np.clip(t, 0, 4)), 32, 5)


def test_check_accepts_valid():
    assert check_accepts_valid(lambda t: t < 5, 5)
    assert check_accepts_valid(lambda t: t >= 0, 5)
    assert not check_accepts_valid(lambda t: t < 3, 5)


def test_evaluate_op_follows_mlir_integer_semantics():
    t = np.array([-3, -1, 0, 4], dtype=np.int64)
    predicates = {"slt": 2, "sge": 5, "ult": 6}
    assert list(evaluate_op("arith.cmpi", [t, np.int64(0)], 1, 64, predicates["slt"])) == [True, True, False, False]
    assert list(evaluate_op("arith.cmpi", [t, np.int64(0)], 1, 64, predicates["sge"])) == [False, False, True, True]
    # unsigned: negative values are huge
    assert list(evaluate_op("arith.cmpi", [t, np.int64(5)], 1, 32, predicates["ult"])) == [False, False, True, True]
    assert list(evaluate_op("arith.remsi", [t, np.int64(2)], 64, 64)) == [-1, -1, 0, 0]
    assert list(evaluate_op("arith.divsi", [t, np.int64(2)], 64, 64)) == [-1, 0, 0, 2]
    assert list(evaluate_op("arith.floordivsi", [t, np.int64(2)], 64, 64)) == [-2, -1, 0, 2]
    assert list(evaluate_op("arith.trunci", [np.array([255, 128])], 8, 32)) == [-1, -128]
    assert list(evaluate_op("arith.index_castui", [np.array([-1])], 64, 32)) == [(1 << 32) - 1]
    big = np.array([(1 << 62) + 1, -(1 << 62) - 1], dtype=np.int64)  # exact, no float rounding
    assert list(evaluate_op("arith.divsi", [big, np.int64(3)], 64, 64)) == [((1 << 62) + 1) // 3, -(((1 << 62) + 1) // 3)]
    assert list(evaluate_op("arith.cmpi", [np.array([-1, 1]), np.int64(2)], 1, 64, predicates["ult"])) == [False, True]


def test_tensor_gather_coords():
    assert tensor_gather_coords(3, 1, [0, 2], True) == [("index", 0), Iota(1), ("index", 1)]
    assert tensor_gather_coords(3, 1, [1], False) == [Iota(1), ("index", 0), Iota(3)]
    assert tensor_gather_coords(2, 2, [1, 0], True) == [("index", 1), ("index", 0)]


# --- the torch corpus as linalg-on-tensors -------------------------------------------------------

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir.fx")

from gmx.tools.experiments.frontends import FrontendError, torch_export  # noqa: E402
from torch_corpus import CORPUS, assert_bitwise_equal, eager, exported, numpy_inputs  # noqa: E402

# x[::2] is a gather in TorchToTosa (a tosa.gather of constant rows), a
# strided tensor.extract_slice in TorchToLinalg: one gather less.
LINALG_GATHERS = {"slice_step2_then_adv": 1}
# TorchToLinalg (torch-mlir 20261001) builds an invalid arith.cmpi for
# advanced indexing with i32 index tensors: 'requires all operands to have the same type'.
NO_LINALG_EXPORT = {"embed_idx2d_i32_f16", "adv2_noncontig_idx_i32"}


def linalg_export(name: str) -> str:
    """The program as linalg-on-tensors (`torch_corpus.exported`: the run's one import, lowered)."""
    return exported(name, "linalg-on-tensors")


def _corpus_params() -> list:
    broken = pytest.mark.xfail(strict=True, raises=FrontendError, reason="TorchToLinalg's invalid cmpi on i32 indices")
    return [pytest.param(program, id=program.name, marks=broken if program.name in NO_LINALG_EXPORT else ())
            for program in CORPUS]


def assert_raised(counts, gathers: int, what: str) -> None:
    """`gathers` gmx ops and nothing gather-like (no element read in a body) left."""
    assert counts[OP_NAME] == gathers, f"{what}: {counts[OP_NAME]} gmx ops, expected {gathers}"
    assert counts["tensor.extract"] == 0, f"{what}: a gather-like linalg.generic is left"
    assert counts["tensor.gather"] == 0, f"{what}: a tensor.gather is left"


@pytest.mark.parametrize("program", _corpus_params())
def test_linalg_corpus_raises_and_matches_eager(program):
    fused = run_pipeline(linalg_export(program.name), ["gmx-canonicalize"])
    assert_raised(fused.counts, LINALG_GATHERS.get(program.name, program.gathers), program.name)
    result = gmx.runtime.run(fused.text, *numpy_inputs(program))
    assert_bitwise_equal(result, eager(program), f"{program.name} as linalg-on-tensors")


def test_unraised_linalg_export_matches_eager():
    """The reference itself: the export without the pass computes eager's
    result (the gmx ops are compared to PyTorch, not to themselves)."""
    program = next(p for p in CORPUS if p.name == "adv2_noncontig")
    text = linalg_export(program.name)
    assert run_pipeline(text, []).counts[OP_NAME] == 0
    assert_bitwise_equal(gmx.runtime.run(text, *numpy_inputs(program)), eager(program), "unraised")


# (forward, example inputs, dynamic dims per input, other inputs of other sizes)
DYNAMIC = {
    "embedding_ids": (lambda w, i: w[i], (torch.randn(10, 4), torch.randint(-10, 10, (2, 3))),
                      [None, {0: "b", 1: "n"}], (torch.randn(10, 4), torch.randint(-10, 10, (5, 7)))),
    "embedding_table": (lambda w, i: w[i], (torch.randn(10, 4), torch.randint(-10, 10, (2, 3))),
                        [{0: "v"}, {0: "b"}], (torch.randn(13, 4), torch.randint(-13, 13, (4, 3)))),
    "gather_batch": (lambda x, i: torch.gather(x, 1, i), (torch.randn(4, 5), torch.randint(0, 5, (4, 7))),
                     [{0: "b"}, {0: "b", 1: "n"}], (torch.randn(6, 5), torch.randint(0, 5, (6, 2)))),
    "gather_smaller_batch": (lambda x, i: torch.gather(x, 1, i), (torch.randn(4, 5), torch.randint(0, 5, (3, 7))),
                             [{0: "b"}, {0: "c", 1: "n"}], (torch.randn(6, 5), torch.randint(0, 5, (2, 9)))),
    "index_select": (lambda x, i: torch.index_select(x, 1, i), (torch.randn(4, 5, 6), torch.randint(0, 5, (7,))),
                     [{0: "b"}, {0: "n"}], (torch.randn(2, 5, 6), torch.randint(0, 5, (11,)))),
}


@pytest.mark.parametrize("name", list(DYNAMIC))
def test_dynamic_linalg_exports(name):
    forward, inputs, dims, other = DYNAMIC[name]
    text = torch_export(forward, inputs, dims, output_type="linalg-on-tensors")
    assert "?" in text
    fused = run_pipeline(text, ["gmx-canonicalize"])
    assert_raised(fused.counts, 1, name)
    run = gmx.runtime.compile(fused.text)
    for args in (inputs, other):
        expected = forward(*args).numpy()
        np.testing.assert_array_equal(run(*[a.numpy() for a in args]), expected)


# --- upstream's lowerings of other frontends' gathers ------------------------------------------


def _lowered(text: str, pipeline: str, stablehlo: bool = False) -> str:
    with make_context() as context:
        if stablehlo:
            from torch_mlir._mlir_libs import _stablehlo

            _stablehlo.register_dialect(context)
            _stablehlo.register_stablehlo_passes()
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(pipeline).run(module.operation)
        return str(module)


TOSA_GATHERS = """
func.func @static(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
func.func @dynamic(%v: tensor<?x5x3xf32>, %i: tensor<?x?xi32>) -> tensor<?x?x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<?x5x3xf32>, tensor<?x?xi32>) -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}
"""


@pytest.fixture(scope="module")
def tosa_to_linalg():
    text = _lowered(TOSA_GATHERS, "builtin.module(func.func(tosa-to-linalg))")
    fused = run_pipeline(text, ["gmx-canonicalize"])
    return fused, gmx.runtime.compile(fused.text, entry="static"), gmx.runtime.compile(fused.text, entry="dynamic")


@pytest.mark.parametrize("n, w", [(2, 4), (3, 7)])
def test_tosa_to_linalg_gather(tosa_to_linalg, n, w):
    fused, static, dynamic = tosa_to_linalg
    assert_raised(fused.counts, 2, "tosa-to-linalg")
    rng = np.random.default_rng(n)
    v = rng.standard_normal((n, 5, 3)).astype(np.float32)
    i = rng.integers(0, 5, (n, w)).astype(np.int32)
    expected = v[np.arange(n)[:, None], i]  # tosa.gather: out[n, w, c] = v[n, i[n, w], c]
    np.testing.assert_array_equal(dynamic(v, i), expected)
    if (n, w) == (2, 4):
        np.testing.assert_array_equal(static(v, i), expected)
    with pytest.raises(IndexError):  # undefined in TOSA, gmx's checked raise mode
        dynamic(v, np.full((n, w), 5, np.int32))


STABLEHLO_GATHER = """
func.func @main(%x: tensor<4x5x6xf32>, %i: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1],
      collapsed_slice_dims = [0, 2], start_index_map = [0, 2], index_vector_dim = 1>,
      slice_sizes = array<i64: 1, 5, 1>, indices_are_sorted = false} : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
"""


def _stablehlo_reference(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    """StableHLO's reference interpreter on the gather itself."""
    from torch_mlir._mlir_libs import _stablehlo

    with make_context() as context:
        _stablehlo.register_dialect(context)
        module = ir.Module.parse(STABLEHLO_GATHER)
        args = [ir.DenseElementsAttr.get(np.ascontiguousarray(a)) for a in (x, i)]
        (result,) = _stablehlo.eval_module(module, args)
        return np.array(ir.DenseElementsAttr(result))


def test_stablehlo_legalize_to_linalg_gather_is_clip_mode():
    text = _lowered(STABLEHLO_GATHER, "builtin.module(stablehlo-legalize-to-linalg)", stablehlo=True)
    fused = run_pipeline(text, ["gmx-canonicalize"])
    assert_raised(fused.counts, 1, "stablehlo-legalize-to-linalg")
    assert 'mode = "clip"' in fused.text
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    i = np.array([[-7, 2], [3, 9], [1, -1]], dtype=np.int32)  # clamped: out of range both ways
    np.testing.assert_array_equal(gmx.runtime.run(fused.text, x, i), _stablehlo_reference(x, i))


FLOOR_MOD_GATHER = """
func.func @main(%x: tensor<4x5xf32>, %i: tensor<6xi64>) -> tensor<6x5xf32> {
  %c4 = arith.constant 4 : i64
  %c0 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<6x5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%i : tensor<6xi64>) outs(%0 : tensor<6x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %r = arith.remsi %in, %c4 : i64
    %n = arith.cmpi slt, %r, %c0 : i64
    %a = arith.addi %r, %c4 : i64
    %m = arith.select %n, %a, %r : i64
    %p = arith.index_cast %m : i64 to index
    %d = linalg.index 1 : index
    %e = tensor.extract %x[%p, %d] : tensor<4x5xf32>
    linalg.yield %e : f32
  } -> tensor<6x5xf32>
  return %1 : tensor<6x5xf32>
}
"""


def test_floor_modulo_generic_is_wrap_mode():
    fused = run_pipeline(FLOOR_MOD_GATHER, ["gmx-canonicalize"])
    assert_raised(fused.counts, 1, "floor modulo")
    assert 'mode = "wrap"' in fused.text
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    i = np.array([-9, -4, -1, 0, 7, 13], dtype=np.int64)
    expected = np.take(x, i, axis=0, mode="wrap")
    np.testing.assert_array_equal(gmx.runtime.run(fused.text, x, i), expected)
    np.testing.assert_array_equal(gmx.runtime.run(FLOOR_MOD_GATHER, x, i), expected)  # the generic itself


# --- tensor.gather -------------------------------------------------------------------------------

TENSOR_GATHERS = """
func.func @reducing(%s: tensor<4x5x6xf32>, %i: tensor<3x2xi32>) -> tensor<3x5xf32> {
  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
func.func @preserving(%s: tensor<?x5x6xf32>, %i: tensor<?x2x1xi64>) -> tensor<?x2x1x5x6xf32> {
  %0 = tensor.gather %s[%i] gather_dims([0]) : (tensor<?x5x6xf32>, tensor<?x2x1xi64>) -> tensor<?x2x1x5x6xf32>
  return %0 : tensor<?x2x1x5x6xf32>
}
func.func @index_typed(%s: tensor<4x?x6xf32>, %j: tensor<?x1xi64>) -> tensor<?x4x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %j, %c0 : tensor<?x1xi64>
  %e = tensor.empty(%n) : tensor<?x1xindex>
  %i = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%j : tensor<?x1xi64>) outs(%e : tensor<?x1xindex>) {
  ^bb0(%in: i64, %out: index):
    %c = arith.index_cast %in : i64 to index
    linalg.yield %c : index
  } -> tensor<?x1xindex>
  %0 = tensor.gather %s[%i] gather_dims([2]) : (tensor<4x?x6xf32>, tensor<?x1xindex>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}
"""


def tensor_gather_reference(source: np.ndarray, indices: np.ndarray, dims: list[int], reducing: bool) -> np.ndarray:
    """`result[b, s] = source[p]`, `p[dims[j]] = indices[b, j]`, `p[d] = s[d]` otherwise
    (TensorOps.td), element by element."""
    batch = indices.shape[:-1]
    slice_shape = [1 if d in dims else n for d, n in enumerate(source.shape)]
    out = np.empty(batch + tuple(slice_shape), source.dtype)
    for b in np.ndindex(*batch):
        for s in np.ndindex(*slice_shape):
            p = list(s)
            for j, d in enumerate(dims):
                p[d] = indices[b + (j,)]
            out[b + s] = source[tuple(p)]
    if reducing:
        out = out.reshape(batch + tuple(n for d, n in enumerate(source.shape) if d not in dims))
    return out


@pytest.fixture(scope="module")
def tensor_gathers():
    fused = run_pipeline(TENSOR_GATHERS, ["gmx-canonicalize"])
    assert_raised(fused.counts, 3, "tensor.gather")
    return {entry: gmx.runtime.compile(fused.text, entry=entry) for entry in ("reducing", "preserving", "index_typed")}


def test_tensor_gather_rank_reducing(tensor_gathers):
    rng = np.random.default_rng(0)
    s = rng.standard_normal((4, 5, 6)).astype(np.float32)
    i = np.stack([rng.integers(0, 4, 3), rng.integers(0, 6, 3)], -1).astype(np.int32)
    np.testing.assert_array_equal(tensor_gathers["reducing"](s, i), tensor_gather_reference(s, i, [0, 2], True))
    with pytest.raises(IndexError):  # undefined for tensor.gather, gmx's checked raise mode
        tensor_gathers["reducing"](s, np.array([[4, 0], [0, 0], [0, 0]], np.int32))


@pytest.mark.parametrize("rows, count", [(4, 3), (7, 5)])
def test_tensor_gather_rank_preserving_dynamic(tensor_gathers, rows, count):
    rng = np.random.default_rng(rows)
    s = rng.standard_normal((rows, 5, 6)).astype(np.float32)
    i = rng.integers(0, rows, (count, 2, 1))
    np.testing.assert_array_equal(tensor_gathers["preserving"](s, i), tensor_gather_reference(s, i, [0], False))


def test_tensor_gather_runs_unraised():
    """gmx.runtime (--gmx-lower-to-llvm) raises a tensor.gather itself:
    upstream cannot bufferize it."""
    rng = np.random.default_rng(2)
    s = rng.standard_normal((4, 5, 6)).astype(np.float32)
    i = np.stack([rng.integers(-4, 4, 3), rng.integers(0, 6, 3)], -1).astype(np.int32)
    result = gmx.runtime.run(TENSOR_GATHERS, s, i, entry="reducing")
    np.testing.assert_array_equal(result, tensor_gather_reference(s, np.where(i < 0, i + [4, 6], i), [0, 2], True))


def test_tensor_gather_index_typed(tensor_gathers):
    rng = np.random.default_rng(1)
    s = rng.standard_normal((4, 3, 6)).astype(np.float32)
    i = rng.integers(0, 6, (5, 1))
    np.testing.assert_array_equal(tensor_gathers["index_typed"](s, i), tensor_gather_reference(s, i, [2], True))
