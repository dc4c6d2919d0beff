"""raise-tm-tensor-scatter's reading of a tm_tensor.scatter's region
(`linalg_scatters.read_region`): which reduction, and the constant a region
combines with the original instead of the update (mean's counts)."""

from __future__ import annotations

import pytest

from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.dialect.reductions import Reduction
from gmx.passes.patterns import NoMatch
from gmx.passes.raising.linalg_scatters import read_region
from gmx.passes.walking import ops_named

SCATTER = """func.func @f(%x: tensor<3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<3xf32> {{
  %one = arith.constant 1.0 : f32
  %r = tm_tensor.scatter {{dimension_map = array<i64: 0>}} unique_indices(false)
         ins(%u, %i : tensor<2xf32>, tensor<2x1xi64>) outs(%x : tensor<3xf32>) {{
  ^bb0(%a: f32, %b: f32):
    {body}
  }} -> tensor<3xf32>
  return %r : tensor<3xf32>
}}
"""


def _region(body: str):
    with make_context():
        module = ir.Module.parse(SCATTER.format(body=body))
        (op,) = ops_named(module.operation, "tm_tensor.scatter")
        reduction, constant = read_region(op)
        return reduction, None if constant is None else ir.FloatAttr(constant).value


@pytest.mark.parametrize("body, expected", [
    ("tm_tensor.yield %a : f32", (Reduction.NONE, None)),
    ("%s = arith.addf %a, %b : f32\n    tm_tensor.yield %s : f32", (Reduction.ADD, None)),
    ("%s = arith.addf %b, %a : f32\n    tm_tensor.yield %s : f32", (Reduction.ADD, None)),
    ("%s = arith.mulf %a, %b : f32\n    tm_tensor.yield %s : f32", (Reduction.MUL, None)),
    ("%s = arith.maximumf %a, %b : f32\n    tm_tensor.yield %s : f32", (Reduction.MAX, None)),
    ("%s = arith.minimumf %b, %a : f32\n    tm_tensor.yield %s : f32", (Reduction.MIN, None)),
    ("%s = arith.addf %b, %one : f32\n    tm_tensor.yield %s : f32", (Reduction.ADD, 1.0)),  # mean's counts
])
def test_read_region(body, expected):
    assert _region(body) == expected


@pytest.mark.parametrize("body", [
    "tm_tensor.yield %b : f32",  # keeps the original
    "%s = arith.subf %a, %b : f32\n    tm_tensor.yield %s : f32",  # no gmx reduction
    "%s = arith.maxnumf %a, %b : f32\n    tm_tensor.yield %s : f32",  # NaN-ignoring: not gmx's max
    "%s = arith.addf %a, %a : f32\n    tm_tensor.yield %s : f32",  # the update twice
])
def test_read_region_refuses(body):
    with pytest.raises(NoMatch):
        _region(body)
