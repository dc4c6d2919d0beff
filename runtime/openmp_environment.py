"""The environment gmx's libomp starts with: what a user set for torch's
OpenMP, less what libomp would misread.

libomp parses the OpenMP and KMP variables of the environment once, when
it initialises, and some malformed values break it: `OMP_NUM_THREADS`
empty, `-3` or `abc` made a call on 2 threads abort (`OMP: Error #101:
Out of heap memory`) or hang, at random. These variables are meant for
torch as much as for gmx, and gmx's libomp is its own (`openmp`), so while
it initialises (`for_libomp`) it sees:

- each variable of VALIDATED whose value is well-formed (and in range: a
  stack size libomp could not allocate threads with is not), as the user
  set it;
- not `OMP_NUM_THREADS`: gmx sets the thread count of every call itself;
- no other `OMP_*`, `KMP_*`, `LIBOMP_*` or `GOMP_*` variable (libomp reads
  some of libgomp's): gmx does not vouch for libomp's parsing of them.

A malformed value of a variable libomp would have read is named once, in
a RuntimeWarning. The environment is put back as it was once libomp has
read it: the process, torch included, sees what the user set.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Iterator

PREFIXES = ("OMP_", "KMP_", "LIBOMP_", "GOMP_")
# gmx sets the thread count of every call (omp_set_num_threads).
IGNORED = frozenset(("OMP_NUM_THREADS",))

_COUNT = r"[1-9][0-9]{0,5}"  # 1 to 999999
_BOOL = r"(?i:true|false|yes|no|on|off|1|0)"
_PLACE = r"\{\d{1,5}(?::\d{1,5}(?::-?\d{1,5})?)?(?:,\d{1,5}(?::\d{1,5}(?::-?\d{1,5})?)?)*\}(?::\d{1,5}(?::-?\d{1,5})?)?"
_AFFINITY_TOKEN = (
    r"(?i:none|disabled|compact|scatter|balanced|logical|physical|verbose|noverbose|warnings|nowarnings"
    r"|respect|norespect|duplicates|noduplicates|reset|noreset"
    r"|granularity=(?:fine|thread|core|tile|die|socket|package|node|numa|l1_cache|l2_cache|l3_cache|ll_cache))"
    r"|[0-9]{1,3}"
)
_STACK_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
MAX_STACK = 1 << 30  # a worker's stack libomp can still allocate


def _stack_size(value: str) -> bool:
    found = re.fullmatch(r"([0-9]{1,10})\s*([bkmg]?)", value, re.IGNORECASE)
    return bool(found) and 0 < int(found.group(1)) * _STACK_UNITS[found.group(2).lower()] <= MAX_STACK


def _pattern(regex: str):
    compiled = re.compile(regex)
    return lambda value: compiled.fullmatch(value) is not None


# The variables gmx's libomp reads, each with what it takes (stripped).
VALIDATED = {
    "OMP_NUM_THREADS": _pattern(rf"{_COUNT}(?:\s*,\s*{_COUNT})*"),
    "OMP_THREAD_LIMIT": _pattern(_COUNT),
    "OMP_DYNAMIC": _pattern(_BOOL),
    "OMP_NESTED": _pattern(_BOOL),
    "OMP_MAX_ACTIVE_LEVELS": _pattern(r"[0-9]{1,3}"),
    "OMP_PROC_BIND": _pattern(rf"{_BOOL}|(?i:master|primary|close|spread)(?:\s*,\s*(?i:master|primary|close|spread))*"),
    "OMP_PLACES": _pattern(rf"(?i:threads|cores|sockets|ll_caches|numa_domains)(?:\(\s*{_COUNT}\s*\))?"
                           rf"|{_PLACE}(?:,{_PLACE})*"),
    "OMP_WAIT_POLICY": _pattern(r"(?i:active|passive)"),
    "OMP_SCHEDULE": _pattern(rf"(?i:(?:monotonic:|nonmonotonic:)?(?:static|dynamic|guided|auto))(?:\s*,\s*{_COUNT})?"),
    "OMP_STACKSIZE": _stack_size,
    "KMP_STACKSIZE": _stack_size,
    # (numbers are a type's permute and offset: not alone)
    "KMP_AFFINITY": _pattern(rf"(?=.*[a-zA-Z])(?:{_AFFINITY_TOKEN})(?:\s*,\s*(?:{_AFFINITY_TOKEN}))*"),
    "KMP_BLOCKTIME": _pattern(r"[0-9]{1,7}(?:us|ms)?|(?i:infinite)"),
    "KMP_LIBRARY": _pattern(r"(?i:serial|turnaround|throughput)"),
}


def refused_values(environ) -> tuple[list[str], list[str]]:
    """(the OpenMP variables of `environ` hidden from libomp, those of
    them that are malformed values of variables it would read)."""
    hidden, malformed = [], []
    for name, value in environ.items():
        if not name.startswith(PREFIXES):
            continue
        valid = VALIDATED.get(name)
        well_formed = valid is not None and valid(value.strip())
        if name in IGNORED or not well_formed:
            hidden.append(name)
        if valid is not None and not well_formed:
            malformed.append(name)
    return hidden, malformed


@contextlib.contextmanager
def for_libomp(warn: bool = True) -> Iterator[None]:
    """While libomp initialises (loaded, its settings read): the
    environment without what it must not read (the module's docstring),
    a warning naming each malformed value (if `warn`); put back afterwards."""
    hidden, malformed = refused_values(os.environ)
    if malformed and warn:
        described = ", ".join(f"{name}={os.environ[name]!r}" for name in malformed)
        warnings.warn(
            f"gmx's OpenMP runtime (libomp) ignores {described}: not a value it reads safely "
            "(gmx sets each call's thread count itself)", RuntimeWarning, stacklevel=4,
        )
    saved = {name: os.environ.pop(name) for name in hidden}
    try:
        yield
    finally:
        os.environ.update(saved)
