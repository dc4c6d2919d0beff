"""The race of the race tests (tests/test_runtime_races.py for gathers,
tests/test_scatter_races.py for scatters): calls of a compiled program
while another thread rewrites its indices. Run in the subprocess those
tests start (a crash fails one test, not the session).

A helper module (not a test module): test modules' scripts import it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

BAD_INDEX = 1 << 40  # outside every axis


def race(call: Callable[[np.ndarray], np.ndarray], indices: np.ndarray, good: np.ndarray, seconds: float,
         wrong: Callable[[np.ndarray], bool]) -> bool:
    """Call `call(indices)` (at least 20 times, for `seconds` at most 400)
    while a thread rewrites `indices` from all BAD_INDEX to `good` and back;
    an IndexError is a fine answer. Whether a result was `wrong`."""
    done = threading.Event()

    def rewrite():
        bad = np.full_like(good, BAD_INDEX)
        while not done.is_set():
            np.copyto(indices, bad)
            np.copyto(indices, good)

    writer = threading.Thread(target=rewrite)
    writer.start()
    deadline, calls = time.monotonic() + seconds, 0
    try:
        while (calls < 20 or time.monotonic() < deadline) and calls <= 400:
            calls += 1
            try:
                out = call(indices)
            except IndexError:
                continue
            if wrong(out):
                return True
    finally:
        done.set()
        writer.join()
    return False
