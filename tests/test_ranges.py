"""passes/lowering/ranges.py: the interval rules that let
--gmx-check-linalg-extracts leave a position unchecked, without IR."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gmx.passes.lowering.ranges import Range, full

SMALL = st.integers(-12, 12)


@st.composite
def ranges(draw):
    a, b = draw(SMALL), draw(SMALL)
    return Range(min(a, b), max(a, b))


def _values(r: Range):
    return range(r.lo, r.hi + 1)


@settings(deadline=None, max_examples=60)
@given(ranges(), ranges())
def test_arithmetic_holds_every_pair(a, b):
    for x in _values(a):
        for y in _values(b):
            assert a.add(b).lo <= x + y <= a.add(b).hi
            assert a.sub(b).lo <= x - y <= a.sub(b).hi
            assert a.mul(b).lo <= x * y <= a.mul(b).hi
            assert a.min(b).lo <= min(x, y) <= a.min(b).hi
            assert a.max(b).lo <= max(x, y) <= a.max(b).hi
            assert a.union(b).lo <= x <= a.union(b).hi


@given(ranges(), st.integers(1, 9))
def test_rem_and_div_by_a_constant(a, k):
    signed = a.rem(Range(k, k), signed=True)
    unsigned = a.rem(Range(k, k), signed=False)
    for x in _values(a):
        r = abs(x) % k * (1 if x >= 0 else -1)  # remsi: the sign of the dividend
        assert signed.lo <= r <= signed.hi
        assert unsigned.lo <= (x % (1 << 64)) % k <= unsigned.hi
    if a.lo >= 0:
        assert all(a.div(Range(k, k)).lo <= x // k <= a.div(Range(k, k)).hi for x in _values(a))
    else:
        assert a.div(Range(k, k)) is None


def test_nothing_proven_of_an_unknown_divisor_or_the_full_range():
    assert Range(0, 9).rem(Range(1, 3), signed=False) is None
    assert Range(0, 9).div(Range(0, 0)) is None
    assert not full(64).within(1 << 62)
    assert full(32) == Range(-(1 << 31), (1 << 31) - 1)


def test_clamp_proves_an_index():
    clamped = full(64).max(Range(0, 0)).min(Range(99, 99))
    assert clamped == Range(0, 99) and clamped.within(100) and not clamped.within(99)


def test_fits():
    assert Range(-128, 127).fits(8) and not Range(0, 128).fits(8)
