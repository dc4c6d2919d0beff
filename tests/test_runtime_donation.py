"""`gmx.runtime.compile(..., donate=(k, ...))`: results written into the
caller's arrays, in place; arguments not donated never written; bad
donations refused before any work."""

import threading

import numpy as np
import pytest

from gmx.dialect import GmxError
from gmx.passes.lowering.runtime_abi import NOT_DONATED, pair_donations
from gmx.runtime import CompileError, compile
from gmx.runtime.errors import DonatedTypeError, DonationError

# A KV-cache update: one token's keys written at a position read from a tensor.
KV = """
func.func @main(%cache: tensor<2x3x8x4xf32>, %token: tensor<2x3x1x4xf32>, %pos: tensor<i64>) -> tensor<2x3x8x4xf32> {
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %r = tensor.insert_slice %token into %cache[0, 0, %i, 0] [2, 3, 1, 4] [1, 1, 1, 1]
      : tensor<2x3x1x4xf32> into tensor<2x3x8x4xf32>
  return %r : tensor<2x3x8x4xf32>
}
"""

# x + 1, written into x's own buffer (`outs(%x)`).
INCREMENT = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%x : tensor<5x7xf32>) {
  ^bb0(%o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %o, %one : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
"""

# Rows of %x gathered by %i, written into %out (donated), or into %x itself.
GATHER = """
func.func @main(%x: tensor<4x3xf32>, %i: tensor<4x1xi64>, %out: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "gmx.gather_multiaxis"(%x, %i) {axes = array<i64: 0>} : (tensor<4x3xf32>, tensor<4x1xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
"""

# Two results of one type, and one of another.
TWO_RESULTS = """
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<2xi32>) -> (tensor<3xf32>, tensor<2xi32>, tensor<3xf32>) {
  %s = arith.addf %a, %b : tensor<3xf32>
  %d = arith.subf %a, %b : tensor<3xf32>
  %c2 = arith.addi %c, %c : tensor<2xi32>
  return %s, %c2, %d : tensor<3xf32>, tensor<2xi32>, tensor<3xf32>
}
"""


def _read_only(array):
    array = array.copy()
    array.flags.writeable = False
    return array


def _kv_inputs(pos=5):
    rng = np.random.default_rng(0)
    cache = rng.standard_normal((2, 3, 8, 4)).astype(np.float32)
    token = rng.standard_normal((2, 3, 1, 4)).astype(np.float32)
    return cache, token, np.array(pos, np.int64)


def _kv_expected(cache, token, pos):
    expected = cache.copy()
    expected[:, :, int(pos)] = token[:, :, 0]
    return expected


# --- the pairing, decided without IR ------------------------------------------------------


def test_each_result_takes_the_first_donated_argument_of_its_type():
    assert pair_donations(["f", "f", "i"], ["f", "i", "f"], (0, 1)) == (0, NOT_DONATED, 1)
    assert pair_donations(["f", "f", "i"], ["f", "i", "f"], (1, 2)) == (1, 2, NOT_DONATED)
    assert pair_donations(["f"], ["i"], (0,)) == (NOT_DONATED,)
    assert pair_donations(["f", "f"], ["f"], (1, 0)) == (0,)


# --- in place, and the same bits as without donating -----------------------------------------


def test_kv_cache_update_is_the_donated_array():
    cache, token, pos = _kv_inputs()
    expected = compile(KV)(_read_only(cache), _read_only(token), _read_only(pos))
    np.testing.assert_array_equal(expected, _kv_expected(cache, token, pos))
    program = compile(KV, donate=(0,))
    assert program.donations == (0,) and program.donate == (0,)
    token_ro, pos_ro = _read_only(token), _read_only(pos)
    result = program(cache, token_ro, pos_ro)
    assert result is cache
    np.testing.assert_array_equal(cache, expected)
    result = program(result, token_ro, np.array(0))  # the next step updates the same array
    assert result is cache and np.array_equal(cache[:, :, 0], token[:, :, 0])


def test_elementwise_update_outs_the_donated_argument():
    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    expected = compile(INCREMENT)(_read_only(x))
    result = compile(INCREMENT, donate=[0])(x)
    assert result is x
    np.testing.assert_array_equal(x, expected)
    np.testing.assert_array_equal(x, np.arange(35, dtype=np.float32).reshape(5, 7) + 1)


@pytest.mark.parametrize("donated", [2, 0], ids=["into-out", "into-its-own-input"])
def test_gather_written_into_a_donated_argument(donated):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    i = np.array([[3], [1], [-4], [2]])
    out = np.full((4, 3), -1, np.float32)
    expected = compile(GATHER)(_read_only(x), _read_only(i), _read_only(out))
    np.testing.assert_array_equal(expected, x[[3, 1, 0, 2]])
    program = compile(GATHER, donate=(donated,))
    args = [_read_only(x), _read_only(i), _read_only(out)]
    args[donated] = (x if donated == 0 else out).copy()
    result = program(*args)
    assert result is args[donated]
    np.testing.assert_array_equal(result, expected)


def test_index_error_leaves_the_donated_buffer_unchanged():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    program = compile(GATHER, donate=(2,))
    out = np.full((4, 3), -1, np.float32)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        program(x, np.array([[0], [9], [1], [2]]), out)
    assert (out == -1).all()


def test_several_results_pair_by_type():
    a, b, c = np.arange(3, dtype=np.float32), np.ones(3, np.float32), np.array([5, 6], np.int32)
    expected = compile(TWO_RESULTS)(a, b, c)
    program = compile(TWO_RESULTS, donate=(1, 2, 0))
    assert program.donations == (0, 2, 1)
    args = (a.copy(), b.copy(), c.copy())
    results = program(*args)
    assert [r is g for r, g in zip(results, (args[0], args[2], args[1]))] == [True] * 3
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)
    partial = compile(TWO_RESULTS, donate=(1,))
    assert partial.donations == (1, None, None)
    b2 = b.copy()
    results = partial(_read_only(a), b2, _read_only(c))
    assert results[0] is b2 and results[2] is not b2
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)


def test_threads_each_update_their_own_cache():
    program = compile(KV, donate=(0,))
    failures = []

    def work(seed):
        cache, token, _ = _kv_inputs()
        cache += seed
        for pos in range(8):
            expected = _kv_expected(cache, token + pos, pos)
            if program(cache, token + pos, np.array(pos)) is not cache or not np.array_equal(cache, expected):
                failures.append(seed)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_compile_cache_distinguishes_donate():
    assert compile(INCREMENT) is not compile(INCREMENT, donate=(0,))
    assert compile(INCREMENT, donate=(0,)) is compile(INCREMENT, donate=[0])
    x = np.zeros((5, 7), np.float32)
    assert compile(INCREMENT)(x) is not x and (x == 0).all()


# --- refusals, before any work ------------------------------------------------------------


@pytest.mark.parametrize("make, error, message", [
    (lambda c: _read_only(c), DonationError, r"donated argument #0 of @main is read-only"),
    (lambda c: np.asfortranarray(c), DonationError, r"is not C-contiguous"),
    (lambda c: c.astype(np.float64), DonatedTypeError, r"must be f(loat)?32\[2x3x8x4\], got dtype float64"),
    (lambda c: c[:, :, :4].copy(), DonationError, r"got shape \[2, 3, 4, 4\]"),
    (lambda c: c.tolist(), DonatedTypeError, r"must be a numpy array .* got list"),
], ids=["read-only", "not-contiguous", "dtype", "shape", "list"])
def test_bad_donated_argument_is_refused(make, error, message):
    cache, token, pos = _kv_inputs()
    bad = make(cache)
    before = np.array(bad, copy=True)
    with pytest.raises(error, match=message) as raised:
        compile(KV, donate=(0,))(bad, token, pos)
    assert isinstance(raised.value, GmxError)
    assert isinstance(raised.value, TypeError if error is DonatedTypeError else ValueError)
    np.testing.assert_array_equal(np.asarray(bad), before)


def test_donated_array_passed_again_is_refused():
    a = np.arange(3, dtype=np.float32)
    with pytest.raises(DonationError, match=r"donated argument #0 of @main shares memory with argument #1"):
        compile(TWO_RESULTS, donate=(0,))(a, a, np.zeros(2, np.int32))
    np.testing.assert_array_equal(a, np.arange(3, dtype=np.float32))
    with pytest.raises(DonationError, match=r"shares memory"):
        compile(TWO_RESULTS, donate=(0, 1))(a, a, np.zeros(2, np.int32))


@pytest.mark.parametrize("donate, error, message", [
    ((3,), DonationError, r"donate names argument #3, @main takes 3 arguments"),
    ((0, 0), DonationError, r"names an argument twice"),
    ((-1,), DonationError, r"negative"),
    ((2,), DonationError, r"donated argument #2 of @main \(tensor<2xi32>\) is taken by no result"),
    ((0, 1, 2, 0), DonationError, r"twice"),
    (0, TypeError, r"donate must be a tuple of argument indices"),
    ((True,), TypeError, r"donate must be a tuple"),
    (("0",), TypeError, r"donate must be a tuple"),
], ids=repr)
def test_bad_donate_is_refused(donate, error, message):
    with pytest.raises(error, match=message):
        compile(TWO_RESULTS.replace("tensor<2xi32>) -> (tensor<3xf32>, tensor<2xi32>, tensor<3xf32>)",
                                    "tensor<2xi32>) -> (tensor<3xf32>, tensor<3xf32>)")
                .replace("return %s, %c2, %d : tensor<3xf32>, tensor<2xi32>, tensor<3xf32>",
                         "return %s, %d : tensor<3xf32>, tensor<3xf32>"), donate=donate)


def test_donation_needs_static_shapes():
    dynamic = INCREMENT.replace("tensor<5x7xf32>", "tensor<?x7xf32>")
    with pytest.raises(DonationError, match=r"dynamic shape .* donation needs arguments and results of static shape"):
        compile(dynamic, donate=(0,))


def test_forged_donations_are_refused():
    forged = INCREMENT.replace("-> tensor<5x7xf32> {", "-> tensor<5x7xf32> attributes {gmx.donations = array<i64: 0>} {")
    with pytest.raises(CompileError, match=r"carries 'gmx.donations'"):
        compile(forged)


def test_lowered_module_donates_what_it_was_lowered_with():
    from gmx.dialect import make_context
    from gmx.dialect.mlir import ir, passmanager
    from gmx.passes.lowering.gmx_lower_to_llvm import LowerOptions, add_lowering

    with make_context():
        module = ir.Module.parse(INCREMENT.replace(
            "-> tensor<5x7xf32> {", "-> tensor<5x7xf32> attributes {gmx.donations = array<i64: 0>} {"))
        pm = passmanager.PassManager("builtin.module")
        add_lowering(pm, LowerOptions(destinations=True))
        pm.run(module.operation)
        lowered = str(module)
    with pytest.raises(DonationError, match=r"lowered with donated arguments \(0,\): compile it with donate=\(0,\)"):
        compile(lowered)
    x = np.zeros((5, 7), np.float32)
    assert compile(lowered, donate=(0,))(x) is x and (x == 1).all()


# --- gmx-bench: a donating contender gets its inputs as they were, per call -------------------


def test_donating_contender_is_timed_on_fresh_inputs():
    from gmx.tools.experiments.contenders import Case, Fused, check, time_run

    x = np.zeros((5, 7), np.float32)
    case = Case(study=None, inputs=(x,), expected=x + 1, text=INCREMENT, export_s=0.0)
    run = check([Fused("gmx donated", fused_text=INCREMENT, donate=(0,))], case)
    assert run.results["gmx donated"].status == "equal"
    results = []
    run.calls = {"gmx donated": lambda call=run.calls["gmx donated"]: results.append(call().copy())}
    time_run(run, repeat=3, warmup=1)
    assert len(results) == 4 and all((r == 1).all() for r in results)  # never 2, 3, ...
    assert (x == 0).all()  # the case's own inputs are never written


# --- IREE: the same contract, by a copy into the donated array ------------------------------


def test_iree_writes_the_donated_array_after_a_clean_call():
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    cache, token, pos = _kv_inputs()
    program = compile(KV, backend="iree", donate=(0,))
    assert program.donations == (0,)
    expected = _kv_expected(cache, token, pos)
    assert program(cache, _read_only(token), _read_only(pos)) is cache
    np.testing.assert_array_equal(cache, expected)
    with pytest.raises(DonationError, match="is read-only"):
        program(_read_only(cache), token, pos)
    gather = compile(GATHER, backend="iree", donate=(2,))
    out = np.full((4, 3), -1, np.float32)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        gather(np.zeros((4, 3), np.float32), np.array([[0], [9], [1], [2]]), out)
    assert (out == -1).all()


def test_run_donates_too():
    from gmx.runtime import run

    x = np.zeros((5, 7), np.float32)
    assert run(INCREMENT, x, donate=(0,)) is x and (x == 1).all()
