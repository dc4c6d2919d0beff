"""Compile work linear in the gathers of one function (block_pieces, and
one fresh tensor per use before bufferization).

What was quadratic in a function of N checked gathers: scf-to-cf moving
every op after each loop or if into a new block (counted by
`moved_by_upstream_splits`), and one-shot bufferization analysing one
CSE-shared tensor.empty / linalg.fill with O(N) uses. The tests count that
work, not wall time.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmx.benchmarks.compile_layouts import n_functions, one_function
from gmx.dialect import make_context
from gmx.dialect.mlir import ir
from gmx.passes.lowering.block_pieces import (
    MIN_REGION_OPS,
    moved_by_upstream_splits,
    split_long_blocks,
    split_points,
)
from gmx.passes.lowering.gmx_destination_passing import one_empty_per_use
from gmx.passes.pipeline import build_pass_manager
from gmx.reference import gather_multiaxis
from gmx.runtime import compile

pytestmark = pytest.mark.slow_file  # started first (file_order.py)


def loops_in_one_block(n: int) -> str:
    """A function whose one block holds n scf.if, each followed by two ops."""
    body = "\n".join(
        f"  %a{k} = arith.addi %v, %v : i32\n  %b{k} = arith.cmpi slt, %a{k}, %v : i32\n"
        f"  scf.if %b{k} {{\n    func.call @f(%a{k}) : (i32) -> ()\n  }}"
        for k in range(n)
    )
    return f"func.func private @f(i32)\nfunc.func @main(%v: i32) {{\n{body}\n  return\n}}\n"


def test_split_points_only_in_long_blocks():
    few = [True, False] * MIN_REGION_OPS + [False]
    assert split_points(few) == []
    many = [True, False] * (MIN_REGION_OPS + 1) + [False]
    assert split_points(many) == list(range(0, 2 * (MIN_REGION_OPS + 1), 2))
    # A region op right before the terminator needs no piece of its own.
    assert split_points([True] * (MIN_REGION_OPS + 2) + [False])[-1] == MIN_REGION_OPS


def test_upstream_moves_are_quadratic_in_one_block():
    pattern = [False, False, True]  # a gather's ops, then its loop
    counts = [moved_by_upstream_splits(pattern * n + [False]) for n in (100, 200)]
    assert counts[1] > 3.5 * counts[0]  # the reason for this module


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.booleans(), max_size=400))
def test_split_points_bound_the_moves_of_any_block(ops):
    """Whatever the block (region ops anywhere, the terminator last), the
    pieces split_points cuts cost upstream at most one move per op."""
    kinds = [*ops, False]
    points = split_points(kinds)
    assert points == sorted(set(points)) and all(kinds[k] for k in points)
    pieces, start = [], 0
    for k in points:  # each piece ends with its region op and the branch added after it
        pieces.append([*kinds[start : k + 1], False])
        start = k + 1
    pieces.append(kinds[start:])
    moved = sum(moved_by_upstream_splits(piece) for piece in pieces)
    assert moved <= len(kinds) or not points and kinds.count(True) <= MIN_REGION_OPS


def _blocks_after_split(text: str):
    with make_context():
        module = ir.Module.parse(text)
        split_long_blocks(module.operation)
        module.operation.verify()
        main = list(module.body.operations)[-1]
        kinds = [[len(op.operation.regions) > 0 for op in block.operations] for block in main.regions[0].blocks]
        build_pass_manager(["convert-scf-to-cf"]).run(module.operation)  # still lowers
        return kinds


@pytest.mark.parametrize("n", [50, 100])
def test_split_makes_the_moves_linear(n):
    blocks = _blocks_after_split(loops_in_one_block(n))
    assert len(blocks) == n
    assert sum(moved_by_upstream_splits(kinds) for kinds in blocks) <= 3 * n


def test_short_blocks_are_left_alone():
    assert len(_blocks_after_split(loops_in_one_block(MIN_REGION_OPS))) == 1


def test_no_fresh_tensor_shared_before_bufferization():
    """After CSE one tensor.empty and one linalg.fill (a checked gather's
    flag) serve every gather of the function; each use gets its own."""
    with make_context():
        module = ir.Module.parse(one_function(6))
        build_pass_manager(["convert-gmx-to-linalg", "canonicalize", "cse"]).run(module.operation)

        def most_uses() -> int:
            uses = [0]

            def count(op):
                if op.name in ("tensor.empty", "linalg.fill"):
                    uses.append(len(list(op.results[0].uses)))
                return ir.WalkResult.ADVANCE

            module.operation.walk(count)
            return max(uses)

        assert most_uses() >= 6
        one_empty_per_use(module.operation)
        module.operation.verify()
        assert most_uses() == 1


def test_gathers_in_one_long_block_run_and_check():
    """A function long enough to be split (the benchmark's layout) gives
    the reference's result and still reports a bad index; so do the same
    gather in a function of its own."""
    n = 2 * MIN_REGION_OPS
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    i = rng.integers(-64, 64, (16, 64))
    expected = x
    for _ in range(n):
        expected = gather_multiaxis(expected, i, [1])
    program = compile(one_function(n))
    np.testing.assert_array_equal(program(x, i), expected)
    np.testing.assert_array_equal(compile(n_functions(2))(x, i), gather_multiaxis(x, i, [1]))
    i[3, 2] = 64
    with pytest.raises(IndexError, match="index 64 is out of bounds"):
        program(x, i)
