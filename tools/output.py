"""Writing results without ever truncating a user's file on failure."""

from __future__ import annotations

import os
import stat
import sys
import tempfile


class OutputError(Exception):
    """The output could not be written."""


def _file_mode(path: str) -> int:
    """The mode the written file gets: the target's if it exists, else what
    a plain open() would give (0666 less the umask), not the temporary
    file's private 0600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_output(path: str, data: str | bytes) -> None:
    """Write to stdout for '-', else atomically: a temporary file in the
    target's folder, renamed over the target once complete."""
    if path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        with tempfile.NamedTemporaryFile(mode, dir=folder, delete=False, prefix=".gmx-") as handle:
            handle.write(data)
            temporary = handle.name
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
    except OSError as error:
        raise OutputError(f"could not write output file '{path}': {error.strerror or error}") from None
