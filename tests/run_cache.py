"""Text made once per pytest run and shared by its xdist workers.

    text = run_cache.cached("torch_corpus.gather_r3_d1", make)   # make() -> str

The first worker to ask for a key makes the text while holding the key's
lock file (fcntl.flock); a second worker asking meanwhile waits for the
lock and reads the file written (atomically: a rename). A failure of
`make` is not cached: each asker raises its own. conftest.py points the
cache at the run's shared temporary directory (`directory`); outside a
pytest run (None) `cached` just calls `make`.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

directory: Path | None = None


def cached(key: str, make: Callable[[], str]) -> str:
    """make()'s text, made at most once per run for `key` (a file name)."""
    if directory is None:
        return make()
    path = directory / key
    with open(directory / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if path.exists():
            return path.read_text()
        text = make()
        partial = directory / f"{key}.partial"
        partial.write_text(text)
        os.replace(partial, path)
        return text
