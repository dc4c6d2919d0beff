"""StableHLO's reference interpreter as a test oracle, and whether gmx
lowers the out-of-range modes yet.

    want = interpret(text, *arrays)   # eval_module on a StableHLO module, numpy out
    if modes_lowered(): ...           # gmx runs mode "clip" as StableHLO clamps
"""

from __future__ import annotations

import functools

import numpy as np

import gmx.runtime
from gmx.dialect import make_context
from gmx.dialect.mlir import ir, stablehlo


def interpret(text: str, *arrays: np.ndarray) -> tuple:
    """The results of `text`'s `@main` on `arrays` by the StableHLO
    interpreter (`eval_module`), as numpy arrays of the result types (f32,
    f64, i32, i64)."""
    with make_context():
        module = ir.Module.parse(text)
        results = stablehlo.eval_module(module, [ir.DenseElementsAttr.get(np.ascontiguousarray(a)) for a in arrays])
        out = []
        for result in results:
            shaped = ir.RankedTensorType(result.type)
            cls = ir.DenseFPElementsAttr if isinstance(shaped.element_type, (ir.F32Type, ir.F64Type)) else ir.DenseIntElementsAttr
            dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}[str(shaped.element_type)]
            out.append(np.array(cls(result), dtype=dtype).reshape(shaped.shape))
        return tuple(out)


CLIP_PROBE = """
func.func @main(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %g = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>, mode = "clip"} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
"""


@functools.lru_cache(maxsize=None)
def modes_lowered() -> bool:
    """Whether gmx's lowering clamps in mode "clip" (x[7] of 3 reads x[2],
    x[-5] reads x[0]) rather than reporting the index."""
    x = np.array([10.0, 20.0, 30.0], np.float32)
    try:
        got = gmx.runtime.run(CLIP_PROBE, x, np.array([7, -5], np.int64))
    except IndexError:
        return False
    return bool(np.array_equal(got, [30.0, 10.0]))
