"""Writing results without ever truncating a user's file on failure."""

from __future__ import annotations

import os
import sys
import tempfile


class OutputError(Exception):
    """The output could not be written."""


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
        os.replace(temporary, path)
    except OSError as error:
        raise OutputError(f"could not write output file '{path}': {error.strerror or error}") from None
