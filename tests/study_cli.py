"""gmx-study called in-process, as its tests call it."""

from __future__ import annotations

from gmx.tools import gmx_study


def study(*argv) -> int:
    """gmx-study's exit status for `argv` (any objects, passed as strings)."""
    return gmx_study.main(gmx_study.parse_arguments([str(a) for a in argv]))


def one_error_line(capsys) -> str:
    """The one line gmx-study printed on stderr, with no traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]
