"""A plain `tosa.gather` compiled by gmx.runtime is bounds-checked.

`--gmx-lower-to-llvm` raises every tosa.gather into gmx.gather_multiaxis
(`axes = [1]`) before upstream's tosa-to-linalg, which has no bounds check:
on today's main an index equal to the axis size read garbage and large or
negative ones crashed the process. The bad values run in a subprocess, so
a crash fails the test instead of the test run. A negative index wraps
once, as every gmx index does (TOSA leaves it undefined).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import gmx.runtime

K = 3  # the gathered axis


def tosa_gather(index_type: str = "i32", n: str = "2", w: str = "2") -> str:
    values, indices, result = f"tensor<{n}x{K}x2xf32>", f"tensor<{n}x{w}x{index_type}>", f"tensor<{n}x{w}x2xf32>"
    return (
        f"func.func @main(%v: {values}, %i: {indices}) -> {result} {{\n"
        f"  %0 = tosa.gather %v, %i : ({values}, {indices}) -> {result}\n"
        f"  return %0 : {result}\n"
        "}\n"
    )


def reference(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """tosa.gather(values[N, K, C], indices[N, W]) -> [N, W, C], a negative index wrapped once."""
    wrapped = np.where(indices < 0, indices + values.shape[1], indices)
    return np.take_along_axis(values, wrapped[:, :, None].astype(np.int64), axis=1)


VALUES = np.arange(2 * K * 2, dtype=np.float32).reshape(2, K, 2)

# Run in a child: compile once, call once per bad value, one JSON line each.
CHILD = """
import json, sys
import numpy as np
import gmx.runtime
text, dtype, bad = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
program = gmx.runtime.compile(text)
values = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
for value in bad:
    indices = np.array([[0, 1], [2, 0]], dtype=dtype)
    indices[1, 0] = value
    try:
        result = program(values, indices)
        print(json.dumps([value, "ok", result.tolist()]), flush=True)
    except IndexError as error:
        print(json.dumps([value, "IndexError", str(error)]), flush=True)
"""

I32_BAD = [K, K + 1000, 2**31 - 1, -K - 1, -(2**31)]
I64_BAD = [K, K + 1000, 2**31 - 1, 2**31, -K - 1, 2**63 - 1, -(2**63)]


@pytest.mark.parametrize("index_type, dtype, bad", [("i32", "int32", I32_BAD), ("i64", "int64", I64_BAD)])
def test_bad_indices_are_an_index_error_not_a_crash(index_type, dtype, bad):
    child = subprocess.run(
        [sys.executable, "-c", CHILD, tosa_gather(index_type), dtype, json.dumps(bad)],
        capture_output=True, text=True, timeout=120,
    )
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stdout}{child.stderr[-2000:]}"
    lines = [json.loads(line) for line in child.stdout.splitlines()]
    assert [line[0] for line in lines] == bad
    for value, outcome, message in lines:
        assert outcome == "IndexError", f"index {value}: {outcome} {message}"
        assert f"index {value} is out of bounds for axis 1 with size {K}" in message


@pytest.mark.parametrize("checked", [True, False])
def test_good_indices_are_gathered_exactly(checked):
    indices = np.array([[0, K - 1], [-1, -K]], dtype=np.int32)  # negative: wrapped once
    got = gmx.runtime.run(tosa_gather(), VALUES, indices, checked=checked)
    np.testing.assert_array_equal(got, reference(VALUES, indices))
    assert got.dtype == np.float32


def test_dynamic_tosa_gather_is_raised_and_checked():
    """torch-mlir's embedding indices are `1x?`; TOSA's validation refuses
    the dynamic tosa.gather, the raised program runs and checks."""
    text = tosa_gather("i32", n="1", w="?")
    values = VALUES[:1]
    indices = np.array([[2, 0, -1]], dtype=np.int32)
    np.testing.assert_array_equal(gmx.runtime.run(text, values, indices), reference(values, indices))
    with pytest.raises(IndexError, match=f"index {K} is out of bounds for axis 1 with size {K}"):
        gmx.runtime.run(text, values, np.array([[0, K]], dtype=np.int32))


def test_a_static_result_that_the_arguments_contradict_is_a_value_error():
    """raise-tosa-gather casts the gather back to the tosa.gather's more
    static type; a cast the arguments contradict (TOSA leaves it undefined)
    must not hand back a result of another shape than the signature's."""
    values, indices, result = "tensor<?x3x2xf32>", "tensor<?x2xi32>", "tensor<4x2x2xf32>"
    text = (
        f"func.func @main(%v: {values}, %i: {indices}) -> {result} {{\n"
        f"  %0 = tosa.gather %v, %i : ({values}, {indices}) -> {result}\n"
        f"  return %0 : {result}\n"
        "}\n"
    )
    program = gmx.runtime.compile(text)
    four = np.arange(4 * K * 2, dtype=np.float32).reshape(4, K, 2)
    indices = np.array([[0, 2]] * 4, dtype=np.int32)
    np.testing.assert_array_equal(program(four, indices), reference(four, indices))
    # Checked mode asserts the cast (--gmx-check-shapes), located at the gather.
    with pytest.raises(ValueError, match=r"^-:2:8: size mismatch of dim 0$"):
        program(four[:1], indices[:1])
