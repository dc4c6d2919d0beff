"""Whether `--gmx-lower-to-llvm` runs a `gmx.scatter_multiaxis` yet.

A program whose scatters `--gmx-canonicalize` raised runs only once the
engine lowers the scatter op. The run-equal-to-eager checks of such programs
call `skip_unless_scatters_lower(text)`: skipped with the lowering's own
error while it cannot, checked by themselves as soon as it can (tried once
per session on a tiny scatter, its result compared with the reference).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gmx.dialect import SCATTER_OP_NAME
from gmx.dialect.errors import GmxError
from gmx.reference.semantics import scatter_multiaxis

TINY = """func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = "gmx.scatter_multiaxis"(%x, %i, %u) {axes = array<i64: 0>, reduction = "add"}
       : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
"""


@functools.cache
def scatter_lowering_gap() -> str | None:
    """None when the engine runs a scatter right; else why not (one line)."""
    import gmx.runtime

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    i = np.array([[2], [2]], np.int64)
    u = np.ones((2, 3), np.float32)
    try:
        got = gmx.runtime.run(TINY, x, i, u)
    except GmxError as error:
        return str(error).strip().splitlines()[0]
    got = got[0] if isinstance(got, (tuple, list)) else got
    want = scatter_multiaxis(x, i, u, [0], reduction="add")
    return None if np.array_equal(got, want) else "the engine's scatter differs from the reference"


def skip_unless_scatters_lower(text: str) -> None:
    """Skip the calling test when `text` holds a gmx scatter the engine cannot run yet."""
    if SCATTER_OP_NAME in text:
        gap = scatter_lowering_gap()
        if gap is not None:
            pytest.skip(f"gmx.scatter_multiaxis does not lower yet ({gap})")
