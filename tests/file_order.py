"""The order the test files are run in: the slow ones first.

pytest-xdist's `--dist loadfile` hands each worker a whole file at a time,
in the order of the collection (`--no-loadscope-reorder`: left as it is,
not sorted by test count). A file that takes minutes handed out last
would run alone at the end while the other worker idles, so a file
marked `pytest.mark.slow_file` (`pytestmark = pytest.mark.slow_file` at
the top of the module: it takes ~25 s or more on a 2-core machine, a
minute-long file or one of a few long tests, which the count would put
last) comes first; the others follow, those with more tests
first (xdist's own order), ties in collection order.

    ordered = file_order(files)   # files: [(key, test count, slow?)], collection order
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def file_order(files: Sequence[tuple[Hashable, int, bool]]) -> list[Hashable]:
    """The keys of `files` (in collection order), slow files first, then
    by descending test count; a stable sort keeps the collection order of
    ties."""
    ranked = sorted(enumerate(files), key=lambda entry: (not entry[1][2], -entry[1][1], entry[0]))
    return [key for _, (key, _, _) in ranked]
