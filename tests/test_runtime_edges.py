"""gmx.runtime at its edges: MLIR bytecode as a module, Python numbers and
numpy scalars for rank-0 arguments, and calls on several threads while
the interpreter exits."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.runtime import CompileError, run
from gmx.runtime.scalars import number_as_array

GATHER = """func.func @main(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
SCALARS = """func.func @main(%x: tensor<f32>, %y: tensor<i8>, %b: tensor<i1>, %v: tensor<2xf32>) -> (tensor<f32>, tensor<i8>, tensor<i1>) {
  return %x, %y, %b : tensor<f32>, tensor<i8>, tensor<i1>
}
"""
V = np.zeros(2, np.float32)


def test_bytecode_is_a_module():
    with make_context():
        buffer = io.BytesIO()
        ir.Module.parse(GATHER).operation.write_bytecode(buffer)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(buffer.getvalue(), x, np.array([3, 2, 1, 0])), x[::-1])
    with pytest.raises(CompileError, match="error: "):
        run(buffer.getvalue()[:30], x, np.array([3, 2, 1, 0]))


@pytest.mark.parametrize("x, y, b", [
    (np.float32(2.5), np.int8(-3), np.bool_(True)),  # numpy scalars: 0-d arrays of their dtype
    (2.5, -3, True),  # Python numbers: the argument's dtype
    (2, 127, False),  # an int for a float argument, as numpy takes it
])
def test_scalars_for_rank_0_arguments(x, y, b):
    out = run(SCALARS, x, y, b, V)
    assert [(a.shape, a.dtype, a[()]) for a in out] == [
        ((), np.float32, np.float32(x)), ((), np.int8, np.int8(y)), ((), np.bool_, bool(b))]


@pytest.mark.parametrize("x, y, b, error", [
    (np.float64(2.5), 1, True, "argument #0 of @main must be float32\\[\\], got dtype float64"),
    (2.5, 1.5, True, "argument #1 of @main must be int8\\[\\], got dtype float64"),
    (2.5, 1, 1, "argument #2 of @main must be bool\\[\\], got dtype int64"),
    (2.5, 300, True, "argument #1 of @main is int8, and the Python int 300 does not fit it"),
])
def test_scalars_of_another_kind_are_refused(x, y, b, error):
    with pytest.raises((TypeError, ValueError), match=error):
        run(SCALARS, x, y, b, V)


def test_number_as_array_kinds():
    assert number_as_array(1, np.dtype(ml_dtypes.bfloat16), "x").dtype == ml_dtypes.bfloat16
    assert number_as_array(1j, np.dtype(np.complex64), "x").dtype == np.complex64
    assert number_as_array(1j, np.dtype(np.float32), "x") == 1j  # left for the dtype check
    assert number_as_array("1", np.dtype(np.int8), "x") == "1"


SHUTDOWN = textwrap.dedent("""\
    import threading, time
    import numpy as np
    from gmx.runtime import compile
    program = compile('''func.func @main(%x: tensor<512x1024xf32>, %i: tensor<512x1xi64>) -> tensor<512x1024xf32> {
      %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<512x1024xf32>, tensor<512x1xi64>) -> tensor<512x1024xf32>
      return %0 : tensor<512x1024xf32>
    }''', threads=2)
    x, i = np.ones((512, 1024), np.float32), np.zeros((512, 1), np.int64)
    started = threading.Event()
    def calls():
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            assert program(x, i).sum() == x.size
            started.set()
    threading.Thread(target=calls).start()
    started.wait()
    """)


def test_calls_on_threads_while_the_interpreter_exits():
    """A thread still calling once the main thread is done: the pool no
    longer takes work (`cannot schedule new futures after shutdown`), and
    the call runs on its own thread instead of raising."""
    done = subprocess.run([sys.executable, "-c", SHUTDOWN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
