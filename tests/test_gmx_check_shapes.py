"""--gmx-check-shapes: in checked mode, dynamic sizes that the program's
ops require equal and that disagree at run time are gmx's located
ValueError (as numpy, torch and JAX raise), never a read past a buffer."""

from __future__ import annotations

import numpy as np
import pytest

from gmx.passes.lowering.gmx_check_shapes import is_shape_check
from gmx.runtime import compile

PROGRAMS = {
    "tosa.add": """func.func @main(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tosa.add %x, %y : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
""",
    "stablehlo.add": """func.func @main(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.add %x, %y : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
""",
    "linalg.add": """func.func @main(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %0 = linalg.add ins(%x, %y : tensor<?x3xf32>, tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
""",
}
CAST = """func.func @main(%x: tensor<?x3xf32>) -> tensor<4x3xf32> {
  %0 = tensor.cast %x : tensor<?x3xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
"""


def test_kept_checks():
    assert is_shape_check("ERROR: Runtime op verification failed\n^ size mismatch of dim 0\nLocation: x")
    assert not is_shape_check("ERROR: Runtime op verification failed\n^ index is out of bounds\nLocation: x")


@pytest.mark.parametrize("name", PROGRAMS)
def test_disagreeing_dynamic_sizes_raise(name):
    program = compile(PROGRAMS[name])
    x, y = np.ones((4, 3), np.float32), np.arange(15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_array_equal(program(y, y), y + y)
    with pytest.raises(ValueError, match=r"^-:\d+:\d+: dimension #0 of input/output operand #\d is incompatible"):
        program(x, y)


def test_cast_to_a_static_shape_checks_the_argument():
    program = compile(CAST)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(program(x), x)
    with pytest.raises(ValueError, match=r"^-:2:8: size mismatch of dim 0$"):
        program(np.ones((100000, 3), np.float32))
