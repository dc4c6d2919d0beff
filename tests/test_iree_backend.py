"""gmx.runtime's `iree` backend against the engine: the same inputs give the
same results and the same errors (IREE's local-task device, on the CPU),
and the lowering still compiles for CUDA (no GPU needed).

Programs are compiled once per module (gmx.runtime's cache and module-scoped
fixtures): IREE takes about a second per program.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

import gmx.reference  # noqa: E402
import gmx.runtime  # noqa: E402
from gmx.benchmarks.suite import BENCHMARKS  # noqa: E402
from gmx.passes.lowering.gather_plan import ColumnTiles, Whole, plan_gather  # noqa: E402
from gmx.passes.lowering.iree_reports import REPORT_TILE_MIN, REPORT_TILES, report_tiles  # noqa: E402
from gmx.runtime import CompileError  # noqa: E402
from gmx.runtime.iree_backend import INSTALL, BackendUnavailable, available_devices, compile_vmfb  # noqa: E402
from gmx.runtime.iree_lowering import lower_for_iree  # noqa: E402
from gmx.tools.experiments.contenders import make_case  # noqa: E402
from gmx.tools.experiments.pipelines import run_pipeline  # noqa: E402
from gmx.tools.experiments.variants import make_study  # noqa: E402

from gather_programs import gather_module  # noqa: E402

IREE = {"backend": "iree", "device": "local-task"}
FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")
# gmx-bench's benchmarks on IREE: a gather of each kind, the multi-axis one, a
# scatter of each kind, a max-scatter, the KV cache (all with GMX_FULL_CORPUS=1);
# random gathers: 2 seeds of 5 (every mode and dtype, indices far out in
# "raise" and "fill", two axes), 4 with GMX_FULL_CORPUS=1.
ON_IREE = [b.name for b in BENCHMARKS if FULL or b.name in (
    "take_along_dim_bcast", "gather_elements", "index_select", "advanced", "scatter_elements", "gnn_aggregate",
    "scatter_amax", "kv_cache_update")]
SEEDS = range(4) if FULL else (0, 2)


def outcome(text, arrays, **options):
    """(result, None) or (None, (exception type, message)) of one call."""
    try:
        return gmx.runtime.run(text, *arrays, **options), None
    except (IndexError, ValueError) as error:
        return None, (type(error), str(error))


@pytest.fixture(scope="module", params=ON_IREE)
def benchmark_case(request):
    """A gmx-bench gather at its quick size, fused, with its inputs."""
    benchmark = next(b for b in BENCHMARKS if b.name == request.param)
    case = benchmark.case("quick")
    return run_pipeline(case.text, ["gmx-canonicalize"]).text, case


def test_variants_equal_the_reference(benchmark_case):
    text, case = benchmark_case
    got = gmx.runtime.run(text, *case.inputs, **IREE)
    np.testing.assert_array_equal(got, case.expected)
    assert got.dtype == case.expected.dtype


def test_out_of_range_index_raises_the_engines_error(benchmark_case):
    text, case = benchmark_case
    arrays = [a.copy() for a in case.inputs]
    indices = next(a for a in arrays if a.dtype.kind == "i").reshape(-1)
    bad = [1, -1] if indices.size > 1 else [0]  # the first reported, and how many
    indices[bad] = [1000, -1000][:len(bad)]
    engine, iree = outcome(text, arrays), outcome(text, arrays, **IREE)
    assert iree[1] == engine[1]
    if engine[1] is None:  # a variant whose frontend wraps every index (take_along_dim)
        np.testing.assert_array_equal(iree[0], engine[0])
    elif len(bad) > 1:
        assert "(2 indices out of bounds)" in engine[1][1]


@pytest.mark.parametrize("mode", ["wrap", "clip", "fill"])
def test_modes_equal_the_reference(mode):
    case = make_case(make_study(f"take-{mode}"))
    np.testing.assert_array_equal(gmx.runtime.run(case.text, *case.inputs, **IREE), case.expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, "bfloat16", np.bool_, np.int8, np.int16, np.complex64])
def test_element_types_equal_the_engines(dtype):
    """Every element type the engine gathers, on IREE: f64 stays f64 (IREE
    demotes it to f32 unless told not to), bfloat16 goes through IREE's
    memory (numpy's DLPack has no code for it), complex in "wrap" mode
    (checked "raise" needs a fill value of an integer or float type)."""
    import ml_dtypes

    dtype = np.dtype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    mode = "wrap" if dtype.kind == "c" else None
    text = gather_module((5, 4), (3, 1), (0,), dtype=dtype, mode=mode)
    x = (np.arange(20) % 7).astype(dtype).reshape(5, 4)
    i = np.array([[0], [4], [-2]])
    got, want = gmx.runtime.run(text, x, i, **IREE), gmx.runtime.run(text, x, i)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


EXTREMES = [np.iinfo(np.int64).min, np.iinfo(np.int64).min + 1, -(1 << 40), -13, -9, -8, -1, 0, 7, 8, 9,
            1 << 40, np.iinfo(np.int64).max]


@pytest.mark.parametrize("size", [8, 9])  # a power of two (masked) and not (remainder)
@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_wrap_and_clip_of_extreme_values_equal_the_reference(mode, size):
    """The IREE form of "wrap" and "clip" (a negative value wrapped once or
    made 0 first, `_selected_for_iree`) maps every i64 as the mode does."""
    indices = np.array(EXTREMES, np.int64).reshape(-1, 1)
    text = gather_module((size, 4), indices.shape, (0,), mode=mode)
    x = np.arange(size * 4, dtype=np.float32).reshape(size, 4)
    want = gmx.reference.gather_multiaxis(x, indices, [0], mode=mode)
    np.testing.assert_array_equal(gmx.runtime.run(text, x, indices, **IREE), want)


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_wrap_and_clip_keep_their_dims_on_iree(mode):
    """The value a "wrap" or "clip" gather reads feeds a select in the IR
    handed to IREE, which then keeps the generic's dims (`_selected_for_iree`)."""
    text = gather_module((8, 4), (5, 1), (0,), mode=mode)
    lowered = lower_for_iree(text, "main", checked=True)
    assert '"tensor.extract"' in lowered.text
    extracted = [line.split(" = ")[0].strip() for line in lowered.text.splitlines() if '"tensor.extract"' in line]
    selects = [line for line in lowered.text.splitlines() if '"arith.select"' in line]
    assert any(f"({name}" in line or f", {name})" in line for name in extracted for line in selects)


def test_unchecked_runs_when_asked(benchmark_case):
    text, case = benchmark_case
    if case.study.variant.name != "torch-gather":
        pytest.skip("one unchecked program is enough")
    got = gmx.runtime.run(text, *case.inputs, checked=False, **IREE)
    np.testing.assert_array_equal(got, case.expected)


def test_multiaxis_gather_and_its_errors():
    """x[i, :, j] as one op on axes [2, 0]: values, then a bad coordinate of
    the second axis (its axis and size in the message)."""
    text = gather_module((4, 5, 6), (3, 1, 2), (2, 0))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    i = np.stack([rng.integers(-6, 6, (3, 1)), rng.integers(-4, 4, (3, 1))], axis=-1).reshape(3, 1, 2)
    np.testing.assert_array_equal(gmx.runtime.run(text, x, i, **IREE), gmx.runtime.run(text, x, i))
    i[1, 0, 1] = 9
    engine, iree = outcome(text, (x, i)), outcome(text, (x, i), **IREE)
    assert iree[1] == engine[1] and "for axis 0 with size 4" in engine[1][1]


def test_report_tiles():
    """The report scan is cut into tiles of REPORT_TILE_MIN values or more,
    at most REPORT_TILES of them, where the count divides evenly."""
    assert report_tiles(1 << 22) == (1 << 22) // REPORT_TILE_MIN
    assert report_tiles(4 * REPORT_TILES * REPORT_TILE_MIN) == REPORT_TILES
    assert report_tiles(8 * REPORT_TILE_MIN) == 8
    assert report_tiles(3 * REPORT_TILE_MIN) == 3
    assert report_tiles(2 * REPORT_TILE_MIN - 1) is None
    assert report_tiles(1_000_003) is None  # prime: one scan
    assert report_tiles(None) is None  # dynamic
    assert report_tiles(0) is None


def test_tiled_report_is_the_engines():
    """A report scanned in 3 tiles (x[i, :, j] on 3 REPORT_TILE_MIN index values, axes 2 and 0 in turn): bad
    values in the second and third tiles only, the third's earlier in its
    tile; the first in row-major order is reported, with the count."""
    rows = 3 * REPORT_TILE_MIN // 128
    text = gather_module((8, 3, 5), (rows, 1, 128), (2, 0))
    assert report_tiles(rows * 128) == 3
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 3, 5)).astype(np.float32)
    i = np.stack([rng.integers(-5, 5, (rows, 1, 64)), rng.integers(-8, 8, (rows, 1, 64))], axis=-1).reshape(rows, 1, 128)
    np.testing.assert_array_equal(gmx.runtime.run(text, x, i, **IREE), gmx.runtime.run(text, x, i))
    flat = i.reshape(-1)
    flat[REPORT_TILE_MIN + 901] = 8  # tile 1, axis 0 (size 8): the first
    flat[2 * REPORT_TILE_MIN + 6] = -6  # tile 2, axis 2 (size 5)
    flat[2 * REPORT_TILE_MIN + 3000] = 40
    engine, iree = outcome(text, (x, i)), outcome(text, (x, i), **IREE)
    assert iree[1] == engine[1]
    assert "index 8 is out of bounds for axis 0 with size 8 (3 indices out of bounds)" in engine[1][1]


NARROWED = """func.func @main(%x: tensor<6x3xf32>, %i: tensor<4x1xi64>) -> tensor<4x3xf32> {
  %n = tosa.cast %i : (tensor<4x1xi64>) -> tensor<4x1xi32>
  %r = "gmx.gather_multiaxis"(%x, %n) {axes = array<i64: 0>} : (tensor<6x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
"""


def test_report_reads_narrowed_indices_as_the_gather_does():
    """Indices cast to i32 are checked as i32, as the gather reads them:
    2^32 + 1 is 1, 2^32 + 9 is 9 (out of range), on both backends."""
    x = np.arange(18, dtype=np.float32).reshape(6, 3)
    i = np.array([[0], [(1 << 32) + 1], [-1], [2]])
    np.testing.assert_array_equal(gmx.runtime.run(NARROWED, x, i, **IREE), x[[0, 1, 5, 2]])
    i[3, 0] = (1 << 32) + 9
    engine, iree = outcome(NARROWED, (x, i)), outcome(NARROWED, (x, i), **IREE)
    assert iree[1] == engine[1] and "index 9 is out of bounds" in engine[1][1]


def test_unchecked_reads_nothing_outside_the_input():
    """Unchecked, an index outside its axis is undefined; on IREE it reads
    nothing outside the input (a "fill" gather, 0), with no report."""
    lowered = lower_for_iree(NARROWED, "main", checked=False)
    assert 'mode = "fill"' not in lowered.text  # lowered to linalg: the gather is gone
    assert len(lowered.results) == 1 and not lowered.report_kinds
    x = np.arange(18, dtype=np.float32).reshape(6, 3)
    got = gmx.runtime.run(NARROWED, x, np.array([[0], [(1 << 40) + 100], [-7], [5]]), checked=False, **IREE)
    np.testing.assert_array_equal(got, [x[0], [0, 0, 0], [0, 0, 0], x[5]])


def test_dynamic_shape_error_is_the_engines():
    """A non-axis dim that does not broadcast at run time: the engine's
    ValueError, reported by the program's shape report."""
    text = gather_module((4, 3), (2, 3), (0,), dyn_input=(1,), dyn_indices=(1,))
    x, i = np.zeros((4, 3), np.float32), np.zeros((2, 2), np.int64)
    engine, iree = outcome(text, (x, i)), outcome(text, (x, i), **IREE)
    assert engine[1] is not None and engine[1][0] is ValueError
    assert iree[1] == engine[1]
    good = np.zeros((2, 3), np.int64)
    np.testing.assert_array_equal(gmx.runtime.run(text, x, good, **IREE), gmx.runtime.run(text, x, good))


FAILING_ASSERT = """
func.func @main(%a: tensor<4xf32>, %i: tensor<i64>) -> tensor<f32> {
  %c4 = arith.constant 4 : i64
  %e = tensor.extract %i[] : tensor<i64>
  %ok = arith.cmpi ult, %e, %c4 : i64
  cf.assert %ok, "position out of range"
  %x = arith.index_cast %e : i64 to index
  %v = tensor.extract %a[%x] : tensor<4xf32>
  %r = tensor.from_elements %v : tensor<f32>
  return %r : tensor<f32>
}
"""


def test_failing_assert_is_the_engines_located_error():
    """A cf.assert of the program that fails: the engine's located
    ValueError on both backends (IREE's own is a RuntimeError with the
    message alone)."""
    a = np.arange(4, dtype=np.float32)
    engine, iree = outcome(FAILING_ASSERT, (a, np.array(7))), outcome(FAILING_ASSERT, (a, np.array(7)), **IREE)
    assert engine[1] == (ValueError, "-:6:3: position out of range")
    assert iree[1] == engine[1]
    assert gmx.runtime.run(FAILING_ASSERT, a, np.array(2), **IREE) == 2.0


def test_argument_errors_are_the_engines():
    text = gather_module((5, 3), (4, 1), (0,))
    x = np.zeros((5, 3), np.float32)
    for arrays in [(x,), (x, np.zeros((4, 1), np.int32)), (x, np.zeros((2, 1), np.int64))]:
        with pytest.raises((TypeError, ValueError)) as engine:
            gmx.runtime.run(text, *arrays)
        with pytest.raises(engine.type) as iree:
            gmx.runtime.run(text, *arrays, **IREE)
        assert str(iree.value) == str(engine.value)


REAL_PROGRAMS = ("kv_cache_read", "onnx_gather_nd",
                 "knn_graph_feature@linalg",  # tm_tensor.sort (torch.topk), as iree_linalg_ext.sort
                 "knn_graph_feature@stablehlo")  # stablehlo.sort, through gmx-lower-stablehlo-sort


@pytest.mark.parametrize("name", REAL_PROGRAMS)
def test_real_programs_equal_their_reference(name):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from gmx.tools.experiments import corpus_base, models

    program = models.MODELS[name]
    built = program.build()
    fused = run_pipeline(corpus_base.export(built, form=program.form), ["gmx-canonicalize"]).text
    got = gmx.runtime.run(fused, *built.inputs, **IREE)
    assert corpus_base.matches(got, corpus_base.reference(built), program.tolerance) is None


def _index_put(x, i):
    y = x.new_zeros(6, 5)
    y[i] = x
    return y


def _scatter_rows(x, i, s):
    return x.scatter(1, i, s)


# (forward, output type, good arrays, bad indices (argument 1), the error's tail)
SCATTERS = {
    "tosa.scatter": (_index_put, "tosa", [np.ones((3, 5), np.float32), np.array([0, 5, 2])], np.array([0, 6, 2**32 + 1]),
                     "index 6 is out of bounds for axis 1 with size 6 (2 indices out of bounds)"),
    "tm_tensor.scatter": (_scatter_rows, "linalg-on-tensors",
                          [np.arange(15, dtype=np.float32).reshape(3, 5), np.array([[0, 1], [2, 3], [4, 0]]),
                           np.ones((3, 2), np.float32)],
                          np.array([[0, 1], [2, 5], [-1, 0]]), "index 5 is out of bounds for axis 1 with size 5 (2 indices out of bounds)"),
    # one coordinate per update (index_put in linalg-on-tensors): its scan has no column
    "tm_tensor.scatter of rows": (_index_put, "linalg-on-tensors", [np.ones((3, 5), np.float32), np.array([0, 5, 2])],
                                  np.array([0, 6, -1]), "index 6 is out of bounds for axis 0 with size 6 (2 indices out of bounds)"),
}


@pytest.mark.parametrize("name", SCATTERS)
def test_scatters_are_checked_as_the_engine_checks_them(name):
    """tosa.scatter (index_put in TOSA) and torch-mlir's tm_tensor.scatter
    (handed to IREE as iree_linalg_ext.scatter), not raised: in-range indices give the
    engine's result, checked and unchecked; bad ones the engine's
    IndexError, located at the scatter, with the count (`iree_scatter_reports`)."""
    torch = pytest.importorskip("torch")
    from gmx.tools.experiments.frontends import torch_export

    forward, output_type, arrays, bad, message = SCATTERS[name]
    # As exported: --gmx-canonicalize would raise them into gmx scatters (test_iree_scatters).
    text = torch_export(forward, [torch.from_numpy(a) for a in arrays], output_type=output_type)
    assert name.split()[0] in text
    for checked in (True, False):
        np.testing.assert_array_equal(gmx.runtime.run(text, *arrays, checked=checked, **IREE),
                                      gmx.runtime.run(text, *arrays, checked=checked))
    arrays[1] = bad
    engine, iree = outcome(text, arrays), outcome(text, arrays, **IREE)
    assert iree[1] == engine[1] and engine[1][1].endswith(message), (engine, iree)


DYNAMIC_ROWS = """func.func @main(%x: tensor<3x?xf32>, %u: tensor<2x?xf32>, %i: tensor<2x1xi64>) -> tensor<3x?xf32> {
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<2x?xf32>, tensor<2x1xi64>) outs(%x : tensor<3x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}
"""


def test_scatter_rows_longer_than_their_dim_at_run_time():
    """A tm_tensor.scatter's rows written along a dim whose size only the
    run time knows: rows that fit give the engine's result; rows of 7 into
    a dim of 5 (which wrote into the next row, and past the buffer) are
    the engine's ValueError on both backends, and nothing is written."""
    x, i = np.zeros((3, 5), np.float32), np.array([[0], [2]])
    for width in (5, 3):
        u = np.arange(2 * width, dtype=np.float32).reshape(2, width)
        np.testing.assert_array_equal(gmx.runtime.run(DYNAMIC_ROWS, x, u, i, **IREE), gmx.runtime.run(DYNAMIC_ROWS, x, u, i))
    u = np.ones((2, 7), np.float32)
    engine, iree = outcome(DYNAMIC_ROWS, (x, u, i)), outcome(DYNAMIC_ROWS, (x, u, i), **IREE)
    assert iree[1] == engine[1] == (ValueError, "-:2:8: an updates dim of size 7 is written into a dim of size 5 of the original")


def test_scatter_in_a_loop_is_a_located_error():
    """A checked scatter must be in the entry's body to report (as a gather)."""
    text = """func.func @main(%v: tensor<1x6x5xf32>, %i: tensor<1x3xi32>, %x: tensor<1x3x5xf32>, %n: tensor<i64>) -> tensor<1x6x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.extract %n[] : tensor<i64>
  %ub = arith.index_cast %e : i64 to index
  %r = scf.for %k = %c0 to %ub step %c1 iter_args(%a = %v) -> (tensor<1x6x5xf32>) {
    %s = tosa.scatter %a, %i, %x : (tensor<1x6x5xf32>, tensor<1x3xi32>, tensor<1x3x5xf32>) -> tensor<1x6x5xf32>
    scf.yield %s : tensor<1x6x5xf32>
  }
  return %r : tensor<1x6x5xf32>
}
"""
    with pytest.raises(CompileError, match=r"-:7:10: error: this scatter is inside 'scf.for'"):
        lower_for_iree(text, "main", True)
    assert lower_for_iree(text, "main", False).results


def test_cumsum_runs_as_an_iree_scan():
    """torch.cumsum in linalg-on-tensors is a tm_tensor.scan: handed to IREE
    as iree_linalg_ext.scan, its sums equal eager torch's."""
    torch = pytest.importorskip("torch")
    from gmx.passes.lowering.iree_linalg_ext import to_iree_linalg_ext  # noqa: F401  (what runs)
    from gmx.tools.experiments.frontends import torch_export

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    text = torch_export(lambda t: torch.cumsum(t, 1), [x], output_type="linalg-on-tensors")
    assert "tm_tensor.scan" in text
    lowered = lower_for_iree(text, "main", True)
    assert '"iree_linalg_ext.scan"' in lowered.text and "tm_tensor" not in lowered.text
    np.testing.assert_array_equal(gmx.runtime.run(text, x, **IREE), np.cumsum(x, 1))


RESULTS_NO_DISPATCH_WRITES = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %c, %x : tensor<4xf32>, tensor<4xf32>
}
"""


@pytest.mark.parametrize("device", ["local-sync", "local-task"])
def test_results_no_dispatch_writes_equal_the_engines(device):
    """A constant or an argument returned as it is: IREE writes it with a
    transfer, which memory imported from numpy does not allow."""
    x = np.arange(4, dtype=np.float32)
    got = gmx.runtime.run(RESULTS_NO_DISPATCH_WRITES, x, backend="iree", device=device)
    for g, want in zip(got, gmx.runtime.run(RESULTS_NO_DISPATCH_WRITES, x)):
        np.testing.assert_array_equal(g, want)


def test_plan_for_iree_is_one_generic():
    """x[i, :, j]'s column tiles carry index tensors across IREE's dispatches:
    for IREE the plan is the plain generic."""
    shapes = ((64, 4096, 64), (1024, 1, 2), (2, 0))
    assert isinstance(plan_gather(*shapes, checked=False).strategy, ColumnTiles)
    assert isinstance(plan_gather(*shapes, checked=False, target="iree").strategy, Whole)


@pytest.mark.parametrize("name", ["gather_elements", "advanced"])
def test_compiles_for_cuda(name):
    """The GPU path: lowered and compiled for CUDA (sm_80) without a GPU,
    plainly and with every dispatch repeated (gmx-bench's device time)."""
    from gmx.tools.experiments.iree_contenders import DISPATCH_REPEAT, repeat_flags

    benchmark = next(b for b in BENCHMARKS if b.name == name)
    text = run_pipeline(benchmark.case("quick").text, ["gmx-canonicalize"]).text
    lowered = lower_for_iree(text, "main", True, cpu=False)
    assert compile_vmfb(lowered, "cuda")[:16]
    assert compile_vmfb(lowered, "cuda", repeat_flags(DISPATCH_REPEAT))[:16]


def test_missing_device_names_the_devices_there_are():
    if "cuda" in available_devices():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(BackendUnavailable, match=r"IREE device 'cuda' is not available here .*available: local-task"):
        gmx.runtime.compile(gather_module((5, 3), (4, 1), (0,)), backend="iree", device="cuda")


def test_missing_extra_names_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "iree.compiler", None)
    with pytest.raises(BackendUnavailable) as error:
        gmx.runtime.compile(gather_module((5, 4), (4, 1), (0,)), backend="iree")
    assert INSTALL in str(error.value)


def test_bad_backend_or_device():
    text = gather_module((5, 3), (4, 1), (0,))
    with pytest.raises(ValueError, match="backend must be one of 'engine', 'iree'"):
        gmx.runtime.compile(text, backend="llvm")
    with pytest.raises(ValueError, match="needs backend='iree'"):
        gmx.runtime.compile(text, device="cuda")
    with pytest.raises(CompileError, match="unknown IREE device 'tpu'"):
        gmx.runtime.compile(text, backend="iree", device="tpu")


def test_gather_in_a_loop_is_a_located_error():
    """A checked gather IREE cannot report (not in the entry's body) is a
    located CompileError, never run unchecked."""
    text = """func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi64>) -> tensor<4x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 2 : index
  %e = tensor.empty() : tensor<4x3xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<4x3xf32> {
    %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
    scf.yield %g : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
"""
    with pytest.raises(CompileError, match=r"-:7:10: error: this gather is inside 'scf.for'"):
        lower_for_iree(text, "main", True)


# x[i] += table[at[i], k], written as linalg (an unraised gather): the
# engine's --gmx-check-linalg-extracts scans the row it reads.
UNRAISED_READ = """#one = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x3xf32>, %table: tensor<5x3xf32>, %at: tensor<4xi64>) -> tensor<4x3xf32> {
  %r = linalg.generic {indexing_maps = [#row, #one], iterator_types = ["parallel", "parallel"]}
      ins(%at : tensor<4xi64>) outs(%x : tensor<4x3xf32>) {
  ^bb0(%a: i64, %out: f32):
    %p = arith.index_cast %a : i64 to index
    %k = linalg.index 1 : index
    %v = tensor.extract %table[%%p, %k] : tensor<5x3xf32>
    %s = arith.addf %v, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
"""


def _unraised_read(row: str) -> str:
    return UNRAISED_READ.replace("%%p", row)


def test_unraised_read_is_refused_checked():
    """A read --gmx-check-linalg-extracts would scan is, checked on IREE
    (which cannot run the scan), a located CompileError per extract, never a
    silent read outside (before: rows 5 and -1 of 5 gave wrong values, no
    error); unchecked, IREE runs it as the engine does in range."""
    text = _unraised_read("%p")
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    x = np.ones((4, 3), np.float32)
    for bad in (5, -1):
        assert outcome(text, [x, table, np.array([4, 0, bad, 2], np.int64)])[1] == (
            IndexError, f"-:9:10: index {bad} is out of bounds for axis 0 with size 5")
    message = ("-:9:10: error: an element this tensor.extract reads in a linalg.generic's body is read at a position "
               "gmx cannot check on the iree backend: run it on the engine backend, or checked=false")
    with pytest.raises(CompileError) as raised:
        gmx.runtime.compile(text, **IREE)
    assert str(raised.value) == message
    good = [x, table, np.array([4, 0, 1, 2], np.int64)]
    np.testing.assert_array_equal(gmx.runtime.run(text, *good, checked=False, **IREE), table[[4, 0, 1, 2]] + 1)


def test_proven_read_runs_checked():
    """A read whose row is proven inside (4 - i of 5 rows) needs no scan:
    checked on IREE, it runs as on the engine."""
    text = _unraised_read("%q").replace(
        "    %k = linalg.index 1", "    %i = linalg.index 0 : index\n    %c4 = arith.constant 4 : index\n"
        "    %q = arith.subi %c4, %i : index\n    %k = linalg.index 1")
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    assert gmx.runtime.compile(text).sites == []  # the engine scans nothing either
    arrays = [np.ones((4, 3), np.float32), table, np.zeros(4, np.int64)]
    engine, iree = outcome(text, arrays), outcome(text, arrays, **IREE)
    assert engine[1] is None and iree[1] is None
    np.testing.assert_array_equal(iree[0], engine[0])
    np.testing.assert_array_equal(iree[0], table[[4, 3, 2, 1]] + 1)


def test_gmx_run_backend_iree(tmp_path, capsys):
    """gmx-run --backend iree prints what the engine prints; a bad index is
    the engine's one-line error and exit 1."""
    from gmx.tools import gmx_run

    source = tmp_path / "g.mlir"
    source.write_text(gather_module((5, 3), (4, 1), (0,)))
    np.save(tmp_path / "x.npy", np.arange(15, dtype=np.float32).reshape(5, 3))
    runs = {}
    for name, values in [("good", [[0], [4], [-1], [2]]), ("bad", [[0], [7], [-9], [2]])]:
        np.save(tmp_path / f"{name}.npy", np.array(values))
        for backend in ("engine", "iree"):
            argv = [str(source), "--input", str(tmp_path / "x.npy"), "--input", str(tmp_path / f"{name}.npy"), "--backend", backend]
            code = gmx_run.main(gmx_run.parse_arguments(argv))
            runs[name, backend] = (code, *capsys.readouterr())
    assert runs["good", "iree"] == runs["good", "engine"] and runs["good", "iree"][0] == 0
    assert runs["bad", "iree"] == runs["bad", "engine"] and runs["bad", "iree"][0] == 1
    assert "index 7 is out of bounds for axis 0 with size 5 (2 indices out of bounds)" in runs["bad", "iree"][2]


def test_gmx_study_shows_the_ir_handed_to_iree(capsys):
    from study_cli import study

    assert study("torch-gather", "--iree-ir") == 0
    shown = capsys.readouterr().out
    assert '"func.func"' in shown and "gmx.gather_multiaxis" not in shown and "tosa." not in shown
    # The form a call runs: its report is the count of bad indices and the first's position.
    assert "!hal.buffer_view) -> (tensor<4x3x6xf32>, tensor<i64>, tensor<i64>)" in shown


def test_reports_count_then_a_second_run_says_which():
    """A call's reports are counts and first positions (INDEX_COUNTS); a
    count above 0 runs the program with full reports (INDEX_REPORT), which
    raises the engine's error. Should that run find nothing (the arguments
    changed in between), an IndexError says so."""
    from gmx.passes.lowering.iree_reports import INDEX_COUNTS, INDEX_REPORT
    from gmx.runtime.iree_backend import IreeProgram

    text = gather_module((5, 3), (4, 1), (0,))
    fast, full = lower_for_iree(text, "main", True), lower_for_iree(text, "main", True, details=True)
    reports = "-> (tensor<4x3xf32>{})".format
    assert reports(", tensor<i64>" * len(INDEX_COUNTS)) in fast.text
    assert reports(", tensor<i64>" * len(INDEX_REPORT)) in full.text
    program = IreeProgram(text, "main", True, "local-task")
    x, good = np.zeros((5, 3), np.float32), np.array([[0], [4], [-1], [2]])
    with pytest.raises(IndexError, match=r"-:2:8: index 9 is out of bounds for axis 0 with size 5$"):
        program(x, np.array([[0], [9], [-1], [2]]))
    with pytest.raises(IndexError, match=r"-:2:8: 1 indices were out of bounds, and none when read again"):
        program._raise_reported([np.array(1), np.array(1)], (x, good))


def test_gathers_get_iree_cpu_tiles_on_the_cpu_only():
    """For a CPU device each gather generic carries IREE's user
    configuration (`iree_cpu_config`); for CUDA none does."""
    text = gather_module((50, 16), (64, 1), (0,))
    cpu, gpu = lower_for_iree(text, "main", True), lower_for_iree(text, "main", True, cpu=False)
    assert cpu.text.count("compilation_info = #iree_codegen.compilation_info") == 1
    assert "distribution = [64, 16], vector_common_parallel = [1, 16]" in cpu.text
    assert "compilation_info" not in gpu.text and "gmx.iree_gather" not in cpu.text + gpu.text


def _random_gather(rng):
    """(text, x, indices, axes, shape) of a random gather: rank 1 to 3,
    random axes in random order, broadcast dims, any mode, f32/f64/i32
    data, indices mostly in range or anywhere in +-2^40."""
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 7)) for _ in range(rank)]
    axes = [int(a) for a in rng.permutation(rank)[: int(rng.integers(1, rank + 1))]]
    indices_shape = [int(rng.integers(1, 6)) if d in axes else int(rng.choice([1, shape[d]])) for d in range(rank)]
    indices_shape[-1] *= len(axes)
    mode = str(rng.choice(["raise", "wrap", "clip", "fill"]))
    dtype = np.dtype(rng.choice([np.float32, np.float64, np.int32]))
    text = gather_module(tuple(shape), tuple(indices_shape), axes, dtype=dtype,
                         mode=None if mode == "raise" else mode, fill_value=-7 if mode == "fill" else None)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    reach = 1 << 40 if rng.random() < 0.3 else 12
    indices = rng.integers(-reach, reach, indices_shape)
    if rng.random() < 0.5:
        for j, axis in enumerate(axes):
            indices[..., j::len(axes)] = rng.integers(-shape[axis], shape[axis], indices[..., j::len(axes)].shape)
    return text, x, indices, mode


@pytest.mark.parametrize("seed", SEEDS)
def test_random_gathers_equal_the_engines(seed):
    """Random gathers (`_random_gather`), checked: IREE's result or error is
    the engine's; unchecked, in the modes that define every index, too."""
    rng = np.random.default_rng(seed)
    for _ in range(5):
        text, x, indices, mode = _random_gather(rng)
        for checked in (True, False) if mode != "raise" else (True,):
            engine = outcome(text, (x, indices), checked=checked)
            iree = outcome(text, (x, indices), checked=checked, **IREE)
            assert iree[1] == engine[1], (text, indices)
            if engine[0] is not None:
                np.testing.assert_array_equal(iree[0], engine[0])


# -- results the caller owns, under every kind of argument ----------------------
# An argument returned as it is, a reshape of one and one value returned
# twice: IREE hands each back in memory that is not a new array (the
# caller's own array, this thread's staging buffer that the next call
# overwrites, one buffer for both results). Each result must be a new
# array, as the engine's are.

OWNERSHIP = {
    "static": """func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %r = arith.addf %x, %x : tensor<2x2xf32>
  return %x, %flat, %r, %r : tensor<2x2xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
""",
    "dynamic": """func.func @main(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x2xf32> into tensor<?xf32>
  %r = arith.addf %x, %x : tensor<?x2xf32>
  return %x, %flat, %r, %r : tensor<?x2xf32>, tensor<?xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}
""",
}


def _argument(kind: str, values: np.ndarray) -> np.ndarray:
    """`values` as an argument of `kind`: 64-byte aligned (read in place),
    unaligned or read-only (copied into a staging buffer), strided (made
    contiguous), or 0-size."""
    from gmx.runtime.memref import AlignedBuffer

    if kind == "empty":
        return np.zeros((0, 2), np.float32)
    if kind == "strided":
        wide = np.zeros((values.shape[0], 4), np.float32)
        wide[:, ::2] = values
        return wide[:, ::2]
    if kind == "unaligned":
        raw = np.zeros(values.size * 4 + 128, np.uint8)
        array = np.ndarray(values.shape, np.float32, raw, (-raw.ctypes.data % 64) + 4)
    else:
        array = AlignedBuffer(values.shape, values.dtype).array()
    array[...] = values
    array.flags.writeable = kind != "read-only"
    return array


@pytest.mark.parametrize("device", ["local-task", "local-sync"])
@pytest.mark.parametrize("form", list(OWNERSHIP))
def test_results_are_new_arrays_the_caller_owns(form, device):
    """Under every argument kind: no result shares memory with the argument
    or with another result, writing a result leaves the argument as it was,
    and the next call leaves the earlier results as they were."""
    program = gmx.runtime.compile(OWNERSHIP[form], backend="iree", device=device)
    kinds = ["aligned", "unaligned", "read-only", "strided"] + (["empty"] if form == "dynamic" else [])
    for kind in kinds:
        x = _argument(kind, np.arange(4, dtype=np.float32).reshape(2, 2))
        kept = x.copy()
        first = program(x)
        want = [r.copy() for r in gmx.runtime.run(OWNERSHIP[form], kept)]
        for k, result in enumerate(first):
            np.testing.assert_array_equal(result, want[k])
            assert not np.shares_memory(result, x), (kind, k)
            assert not any(np.shares_memory(result, other) for other in first[:k]), (kind, k)
        for result in first:
            result[...] = -1
        np.testing.assert_array_equal(x, kept)
        program(_argument(kind, np.full((2, 2), 7, np.float32)))
        assert all((result == -1).all() for result in first), kind


def test_entry_without_results_returns_an_empty_tuple():
    """As the engine: `()` (IREE's call returns None)."""
    text = "func.func @main(%x: tensor<2xf32>) {\n  return\n}\n"
    x = np.zeros(2, np.float32)
    assert gmx.runtime.run(text, x, **IREE) == () == gmx.runtime.run(text, x)


EMPTY_SCATTER = """func.func @main(%x: tensor<3x5xf32>, %u: tensor<0xf32>, %i: tensor<0x2xi64>) -> tensor<3x5xf32> {
  %r = tm_tensor.scatter {dimension_map = array<i64: 0, 1>} unique_indices(false) ins(%u, %i : tensor<0xf32>, tensor<0x2xi64>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    tm_tensor.yield %a : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
"""


def test_static_empty_shapes_equal_the_engines():
    """Checked gathers with a static 0 dim (no indices: IREE crashed on
    their empty report) and a tm_tensor.scatter of no updates (IREE crashed
    on it, checked or not): each op over nothing is its destinations
    (`iree_empty_ops`)."""
    cases = [(gather_module(s, t, (0,)), (np.zeros(s, np.float32), np.zeros(t, np.int64)), True)
             for s, t in [((5, 3), (0, 1)), ((0, 3), (0, 1))]]
    scatter = (np.ones((3, 5), np.float32), np.zeros(0, np.float32), np.zeros((0, 2), np.int64))
    cases += [(EMPTY_SCATTER, scatter, True), (EMPTY_SCATTER, scatter, False)]
    for text, arrays, checked in cases:
        got, want = gmx.runtime.run(text, *arrays, checked=checked, **IREE), gmx.runtime.run(text, *arrays, checked=checked)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


SWITCH = """func.func @main(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.add %x, %x : tensor<4xf32>
    stablehlo.return %a : tensor<4xf32>
  }, {
    %b = stablehlo.multiply %x, %x : tensor<4xf32>
    stablehlo.return %b : tensor<4xf32>
  }, {
    %c = stablehlo.negate %x : tensor<4xf32>
    stablehlo.return %c : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_switch_of_three_branches_equals_the_engines():
    """JAX's lax.switch of 3 branches (stablehlo.case, then an
    scf.index_switch of 2 cases, which IREE 3.13 fails on) runs as a chain
    of scf.if: each branch, and an index out of range takes the last."""
    program = gmx.runtime.compile(SWITCH, **IREE)
    x = np.arange(4, dtype=np.float32)
    for k in (0, 1, 2, 7, -1):
        np.testing.assert_array_equal(program(np.array(k, np.int32), x), gmx.runtime.run(SWITCH, np.array(k, np.int32), x))


FORKED = """
import os, sys
import numpy as np
import gmx.runtime
from gather_programs import gather_module

program = gmx.runtime.compile(gather_module((5, 3), (4, 1), (0,)), backend="iree", device=sys.argv[1])
x, i = np.arange(15, dtype=np.float32).reshape(5, 3), np.array([[0], [4], [-1], [2]])
want = program(x, i)
pid = os.fork()
if pid == 0:
    assert (program(x, i) == want).all()
    other = gmx.runtime.compile(gather_module((6, 3), (4, 1), (0,)), backend="iree", device=sys.argv[1])
    assert other(np.ones((6, 3), np.float32), i).sum() == 12
    print("child", flush=True)
    sys.exit(0)  # a normal exit: the interpreter's teardown must not hang either
_, status = os.waitpid(pid, 0)
assert status == 0 and (program(x, i) == want).all()
print("parent")
"""


def test_calls_in_a_forked_child():
    """A child forked after calls on the parent's device (local-task, the
    default) calls the parent's programs, compiles new ones and exits; it
    hung in both: the task system's workers are not in the child."""
    import subprocess
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", FORKED, "local-task"], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["child", "parent"]
    assert "leaked" not in done.stderr
