"""gmx.runtime on several threads: an entry with row ranges
(`--gmx-row-ranges`) runs each call as ranges of its result's rows, one
per thread, and must give what one thread gives: the same results (equal
to numpy's), the same IndexError message (the first bad index in
row-major order of the indices, and how many there are), from whichever
range a bad index is in; exceptions of worker threads reach the caller;
Python threads may share one program.

The split decisions (`chunks`, `row_tile`) are pure and tested first.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gmx.passes.lowering.gather_plan import plan_gather
from gmx.passes.lowering.gmx_row_ranges import SPLIT_MIN_BYTES, TILE_ELEMENTS, row_tile, splits_rows
from gmx.runtime import compile
from gmx.runtime.threads import CHUNKS_PER_THREAD, MIN_CHUNK_BYTES, check_threads, chunks, usable_cores

# -- the decisions ------------------------------------------------------------


def test_row_tile_divides_the_rows_and_holds_a_gather_tile():
    assert row_tile(256, 512, 4) == TILE_ELEMENTS // 512
    assert row_tile(1000, 600, 4) == 50  # 54 rows would fit: the largest divisor that does
    assert row_tile(1021, 1 << 16, 4) == 1  # a prime, rows larger than a tile: one row each


def test_row_tile_leaves_small_or_single_row_outputs_alone():
    assert row_tile(1, 1 << 20, 4) is None
    assert row_tile(16, (SPLIT_MIN_BYTES // 16 - 4) // 4, 4) is None
    assert row_tile(16, SPLIT_MIN_BYTES // 16 // 4, 4) is not None


def test_gathers_in_column_tiles_are_not_split():
    assert not splits_rows(plan_gather([64, 4096, 64], [1024, 1, 2], [0, 2]))  # x[i, :, j]: column tiles
    assert splits_rows(plan_gather([64, 4096, 8], [1024, 1, 2], [0, 2]))  # rows of 8 floats: row tiles
    assert splits_rows(plan_gather([256, 256, 64], [256, 256, 64], [1]))  # torch.gather: flagged


@pytest.mark.parametrize("rows, tile, threads", [(256, 64, 2), (256, 64, 3), (1000, 50, 7), (7, 2, 4), (8, 8, 4)])
def test_chunks_cover_the_rows_in_order_on_tile_boundaries(rows, tile, threads):
    ranges = chunks(rows, tile, threads, output_bytes=1 << 30)
    assert ranges[0][0] == 0 and ranges[-1][1] == rows
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all(first % tile == 0 and first < last for first, last in ranges)
    tiles = -(-rows // tile)
    assert len(ranges) == min(threads * CHUNKS_PER_THREAD, tiles)
    sizes = [-(-(last - first) // tile) for first, last in ranges]
    assert max(sizes) - min(sizes) <= 1


def test_chunks_give_each_range_enough_bytes():
    assert chunks(256, 8, 16, output_bytes=3 * MIN_CHUNK_BYTES) == [(0, 88), (88, 176), (176, 256)]
    assert chunks(256, 8, 16, output_bytes=MIN_CHUNK_BYTES // 2) == [(0, 256)]
    assert chunks(256, 8, 1, output_bytes=1 << 30) == [(0, 256)]
    assert len(chunks(256, 8, 2, output_bytes=1 << 30)) == 2 * CHUNKS_PER_THREAD


def test_threads_argument():
    assert check_threads(None) == usable_cores() >= 1
    assert check_threads(3) == 3
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        check_threads(0)
    for bad in ("2", 2.0, True):
        with pytest.raises(TypeError, match="threads must be a positive int or None, got"):
            check_threads(bad)


# -- calls on threads -----------------------------------------------------------

ROWS, COLUMNS = 512, 512  # 1 MiB of f32: 8 tiles of 64 rows, up to 4 ranges

GATHER = f"""func.func @main(%x: tensor<{ROWS}x{COLUMNS}xf32>, %i: tensor<{ROWS}x{COLUMNS}xi64>) -> tensor<{ROWS}x{COLUMNS}xf32> {{
  %c = tosa.cast %i : (tensor<{ROWS}x{COLUMNS}xi64>) -> tensor<{ROWS}x{COLUMNS}xi32>
  %0 = "gmx.gather_multiaxis"(%x, %c) {{axes = array<i64: 1>}} : (tensor<{ROWS}x{COLUMNS}xf32>, tensor<{ROWS}x{COLUMNS}xi32>) -> tensor<{ROWS}x{COLUMNS}xf32>
  return %0 : tensor<{ROWS}x{COLUMNS}xf32>
}}
"""

# ONNX Gather on axis 1: the indices are shared by every row.
SHARED_INDICES = """func.func @main(%x: tensor<64x256x32xf32>, %i: tensor<1x128x1xi64>) -> tensor<64x128x32xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 1>} : (tensor<64x256x32xf32>, tensor<1x128x1xi64>) -> tensor<64x128x32xf32>
  return %0 : tensor<64x128x32xf32>
}
"""

RNG = np.random.default_rng(15)
X = RNG.standard_normal((ROWS, COLUMNS)).astype(np.float32)
I = RNG.integers(-COLUMNS, COLUMNS, (ROWS, COLUMNS))


@pytest.fixture(scope="module")
def programs():
    """The gather on 1 to 4 threads: one compiled program, four views of it."""
    return {n: compile(GATHER, threads=n) for n in (1, 2, 3, 4)}


def test_one_program_for_every_thread_count(programs):
    assert programs[1].row_ranges == (ROWS, TILE_ELEMENTS // COLUMNS)
    assert len({id(p._engine) for p in programs.values()}) == 1
    assert [len(p._ranges) for p in programs.values()] == [1, 4, 4, 4]  # 1 MiB: 4 ranges of 256 KiB


def test_results_on_threads_equal_numpy(programs):
    expected = np.take_along_axis(X, I, axis=1)
    for program in programs.values():
        np.testing.assert_array_equal(program(X, I), expected)


def _message(program, indices) -> str:
    with pytest.raises(IndexError) as info:
        program(X, indices)
    return str(info.value)


@pytest.mark.parametrize("bad", [
    [(ROWS - 1, 7, COLUMNS)],  # in the last range only
    [(300, 2, -COLUMNS - 1), (5, 9, COLUMNS + 3), (5, 1, 10**6)],  # several ranges: (5, 1) is first
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


def test_a_worker_exception_reaches_the_caller(programs, monkeypatch):
    """A range that raises on a worker (here: every range off the caller's
    thread) is raised by the call, after every range taken has finished;
    the program works on after it."""
    program, caller = programs[4], threading.get_ident()
    invoke = program._invoke

    def fail_off_the_caller(packed):
        if threading.get_ident() != caller:
            raise RuntimeError("a worker failed")
        invoke(packed)

    monkeypatch.setattr(program, "_invoke", fail_off_the_caller)
    ran = 0
    for _ in range(20):  # a worker may start after the caller took every range
        try:
            program(X, I)
        except RuntimeError as error:
            assert str(error) == "a worker failed"
            ran += 1
    assert ran > 0
    monkeypatch.undo()
    np.testing.assert_array_equal(program(X, I), np.take_along_axis(X, I, axis=1))


def test_a_late_worker_leaves_its_ranges_to_the_caller(programs, monkeypatch):
    """Workers that never start: the caller computes every range."""
    from gmx.runtime import compiler

    class Idle:
        def submit(self, *args):
            from concurrent.futures import Future

            return Future()  # never runs

    monkeypatch.setattr(compiler, "pool", lambda workers: Idle())
    np.testing.assert_array_equal(programs[2](X, I), np.take_along_axis(X, I, axis=1))


def test_python_threads_share_a_threaded_program(programs):
    """Four Python threads call one program on two threads each, with
    their own indices, some bad: every result and every error is theirs."""
    program, problems = programs[2], []

    def work(k):
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


def test_shared_indices_split_only_unchecked():
    x = RNG.standard_normal((64, 256, 32)).astype(np.float32)
    i = RNG.integers(-256, 256, (1, 128, 1))
    checked, unchecked = compile(SHARED_INDICES, threads=2), compile(SHARED_INDICES, checked=False, threads=2)
    assert checked.row_ranges is None  # every range would report the same bad indices
    assert unchecked.row_ranges == (64, 8) and len(unchecked._ranges) == 4
    expected = np.take_along_axis(x, np.broadcast_to(i, (64, 128, 1)), axis=1)
    np.testing.assert_array_equal(unchecked(x, i), expected)
    np.testing.assert_array_equal(checked(x, i), expected)
