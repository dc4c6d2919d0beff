"""The command line of the quick benchmark scripts (`python -m
gmx.benchmarks.scatter_quick`, `...embedding_bag_quick`): gmx's threads
per call and the timed rounds, handed to the script's `run`."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def run_from_command_line(doc: str, run: Callable[[int | None, int], None], argv=None) -> None:
    """Parse `--threads` (None: the usable cores) and `--repeat`, then
    `run(threads, repeat)`; the first paragraph of `doc` is the help's."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="gmx's threads per call (default: the usable cores)")
    parser.add_argument("--repeat", type=int, default=15, help="timed rounds (default 15)")
    args = parser.parse_args(argv)
    run(args.threads, args.repeat)
