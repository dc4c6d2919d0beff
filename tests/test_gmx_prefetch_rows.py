"""gmx-prefetch-rows' decision, without IR: how many rows ahead a row copy
prefetches (PREFETCH_BYTES of rows, at least one). The pass itself is
lit_tests/passes/gmx-prefetch-rows.mlir; gathers it changes are checked
against the reference in test_runtime (streamed rows)."""

import pytest

from gmx.passes.lowering.gmx_prefetch_rows import PREFETCH_BYTES, prefetch_rows


@pytest.mark.parametrize("row_bytes, rows", [(1024, 4), (256, 16), (4096, 1), (1 << 20, 1), (3000, 2), (1, 4096)])
def test_prefetch_rows(row_bytes, rows):
    assert PREFETCH_BYTES == 4096  # the rows above are in its terms
    assert prefetch_rows(row_bytes) == rows
