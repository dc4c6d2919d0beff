"""--gmx-lower-tosa-negate: integer negation runs at every width, equal to
numpy's and torch's two's complement `-x` (upstream's tosa-to-linalg does
not verify on i64 and saturates narrower types)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gmx.passes.lowering.gmx_lower_tosa_negate import is_plain_negation
from gmx.runtime import compile
from gmx.tools.experiments.frontends import torch_to_tosa

NEGATE = """func.func @main(%x: tensor<{shape}x{t}>) -> tensor<{shape}x{t}> {{
  %zp = "tosa.const"() <{{values = dense<0> : tensor<1x{t}>}}> : () -> tensor<1x{t}>
  %0 = tosa.negate %x, %zp, %zp : (tensor<{shape}x{t}>, tensor<1x{t}>, tensor<1x{t}>) -> tensor<{shape}x{t}>
  return %0 : tensor<{shape}x{t}>
}}
"""


def test_which_negates_are_subtractions():
    assert is_plain_negation(64, [0, 0]) and is_plain_negation(8, [0, 0])
    assert is_plain_negation(64, [None, None]) and is_plain_negation(16, [None, 0])  # TOSA: zero points 0 but on i8
    assert not is_plain_negation(8, [3, 3]) and not is_plain_negation(8, [None, 0])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("shape", ["6", "?"])
def test_negate_wraps_as_numpy_at_every_width(dtype, shape):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, -1, 0, 1, info.max], dtype=dtype)
    t = f"i{info.bits}"
    negate = compile(NEGATE.format(shape=shape, t=t))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(negate(x), -x)


def test_torch_int64_negation_through_a_gather_equals_eager():
    """DeBERTa-style relative positions: a gather indexed by `k - i` on
    int64 (torch-mlir exports `-i` as an i64 tosa.negate)."""

    def relative(x, i):
        return torch.gather(x, 1, -i + 3)

    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    i = torch.tensor([[0, 1, 2], [3, 2, 1], [1, 1, 0], [2, 0, 3]], dtype=torch.int64)
    program = compile(torch_to_tosa(relative, [x, i]))
    np.testing.assert_array_equal(program(x.numpy(), i.numpy()), relative(x, i).numpy())
