"""passes/raising/index_values.py: the evaluation cache of index arithmetic."""

from __future__ import annotations

import threading

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
