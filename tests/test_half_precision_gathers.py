"""Gathers copy half-precision elements bit for bit: every one of the 65,536
bf16 and f16 bit patterns (subnormals, both zeros, infinities, quiet and
signalling NaNs with payloads) comes out as it went in, through the
vectorised static lowering and the scalar loops of dynamic shapes (where
x86 would otherwise round bf16 through f32 and flush subnormals)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from gather_programs import gather_module
from gmx.runtime import compile

EVERY_PATTERN = np.arange(1 << 16, dtype=np.uint16)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "f16"])
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("axes, indices_shape", [((0,), (1 << 16, 1)), ((), (1 << 16, 3))],
                         ids=["gathered rows", "broadcast"])
def test_every_bit_pattern_survives(dtype, dynamic, axes, indices_shape):
    x = EVERY_PATTERN.view(dtype).reshape(-1, 1)
    rng = np.random.default_rng(0)
    if axes:
        indices = rng.permutation(1 << 16).reshape(indices_shape).astype(np.int64)
        want = EVERY_PATTERN[indices[:, 0]].reshape(-1, 1)
    else:
        indices = np.zeros(indices_shape, np.int64)
        want = np.repeat(EVERY_PATTERN.reshape(-1, 1), indices_shape[1], axis=1)
    dims = (0, 1) if dynamic else ()
    program = compile(gather_module(x.shape, indices_shape, axes, dtype, np.int64, dims, dims))
    got = program(x, indices)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.view(np.uint16), want)
