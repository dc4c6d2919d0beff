"""`--mlir-print-ir-before=PASS` / `--mlir-print-ir-after=PASS`: the
bindings' `enable_ir_printing` can only print before or after every pass,
so the all-passes dump is filtered by each dump's pass, as mlir-opt's
option filters by pass argument.

MLIR writes dumps to file descriptor 2 itself (llvm::errs), so while a
pass manager runs, descriptor 2 goes to a temporary file; afterwards its
text goes to stderr without the dumps of other passes (everything that is
not a dump passes through, in order).

With --mlir-print-ir-tree-dir the dumps are files instead, one a dump:
those this run wrote for other passes are removed (`filtered_tree`).

A dump is what MLIR's IR printer writes: a header line
`// -----// IR Dump After CanonicalizerPass: canonicalize{...} //----- //`,
then the op, then two blank lines (printed IR has no two blank lines in a
row itself).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

HEADER = re.compile(r"^// -----// IR Dump (Before|After) (.*?) //----- //$", re.MULTILINE)
_END = "\n\n\n"


def dump_pass(header: str) -> tuple[str, set[str]] | None:
    """('Before' or 'After', the names the dumped pass answers to: its
    argument and its class name) of a dump's header line; None for any
    other line."""
    match = HEADER.match(header)
    if match is None:
        return None
    when, described = match.groups()
    described = re.sub(r" \('[^']*' operation.*\)$", "", described)
    class_name, _, argument = described.partition(": ")
    class_name = class_name.removesuffix(" Failed")
    names = {class_name.strip(), re.split(r"[{ (]", argument.strip(), maxsplit=1)[0]}
    return when, {n for n in names if n}


def filter_dumps(text: str, keep: Callable[[str, set[str]], bool]) -> str:
    """`text` without the dumps for which `keep(when, names)` is false."""
    starts = [m.start() for m in HEADER.finditer(text)]
    if not starts:
        return text
    kept = [text[: starts[0]]]
    for start, stop in zip(starts, starts[1:] + [len(text)]):
        piece = text[start:stop]
        end = piece.find(_END)
        dump, rest = (piece, "") if end < 0 else (piece[: end + len(_END)], piece[end + len(_END):])
        when, names = dump_pass(dump.partition("\n")[0])
        kept.append((dump if keep(when, names) else "") + rest)
    return "".join(kept)


@contextmanager
def held_stderr(on_leave: Callable[[str], None]) -> Iterator[None]:
    """Within the block, descriptor 2 (where MLIR itself writes) goes to a
    temporary file; on leaving, descriptor 2 is restored and `on_leave` gets
    the text written there."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            on_leave(held.read().decode("utf-8", errors="replace"))


def filtered_stderr(keep: Callable[[str, set[str]], bool]):
    """Within the block, descriptor 2 is held back; on leaving it goes to
    stderr through `filter_dumps(..., keep)`."""
    def write(text: str) -> None:
        sys.stderr.write(filter_dumps(text, keep))
        sys.stderr.flush()

    return held_stderr(write)


@contextmanager
def filtered_tree(directory: str, keep: Callable[[str, set[str]], bool]) -> Iterator[None]:
    """Within the block, MLIR writes dump files under `directory`; on
    leaving it, those written then for which `keep` is false are removed
    (files that were there before stay)."""
    before = set(_files(directory))
    try:
        yield
    finally:
        for path in set(_files(directory)) - before:
            with open(path, encoding="utf-8", errors="replace") as handle:
                parsed = dump_pass(handle.readline().rstrip("\n"))
            if parsed is not None and not keep(*parsed):
                os.remove(path)


def _files(directory: str) -> Iterator[str]:
    for folder, _, names in os.walk(directory):
        for name in names:
            yield os.path.join(folder, name)
