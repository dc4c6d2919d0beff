"""gmx.runtime on several threads: one native call per program call, its
parallel loops on OpenMP (libomp of `cmeel-libomp`) on the call's thread
count. It must give what one thread gives: the same results (equal to
numpy's), the same IndexError message (the first bad index in row-major
order of the indices, and how many there are), whatever tile a bad index
is in; Python threads may share one program, each call on its own count.

The decisions (which loops run in parallel, a Flagged gather's tiles) are
pure and tested first.
"""

from __future__ import annotations

import functools
import threading
import time

import numpy as np
import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir, passmanager
from gmx.passes.lowering.gather_plan import (
    FLAGGED_TILES,
    MIN_TILE_OUTPUTS,
    TILE_INDICES,
    ColumnTiles,
    Flagged,
    RowTiles,
    Whole,
    parallel_loop,
    plan_gather,
)
from gmx.passes.lowering.gmx_parallel_loops import PARALLEL_MIN_ITERATIONS, runs_in_parallel
from gmx.passes.lowering.gmx_lower_to_llvm import PASS as LOWER_TO_LLVM
from gmx.runtime import CompileError, compile, openmp
from gmx.runtime.threads import check_threads, usable_cores

# -- the decisions ------------------------------------------------------------


def test_small_loops_stay_sequential():
    assert not runs_in_parallel(1, 10**9)  # one iteration: nothing to share
    assert not runs_in_parallel(64, PARALLEL_MIN_ITERATIONS - 1)
    assert runs_in_parallel(64, PARALLEL_MIN_ITERATIONS)
    assert runs_in_parallel(None, None)  # sizes known at run time only


def test_each_strategy_names_its_parallel_loop():
    assert parallel_loop(plan_gather([256, 256, 64], [256, 256, 64], [1]).strategy) == "row tiles"
    assert parallel_loop(plan_gather([64, 4096, 64], [1024, 1, 2], [0, 2]).strategy) == "slabs"
    assert parallel_loop(plan_gather([50000, 256], [16384, 1], [0]).strategy) == "rows"
    assert isinstance(plan_gather([64, 4096, 64], [1024, 1, 2], [0, 2]).strategy, ColumnTiles)
    assert isinstance(plan_gather([64, 50, 8], [64, 1024, 1], [1]).strategy, RowTiles)
    assert isinstance(plan_gather([50000, 256], [16384, 1], [0]).strategy, Whole)


def test_flagged_tiles_divide_the_rows_and_hold_a_tile_of_indices():
    # 4M outputs: FLAGGED_TILES tiles of 8 rows, larger than TILE_INDICES
    assert plan_gather([256, 256, 64], [256, 256, 64], [1]).strategy == Flagged(256 // FLAGGED_TILES)
    assert plan_gather([64, 64, 32], [64, 64, 32], [1]).strategy == Flagged(TILE_INDICES // (64 * 32))
    assert plan_gather([1009 * 4], [1009 * 4], [0]).strategy == Flagged(4036)  # rank 1: 4 outputs per tile is too few
    rows = plan_gather([4 * TILE_INDICES], [4 * TILE_INDICES], [0]).strategy.rows
    assert rows == TILE_INDICES and rows >= MIN_TILE_OUTPUTS


def test_threads_argument():
    assert check_threads(None) == usable_cores() >= 1
    assert check_threads(3) == 3
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        check_threads(0)
    with pytest.raises(ValueError, match="threads must be at least 1, got -2"):
        compile(GATHER, threads=-2)
    for bad in ("2", 2.0, True):
        with pytest.raises(TypeError, match="threads must be a positive int or None, got"):
            check_threads(bad)


# -- the lowering -------------------------------------------------------------

ROWS, COLUMNS = 512, 512

GATHER = f"""func.func @main(%x: tensor<{ROWS}x{COLUMNS}xf32>, %i: tensor<{ROWS}x{COLUMNS}xi64>) -> tensor<{ROWS}x{COLUMNS}xf32> {{
  %c = tosa.cast %i : (tensor<{ROWS}x{COLUMNS}xi64>) -> tensor<{ROWS}x{COLUMNS}xi32>
  %0 = "gmx.gather_multiaxis"(%x, %c) {{axes = array<i64: 1>}} : (tensor<{ROWS}x{COLUMNS}xf32>, tensor<{ROWS}x{COLUMNS}xi32>) -> tensor<{ROWS}x{COLUMNS}xf32>
  return %0 : tensor<{ROWS}x{COLUMNS}xf32>
}}
"""

SMALL = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""

# An elementwise op of a whole model: its parallel loop runs on OpenMP too.
ADD = """func.func @main(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = tosa.add %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
"""


def _lowered(text: str, checked: bool = True) -> str:
    with make_context():
        module = ir.Module.parse(text)
        pm = passmanager.PassManager("builtin.module")
        LOWER_TO_LLVM.add_to(pm, "destinations=true" + ("" if checked else ",checked=false"))
        pm.run(module.operation)
        return str(module)


@pytest.mark.parametrize("text, checked, regions", [
    (GATHER, True, 1), (GATHER, False, 1), (ADD, True, 1), (SMALL, True, 0),
])
def test_large_loops_become_one_openmp_region(text, checked, regions):
    lowered = _lowered(text, checked)
    assert lowered.count("omp.parallel") == regions
    assert "scf.parallel" not in lowered


# Every mode and element type splits the same way: one OpenMP region, and
# the result on 2 threads is the reference's (indices out of range included).
MODES = {"raise": "", "wrap": ', mode = "wrap"', "clip": ', mode = "clip"', "fill": ', mode = "fill", fill_value = FILL'}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype, element, fill", [(np.float32, "f32", "-7.5 : f32"), (np.int8, "i8", "3 : i8")])
def test_every_mode_and_dtype_splits_the_same_way(mode, dtype, element, fill):
    from gmx.reference import gather_multiaxis

    attributes = MODES[mode].replace("FILL", fill)
    text = (
        f"func.func @main(%x: tensor<512x512x{element}>, %i: tensor<512x512xi64>) -> tensor<512x512x{element}> {{\n"
        f'  %0 = "gmx.gather_multiaxis"(%x, %i) {{axes = array<i64: 1>{attributes}}} : '
        f"(tensor<512x512x{element}>, tensor<512x512xi64>) -> tensor<512x512x{element}>\n"
        f"  return %0 : tensor<512x512x{element}>\n}}\n"
    )
    assert _lowered(text).count("omp.parallel") == 1
    x = (X * 10).astype(dtype)
    indices = I if mode == "raise" else I * 2  # outside the axis too, but in raise mode
    fill_value = None if mode != "fill" else (-7.5 if dtype == np.float32 else 3)
    expected = gather_multiaxis(x, indices, [1], mode=mode, fill_value=fill_value)
    np.testing.assert_array_equal(compile(text, threads=2)(x, indices), expected)


# -- calls on threads -----------------------------------------------------------

RNG = np.random.default_rng(15)
X = RNG.standard_normal((ROWS, COLUMNS)).astype(np.float32)
I = RNG.integers(-COLUMNS, COLUMNS, (ROWS, COLUMNS))


@pytest.fixture(scope="module")
def programs():
    """The gather on 1 to 4 threads: one compiled program, four views of it."""
    return {n: compile(GATHER, threads=n) for n in (1, 2, 3, 4)}


def test_one_program_for_every_thread_count(programs):
    assert len({id(p._engine) for p in programs.values()}) == 1
    assert [p.threads for p in programs.values()] == [1, 2, 3, 4]


def test_results_on_threads_equal_numpy(programs):
    expected = np.take_along_axis(X, I, axis=1)
    for program in programs.values():
        np.testing.assert_array_equal(program(X, I), expected)


def _message(program, indices) -> str:
    with pytest.raises(IndexError) as info:
        program(X, indices)
    return str(info.value)


@pytest.mark.parametrize("bad", [
    [(ROWS - 1, 7, COLUMNS)],  # in the last tile only
    [(300, 2, -COLUMNS - 1), (5, 9, COLUMNS + 3), (5, 1, 10**6)],  # several tiles: (5, 1) is first
    [(r, 0, COLUMNS + r) for r in range(0, ROWS, 37)],  # one in every tile
])
def test_errors_on_threads_are_those_of_one_thread(programs, bad):
    indices = I.copy()
    for row, column, value in bad:
        indices[row, column] = value
    first = min(bad)
    expected = (f"-:3:8: index {first[2]} is out of bounds for axis 1 with size {COLUMNS}"
                + (f" ({len(bad)} indices out of bounds)" if len(bad) > 1 else ""))
    assert {n: _message(p, indices) for n, p in programs.items()} == dict.fromkeys(programs, expected)


def test_python_threads_share_a_program_each_on_its_own_count(programs):
    """Four Python threads call one program, on 1 to 4 OpenMP threads, with
    their own indices, some bad: every result and every error is theirs."""
    problems = []

    def work(k):
        program = programs[k + 1]
        rng = np.random.default_rng(k)
        for n in range(4):
            indices = rng.integers(0, COLUMNS, (ROWS, COLUMNS))
            if n % 2:
                indices[k * 100, n] = COLUMNS + k
                try:
                    program(X, indices)
                    problems.append((k, n, "no IndexError"))
                except IndexError as error:
                    if f"index {COLUMNS + k} is out of bounds" not in str(error):
                        problems.append((k, n, str(error)))
            elif not np.array_equal(program(X, indices), np.take_along_axis(X, indices, axis=1)):
                problems.append((k, n, "wrong"))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []


# -- libomp ----------------------------------------------------------------------


def test_a_missing_libomp_is_one_error_naming_the_package(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(openmp.importlib.metadata, "distribution", missing)
    openmp.library.cache_clear()
    try:
        with pytest.raises(CompileError, match=r"^gmx runs parallel loops on LLVM's OpenMP runtime from the "
                                               r"package 'cmeel-libomp', which is not installed"):
            compile(SMALL + "// missing libomp\n")
    finally:
        openmp.library.cache_clear()


def test_an_unloadable_libomp_is_one_error_naming_the_package(monkeypatch, tmp_path):
    broken = tmp_path / "libomp.so"
    broken.write_text("not a library")
    monkeypatch.setattr(openmp, "library_path", lambda: str(broken))
    openmp.library.cache_clear()
    try:
        with pytest.raises(CompileError, match="^cannot load libomp of the package 'cmeel-libomp'"):
            compile(SMALL + "// unloadable libomp\n")
    finally:
        openmp.library.cache_clear()


def test_libomp_workers_sleep_as_a_call_ends():
    """KMP_BLOCKTIME=0 is libomp's setting on the threads that call gmx
    (200 ms by default: its workers would spin that long after each call,
    taking the cores from torch's threads)."""
    compile(GATHER, threads=2)(X, I)
    assert openmp.library().kmp_get_blocktime() == 0


def test_gmx_leaves_torch_as_fast_as_before():
    """libomp's workers sleep as a call ends (KMP_BLOCKTIME=0) and its
    symbols stay local: torch's own OpenMP threads, at their default
    count, are no slower right after a gmx call on every core than right
    after a pause as long as the call (both let torch's threads go idle;
    medians of 15, the best of five attempts: the machine may be busy).
    With libomp's default blocktime its workers spin 200 ms after each
    call: torch took over 100x its time here."""
    torch = pytest.importorskip("torch")
    x = torch.randn(50000, 64)
    rows = torch.randint(0, 50000, (16384,))
    program = compile(GATHER, threads=usable_cores())
    start = time.perf_counter()
    program(X, I)
    pause = functools.partial(time.sleep, time.perf_counter() - start)

    def torch_ms(before) -> float:
        times = []
        for _ in range(15):
            before()
            start = time.perf_counter()
            torch.index_select(x, 0, rows)
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    ratios = []
    torch_ms(pause)  # torch's threads started, its memory warm
    for _ in range(5):
        time.sleep(0.25)  # longer than libomp's default blocktime: no worker of a previous call spins
        control = torch_ms(pause)
        ratios.append(torch_ms(functools.partial(program, X, I)) / control)
        if ratios[-1] <= 1.2:
            return
    pytest.fail(f"torch.index_select after a gmx call took {min(ratios):.2f}x its time after a pause")
