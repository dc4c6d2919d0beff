"""Strided memref.copy as linalg.copy loops (`passes/lowering/strided_copies.py`):
which copies, and the same bits as the runtime's memrefCopy on every
element type, into a donated buffer and a fresh one."""

import ml_dtypes
import numpy as np
import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.passes.lowering.strided_copies import strided_copies_as_loops
from gmx.runtime import compile

COPIES = """
func.func @f(%a: memref<4x8xf32>, %b: memref<4x2xf32>, %c: memref<4x2xcomplex<f32>>, %d: memref<4x8xcomplex<f32>>,
             %e: memref<4x8xf32>, %i: index) {
  %s = memref.subview %a[0, %i] [4, 2] [1, 1] : memref<4x8xf32> to memref<4x2xf32, strided<[8, 1], offset: ?>>
  memref.copy %b, %s : memref<4x2xf32> to memref<4x2xf32, strided<[8, 1], offset: ?>>
  memref.copy %a, %e : memref<4x8xf32> to memref<4x8xf32>
  %t = memref.subview %a[0, 0] [4, 2] [1, 1] : memref<4x8xf32> to memref<4x2xf32, strided<[8, 1]>>
  memref.copy %t, %s : memref<4x2xf32, strided<[8, 1]>> to memref<4x2xf32, strided<[8, 1], offset: ?>>
  %u = memref.subview %d[0, %i] [4, 2] [1, 1] : memref<4x8xcomplex<f32>> to memref<4x2xcomplex<f32>, strided<[8, 1], offset: ?>>
  memref.copy %c, %u : memref<4x2xcomplex<f32>> to memref<4x2xcomplex<f32>, strided<[8, 1], offset: ?>>
  return
}
"""


def test_only_strided_copies_between_buffers_of_numbers_become_loops():
    with make_context():
        module = ir.Module.parse(COPIES)
        strided_copies_as_loops(module.operation)
        text = str(module)
    assert text.count("linalg.copy") == 1  # %b into a strided view of %a
    # identity layouts (a memcpy), a view of %a into %a (may overlap), complex: left
    assert text.count("memref.copy") == 3


KV = """
func.func @main(%cache: tensor<2x5x3xT>, %token: tensor<2x1x3xT>, %pos: tensor<i64>) -> tensor<2x5x3xT> {
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %r = tensor.insert_slice %token into %cache[0, %i, 0] [2, 1, 3] [1, 1, 1] : tensor<2x1x3xT> into tensor<2x5x3xT>
  return %r : tensor<2x5x3xT>
}
"""

TYPES = [("f32", np.float32), ("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f64", np.float64),
         ("i1", np.bool_), ("i8", np.int8), ("i64", np.int64), ("complex<f32>", np.complex64)]


@pytest.mark.parametrize("mlir_type, dtype", TYPES, ids=[t for t, _ in TYPES])
@pytest.mark.parametrize("donate", [(), (0,)], ids=["copied", "donated"])
def test_slice_written_bit_for_bit(mlir_type, dtype, donate):
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 256, (2, 5, 3 * np.dtype(dtype).itemsize), dtype=np.uint8)
    cache = bits.view(dtype).copy() if dtype is not np.bool_ else bits[..., :3] % 2 == 1
    token = cache[:, :1] if dtype is np.bool_ else rng.integers(0, 256, (2, 1, 3 * np.dtype(dtype).itemsize),
                                                                   dtype=np.uint8).view(dtype)
    token = np.ascontiguousarray(~token if dtype is np.bool_ else token)
    expected = cache.copy()
    expected[:, 3] = token[:, 0]
    result = compile(KV.replace("xT>", f"x{mlir_type}>"), donate=donate)(cache, token, np.array(3))
    assert (result is cache) == bool(donate)
    assert result.tobytes() == expected.tobytes()
