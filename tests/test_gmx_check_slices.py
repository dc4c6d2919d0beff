"""--gmx-check-slices: in checked mode, a slice or element the data places
is accessed only inside its tensor; else gmx's located IndexError (the
op, the dim, the offending index, the dim's size) and nothing written,
donated or not. In range, nothing changes: a donated cache is updated in
place. memref.load / memref.store a program itself contains are checked
the same way (their bad cases in a worker process: before, a signal)."""

from __future__ import annotations

import signal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz_worker import run_in_worker
from gmx.runtime import compile

KV_UPDATE = """func.func @main(%cache: tensor<8x32x16x128xf32>, %tok: tensor<8x32x1x128xf32>, %p: tensor<i64>) -> tensor<8x32x16x128xf32> {
  %pi = tensor.extract %p[] : tensor<i64>
  %pos = arith.index_cast %pi : i64 to index
  %r = tensor.insert_slice %tok into %cache[0, 0, %pos, 0] [8, 32, 1, 128] [1, 1, 1, 1] : tensor<8x32x1x128xf32> into tensor<8x32x16x128xf32>
  return %r : tensor<8x32x16x128xf32>
}
"""
# A window of the data's offset and size (and a stride) out of a dynamic dim.
WINDOW = """func.func @main(%x: tensor<?xf32>, %at: tensor<3xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %o64 = tensor.extract %at[%c0] : tensor<3xi64>
  %s64 = tensor.extract %at[%c1] : tensor<3xi64>
  %t64 = tensor.extract %at[%c2] : tensor<3xi64>
  %o = arith.index_cast %o64 : i64 to index
  %s = arith.index_cast %s64 : i64 to index
  %t = arith.index_cast %t64 : i64 to index
  %0 = tensor.extract_slice %x[%o] [%s] [%t] : tensor<?xf32> to tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
# Three values written at the data's offset and stride.
WRITE_WINDOW = """func.func @main(%x: tensor<8xf32>, %w: tensor<3xf32>, %at: tensor<2xi64>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %o64 = tensor.extract %at[%c0] : tensor<2xi64>
  %t64 = tensor.extract %at[%c1] : tensor<2xi64>
  %o = arith.index_cast %o64 : i64 to index
  %t = arith.index_cast %t64 : i64 to index
  %0 = tensor.insert_slice %w into %x[%o] [3] [%t] : tensor<3xf32> into tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""
ELEMENT = """func.func @main(%x: tensor<3x5xf32>, %i: tensor<2xi64>, %v: tensor<f32>) -> (tensor<f32>, tensor<3x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i0 = tensor.extract %i[%c0] : tensor<2xi64>
  %i1 = tensor.extract %i[%c1] : tensor<2xi64>
  %a = arith.index_cast %i0 : i64 to index
  %b = arith.index_cast %i1 : i64 to index
  %e = tensor.extract %x[%a, %b] : tensor<3x5xf32>
  %f = tensor.extract %v[] : tensor<f32>
  %w = tensor.insert %f into %x[%b, %a] : tensor<3x5xf32>
  %r = tensor.from_elements %e : tensor<f32>
  return %r, %w : tensor<f32>, tensor<3x5xf32>
}
"""

_programs: dict = {}


def program(text: str, donate=()):
    """Each program compiled once per session."""
    key = (text, donate)
    if key not in _programs:
        _programs[key] = compile(text, donate=donate)
    return _programs[key]


def _cache():
    return np.arange(8 * 32 * 16 * 128, dtype=np.float32).reshape(8, 32, 16, 128)


@pytest.mark.parametrize("donate", [(), (0,)])
def test_kv_update_in_range(donate):
    cache, token = _cache(), np.full((8, 32, 1, 128), -1, np.float32)
    expected = cache.copy()
    expected[:, :, 5:6] = token
    result = program(KV_UPDATE, donate)(cache, token, np.array(5, np.int64))
    np.testing.assert_array_equal(result, expected)
    assert (result is cache) == bool(donate)  # donated: updated in place, no copy


@pytest.mark.parametrize("donate", [(), (0,)])
@pytest.mark.parametrize("position", [16, 17, -1, -(1 << 62), 1 << 40])
def test_kv_update_out_of_range_raises_and_writes_nothing(donate, position):
    cache, token = _cache(), np.full((8, 32, 1, 128), -1, np.float32)
    before = cache.copy()
    with pytest.raises(IndexError, match=rf"^-:4:8: index {position} is out of bounds for axis 2 with size 16$"):
        program(KV_UPDATE, donate)(cache, token, np.array(position, np.int64))
    np.testing.assert_array_equal(cache, before)


def _window_reference(x: np.ndarray, offset: int, size: int, stride: int) -> np.ndarray | None:
    """The strided window, or None when any index of it is outside x."""
    n = len(x)
    if size < 0:
        return None
    if size == 0:
        return x[:0] if 0 <= offset <= n else None
    last = offset + (size - 1) * stride
    if not (0 <= offset < n and 0 <= last < n):
        return None
    return x[offset + np.arange(size) * stride]


def test_window_at_data_offsets():
    x = np.arange(10, dtype=np.float32)
    run = program(WINDOW)
    np.testing.assert_array_equal(run(x, np.array([2, 3, 2], np.int64)), [2, 4, 6])
    np.testing.assert_array_equal(run(x, np.array([10, 0, 1], np.int64)), np.zeros(0, np.float32))
    with pytest.raises(IndexError, match=r"^-:11:8: index 10 is out of bounds for axis 0 with size 10$"):
        run(x, np.array([4, 4, 2], np.int64))  # reaches 4 + 3*2 = 10
    with pytest.raises(IndexError, match=r"^-:11:8: index -1 is out of bounds for axis 0 with size 10$"):
        run(x, np.array([-1, 1, 1], np.int64))


def test_element_indices():
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    run = program(ELEMENT)
    e, w = run(x, np.array([2, 1], np.int64), np.array(-1, np.float32))
    assert e == x[2, 1] and w[1, 2] == -1
    with pytest.raises(IndexError, match=r"^-:8:8: index 5 is out of bounds for axis 1 with size 5$"):
        run(x, np.array([0, 5], np.int64), np.array(-1, np.float32))
    with pytest.raises(IndexError, match=r"^-:10:8: index 4 is out of bounds for axis 0 with size 3$"):
        run(x, np.array([1, 4], np.int64), np.array(-1, np.float32))  # read fine at [1, 4], written at [4, 1]


def _near_bounds(n: int):
    """Offsets, sizes and strides around the bounds of a dim of size n, and
    hostile ones."""
    near = st.integers(-2, n + 2)
    hostile = st.sampled_from([-(1 << 62), -(1 << 31), (1 << 31), (1 << 62), (1 << 63) - 1, -(1 << 63)])
    return st.one_of(near, near, near, hostile)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.data())
def test_fuzz_windows(data):
    """Random windows around the bounds: the reference's result, or an
    IndexError where an index of it is outside (and no crash)."""
    n = data.draw(st.integers(0, 6))
    x = np.arange(n, dtype=np.float32) + 1
    offset, size = data.draw(_near_bounds(n)), data.draw(st.one_of(st.integers(-1, n + 2), _near_bounds(n)))
    stride = data.draw(st.sampled_from([1, 1, 2, 3, -1, 0, 1 << 62, -(1 << 62)]))
    if stride == 0:  # in bounds at any size: a size the memory holds
        size = min(size, 64)
    expected = _window_reference(x, offset, size, stride)
    if expected is None:
        with pytest.raises(IndexError, match=r"^-:11:8: index -?\d+ is out of bounds for axis 0 with size "):
            program(WINDOW)(x, np.array([offset, size, stride], np.int64))
    else:
        np.testing.assert_array_equal(program(WINDOW)(x, np.array([offset, size, stride], np.int64)), expected)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.data())
def test_fuzz_writes(data):
    """Random writes of three values around the bounds, donated or not: the
    reference's result (in place when donated), or an IndexError with x
    unchanged."""
    offset, stride = data.draw(_near_bounds(8)), data.draw(st.sampled_from([1, 2, 3, 4, -1, -3, 0, 1 << 62]))
    donate = data.draw(st.sampled_from([(), (0,)]))
    x, w = np.arange(8, dtype=np.float32) + 1, -np.arange(3, dtype=np.float32) - 1
    before = x.copy()
    run = program(WRITE_WINDOW, donate)
    if _window_reference(x, offset, 3, stride) is None:
        with pytest.raises(IndexError, match=r"^-:8:8: index -?\d+ is out of bounds for axis 0 with size 8$"):
            run(x, w, np.array([offset, stride], np.int64))
        np.testing.assert_array_equal(x, before)
    else:
        expected = x.copy()
        expected[offset + np.arange(3) * stride] = w
        result = run(x, w, np.array([offset, stride], np.int64))
        np.testing.assert_array_equal(result, expected)
        assert (result is x) == bool(donate)


DYNAMIC_SLICES = """func.func @main(%x: tensor<8x4xf32>, %u: tensor<2x4xf32>, %i: tensor<i64>) -> (tensor<8x4xf32>, tensor<2x4xf32>) {
  %z = stablehlo.constant dense<0> : tensor<i64>
  %0 = stablehlo.dynamic_update_slice %x, %u, %i, %z : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i64>, tensor<i64>) -> tensor<8x4xf32>
  %1 = stablehlo.dynamic_slice %x, %i, %z, sizes = [2, 4] : (tensor<8x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<2x4xf32>
}
"""


@pytest.mark.parametrize("donate", [(), (0,)])
def test_stablehlo_dynamic_slices_clamp(donate):
    """StableHLO clamps the starts (its spec): nothing to check, and its
    lowering (stablehlo-legalize-to-linalg) does clamp, donated or not."""
    run = program(DYNAMIC_SLICES, donate)
    for start in (-5, 3, 7, 100, 1 << 62, -(1 << 62)):
        x, u = np.arange(32, dtype=np.float32).reshape(8, 4), -np.ones((2, 4), np.float32)
        at = min(max(start, 0), 6)
        updated = x.copy()
        updated[at:at + 2] = u
        window = x[at:at + 2].copy()
        r0, r1 = run(x, u, np.array(start, np.int64))
        np.testing.assert_array_equal(r0, updated)
        np.testing.assert_array_equal(r1, window)


LOOP_UPDATE = """func.func @main(%cache: tensor<16x4xf32>, %tok: tensor<1x4xf32>, %p: tensor<i64>) -> tensor<16x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pi = tensor.extract %p[] : tensor<i64>
  %start = arith.index_cast %pi : i64 to index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %cache) -> tensor<16x4xf32> {
    %pos = arith.addi %start, %k : index
    %u = tensor.insert_slice %tok into %acc[%pos, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
    scf.yield %u : tensor<16x4xf32>
  }
  return %r : tensor<16x4xf32>
}
"""


@pytest.mark.parametrize("donate", [(), (0,)])
def test_updates_in_a_loop(donate):
    """Four rows from a data position: each iteration's insert checked;
    every bad one counted; the argument unchanged, donated too (the loop
    runs on a copy of it)."""
    run = program(LOOP_UPDATE, donate)
    cache, token = np.zeros((16, 4), np.float32), np.ones((1, 4), np.float32)
    result = run(cache, token, np.array(3, np.int64))
    assert result[3:7].all() and result.sum() == 16 and (result is cache) == bool(donate)
    cache = np.zeros((16, 4), np.float32)
    with pytest.raises(IndexError, match=r"^-:9:10: index 16 is out of bounds for axis 0 with size 16 "
                                         r"\(2 indices out of bounds\)$"):
        run(cache, token, np.array(14, np.int64))
    assert not cache.any()


# Programs written at the memref level inside functions of tensors: a
# store into a fresh buffer, and a load from an argument's buffer, each at
# positions read from the data (unchecked before: written or read outside).
MEMREF_STORE = """func.func @main(%x: tensor<4xf32>, %p: tensor<4xi64>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<16xf32>
  linalg.fill ins(%z : f32) outs(%m : memref<16xf32>)
  scf.for %k = %c0 to %c4 step %c1 {
    %v = tensor.extract %x[%k] : tensor<4xf32>
    %q = tensor.extract %p[%k] : tensor<4xi64>
    %i = arith.index_cast %q : i64 to index
    memref.store %v, %m[%i] : memref<16xf32>
  }
  %r = bufferization.to_tensor %m restrict : memref<16xf32> to tensor<16xf32>
  return %r : tensor<16xf32>
}
"""
MEMREF_LOAD = """func.func @main(%x: tensor<16xf32>, %p: tensor<4xi64>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = bufferization.to_buffer %x read_only : tensor<16xf32> to memref<16xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %e) -> tensor<4xf32> {
    %q = tensor.extract %p[%k] : tensor<4xi64>
    %i = arith.index_cast %q : i64 to index
    %v = memref.load %m[%i] : memref<16xf32>
    %u = tensor.insert %v into %acc[%k] : tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"""
MEMREF_BAD = [16, -1, 1 << 40]


def _worker(cases, tmp_path):
    """Run the cases in a worker process: a read or write far outside
    shows as a signal, not a dead test run."""
    results, done = run_in_worker(cases, tmp_path)
    name = signal.Signals(-done.returncode).name if done.returncode < 0 else done.returncode
    assert done.returncode == 0, f"the worker died ({name}):\n{done.stderr[-2000:]}"
    return results


def test_memref_store_at_data_positions(tmp_path):
    x = np.arange(4, dtype=np.float32) + 1
    good = np.array([0, 3, 5, 15], np.int64)
    cases = [{"text": MEMREF_STORE, "arrays": (x, good)}]
    cases += [{"text": MEMREF_STORE, "arrays": (x, np.array([0, 3, bad, 15], np.int64))} for bad in MEMREF_BAD]
    results = _worker(cases, tmp_path)
    expected = np.zeros(16, np.float32)
    expected[good] = x
    assert results[0][0] == "ok"
    np.testing.assert_array_equal(results[0][1], expected)
    for bad, result in zip(MEMREF_BAD, results[1:]):
        assert result == ("IndexError", f"-:12:5: index {bad} is out of bounds for axis 0 with size 16")


def test_memref_load_at_data_positions(tmp_path):
    x = np.arange(16, dtype=np.float32) + 1
    good = np.array([0, 3, 5, 15], np.int64)
    cases = [{"text": MEMREF_LOAD, "arrays": (x, good)}]
    cases += [{"text": MEMREF_LOAD, "arrays": (x, np.array([0, bad, 5, 15], np.int64))} for bad in MEMREF_BAD]
    results = _worker(cases, tmp_path)
    assert results[0][0] == "ok"
    np.testing.assert_array_equal(results[0][1], x[good])
    for bad, result in zip(MEMREF_BAD, results[1:]):
        assert result == ("IndexError", f"-:10:10: index {bad} is out of bounds for axis 0 with size 16")


CONSTANT_OUTSIDE = """func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %c5 = arith.constant 5 : index
  %m = bufferization.to_buffer %x read_only : tensor<3xf32> to memref<3xf32>
  %v = memref.load %m[%c5] : memref<3xf32>
  %r = tensor.from_elements %v : tensor<f32>
  return %r : tensor<f32>
}
"""


def test_constant_position_outside():
    """A constant position outside a static dim: reported at each run
    (before, read outside)."""
    with pytest.raises(IndexError, match=r"^-:4:8: index 5 is out of bounds for axis 0 with size 3$"):
        program(CONSTANT_OUTSIDE)(np.arange(3, dtype=np.float32))
