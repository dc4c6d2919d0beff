"""raise-tosa-scatter: a `tosa.scatter` becomes a gmx scatter with axes = [1].

The first step of every TOSA scatter, as raise-tosa-gather is of every
gather: torch-mlir spells `aten.scatter.src` and `index_put` as a
`tosa.scatter` on the input flattened to `values[1, K, C]` with the
gather's linearised coordinates
(docs/frontends.md#tosa-and-linalg-on-tensors-scatters); the gather's folds
of the input's views (`input_views`: fold-input-reshape,
raise-linearised-indices, split-linearised-index, fold-constant-input),
rooted at gmx scatters too, then read the positions back over the input's
own dims, and view-shared-result folds the reshape of the result back.
"""

from __future__ import annotations

from .gather_spec import GatherSpec, Indexed, Iota, Zero, require_static_shape
from .scatter_spec import ScatterWrite
from .spec_rewrites import replace_by_spec
from ..patterns import pattern


def raise_tosa_scatter(op, rewriter):
    """A tosa.scatter is gmx with axes = [1] on indices with a unit dim added.

        %s = tosa.scatter %v, %i, %u : (tensor<2x5x3xf32>, tensor<2x4xi32>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>
    becomes
        %e = tensor.expand_shape %i [[0], [1, 2]] output_shape [2, 4, 1] : ... into tensor<2x4x1xi32>
        %s = "gmx.scatter_multiaxis"(%v, %e, %u) {axes = array<i64: 1>} : ... -> tensor<2x5x3xf32>
    A splat constant of updates (torch-mlir's tiled scalar, `x.scatter(1, i, -inf)`)
    becomes one broadcast element, `arith.constant dense<0xFF800000> : tensor<1x1x1xf32>`.
    TOSA leaves an index outside [0, K) undefined and forbids duplicates;
    gmx reports the first (after wrapping a negative one once) and writes the
    last of duplicates. Static shapes only (torch-mlir emits no other).
    """
    values, indices, updates = op.operands[0], op.operands[1], op.operands[2]
    n, _, c = require_static_shape(values)
    _, w = require_static_shape(indices)
    coords = [Zero() if n == 1 else Iota(0), Indexed(indices, (n, w, 1)), Zero() if c == 1 else Iota(2)]
    return replace_by_spec(op, GatherSpec(values, [n, w, c], coords, [n, w, c]), rewriter,
                           write=ScatterWrite(updates))


PATTERNS = (pattern(raise_tosa_scatter, "tosa.scatter"),)
