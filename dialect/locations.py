"""Source locations as users read them: `file:line:col`."""

from __future__ import annotations

import re

from .mlir import ir

# The first file:line:col inside any location form (plain, range, name,
# call site, fused): `loc("x.mlir":3:8)`, `loc("f"("x.mlir":3:8))`, ...
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def file_line_col(location: ir.Location) -> tuple[str, int, int] | None:
    """(file, line, col) of a location, or None if it has no file position."""
    match = _FILE_LINE_COL.search(str(location))
    if match is None:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3))


def location_text(location: ir.Location) -> str:
    """`file:line:col`, or `<unknown>` for locations without a position."""
    position = file_line_col(location)
    if position is None:
        return "<unknown>"
    return "{}:{}:{}".format(*position)


_SEVERITY = {
    "ERROR": "error",
    "WARNING": "warning",
    "NOTE": "note",
    "REMARK": "remark",
}


def severity_name(severity) -> str:
    """`error`, `warning`, `note` or `remark` for an ir.DiagnosticSeverity."""
    return _SEVERITY.get(getattr(severity, "name", str(severity)).upper(), "error")


def diagnostic_text(diagnostic, severity: str | None = None) -> str:
    """`file:line:col: error: message`, with its notes on following lines,
    as mlir-opt prints diagnostics. Works for ir.Diagnostic and the
    DiagnosticInfo objects carried by ir.MLIRError."""
    severity = severity or severity_name(diagnostic.severity)
    lines = [f"{location_text(diagnostic.location)}: {severity}: {diagnostic.message}"]
    for note in diagnostic.notes:
        lines.append(diagnostic_text(note, "note"))
    return "\n".join(lines)


def error_text(error: ir.MLIRError) -> str:
    """Every diagnostic of an MLIRError, located; its message if it has none."""
    if not error.error_diagnostics:
        return error.message
    return "\n".join(diagnostic_text(d) for d in error.error_diagnostics)
