"""passes/raising/index_values.py: the evaluation cache of index arithmetic;
with the integer ops (`integer_ops`) and the index maps (`index_maps`) it
evaluates and judges."""

from __future__ import annotations

import threading

import numpy as np

from gmx.passes.raising.index_values import _current_cache, evaluation_cache


def test_evaluation_caches_are_per_thread():
    # gmx.runtime compiles in several threads at once and every compile runs
    # a raising pattern: one thread's cache must never serve, or be reset
    # by, another thread's match.
    entered, leave, seen = threading.Event(), threading.Event(), {}

    def other_thread():
        with evaluation_cache():
            seen["other"] = _current_cache()
            entered.set()
            leave.wait(5)

    with evaluation_cache():
        mine = _current_cache()
        thread = threading.Thread(target=other_thread)
        thread.start()
        assert entered.wait(5)
        assert seen["other"] is not None and seen["other"] is not mine
        leave.set()
        thread.join()
        assert _current_cache() is mine
    assert _current_cache() is None


def test_nested_blocks_keep_the_outer_cache():
    with evaluation_cache():
        outer = _current_cache()
        with evaluation_cache():
            assert _current_cache() is outer
        assert _current_cache() is outer


# torch-mlir stores literals (an arange buffer, torch.tensor([...])) as
# dense_resource blobs: "0x" + 4 bytes of alignment + little-endian elements.
_RESOURCE_PROGRAM = """
func.func @main() -> (tensor<1x3xi64>, tensor<2xi64>, tensor<2x2xi64>, tensor<1x2xf32>) {
  %buffer = "tosa.const"() <{values = dense_resource<positions> : tensor<1x5xi64>}> : () -> tensor<1x5xi64>
  %start = tosa.const_shape {values = dense<[0, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %slice = tosa.slice %buffer, %start, %size : (tensor<1x5xi64>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x3xi64>
  %flat = tensor.collapse_shape %buffer [[0, 1]] : tensor<1x5xi64> into tensor<5xi64>
  %every_other = tensor.extract_slice %flat[1] [2] [2] : tensor<5xi64> to tensor<2xi64>
  %empty = tensor.empty() : tensor<2x2xi64>
  %rows = linalg.broadcast ins(%every_other : tensor<2xi64>) outs(%empty : tensor<2x2xi64>) dimensions = [0]
  %weights = "tosa.const"() <{values = dense_resource<weights> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
  return %slice, %every_other, %rows, %weights : tensor<1x3xi64>, tensor<2xi64>, tensor<2x2xi64>, tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      positions: "0x08000000070000000000000001000000000000000200000000000000FDFFFFFFFFFFFFFF0400000000000000",
      weights: "0x040000000000803F00000040"
    }
  }
#-}
"""


def test_constants_read_through_resources_slices_and_broadcasts():
    import numpy as np

    from gmx.dialect import make_context
    from gmx.dialect.mlir import ir
    from gmx.passes.raising.index_values import constant_value

    with make_context():
        module = ir.Module.parse(_RESOURCE_PROGRAM)
        ret = list(module.body.operations[0].regions[0].blocks[0].operations)[-1]
        values = [constant_value(v) for v in ret.operands]
    assert values[0].tolist() == [[1, 2, -3]]
    assert values[1].tolist() == [1, -3]
    assert values[2].tolist() == [[1, -3], [1, -3]]
    assert values[3] is None  # float data is not an index


def _torch_mlir_floor_modulo(size, width=64):
    """torch-mlir's TOSA floor modulo, in numpy with its wrap to `width`."""
    from gmx.passes.raising.integer_ops import truncating_divide, wrap_to_width

    def f(t):
        q = truncating_divide(t, np.full_like(t, size))
        negative = 0 > wrap_to_width(t * size, width)
        inexact = wrap_to_width(q * size, width) != t
        return wrap_to_width(t - size * np.where(negative & inexact, q - 1, q), width)

    return f


def test_is_floor_modulo():
    from gmx.passes.raising.index_maps import is_floor_modulo
    from gmx.passes.raising.integer_ops import wrap_to_width

    assert is_floor_modulo(lambda t: np.mod(t, 5), 64, 5)
    assert is_floor_modulo(_torch_mlir_floor_modulo(5), 64, 5)  # exact while |t| * 5 fits
    assert is_floor_modulo(_torch_mlir_floor_modulo(7, 32), 32, 7)
    assert not is_floor_modulo(_torch_mlir_floor_modulo(5), 64, 4)  # another size
    assert not is_floor_modulo(lambda t: np.fmod(t, 5), 64, 5)  # truncating: -1 -> -1
    assert not is_floor_modulo(lambda t: np.mod(wrap_to_width(t, 32), 5), 64, 5)  # a cast first
    assert not is_floor_modulo(lambda t: np.where(t < 0, t + 5, t), 64, 5)  # negatives wrapped once
    assert not is_floor_modulo(lambda t: np.mod(t, 5), 64, 0)


def test_a_narrowing_cast_of_an_index_is_judged_on_the_values_it_holds():
    """torch-mlir's i64 -> i32 cast of an index assumes in-range values: the
    map is checked at the narrow width, where the cast is exact, and gmx then
    reads the wide index (2**32 + 1 an IndexError, not row 1)."""
    from gmx.passes.raising.index_maps import checked_width, is_floor_modulo, wraps_like_gmx
    from gmx.passes.raising.integer_ops import wrap_to_width

    assert checked_width(64, []) == 64
    assert checked_width(64, [32]) == 32
    assert checked_width(64, [32, 16]) == 16
    assert checked_width(32, [64]) == 32  # never wider than the leaf
    cast = lambda t: wrap_to_width(t, 32)  # noqa: E731
    normalised = lambda t: wrap_to_width(np.where(cast(t) < 0, cast(t) + 10, cast(t)), 32)  # noqa: E731
    for function in (cast, normalised):
        assert not wraps_like_gmx(function, 64, 10)  # probes past i32 truncate into range
        assert wraps_like_gmx(function, checked_width(64, [32]), 10)
    # a floor modulo after the cast: gmx's wrap on the values i32 holds
    assert is_floor_modulo(lambda t: np.mod(cast(t), 5), checked_width(64, [32]), 5)
    # what is not gmx's on the narrow values stays so: a mask, another dim's wrap
    assert not wraps_like_gmx(lambda t: np.bitwise_and(cast(t), 7), checked_width(64, [32]), 10)
    assert not wraps_like_gmx(lambda t: np.where(cast(t) < 0, cast(t) + 9, cast(t)), checked_width(64, [32]), 10)
