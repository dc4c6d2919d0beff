"""`--verify-diagnostics`: match emitted diagnostics against the
`// expected-error@+1 {{...}}` comments of the source (MLIR's format:
error, warning, note, remark; `@+N`, `@-N`, `@above`, `@below`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gmx.dialect.locations import file_line_col, location_text, severity_name
from gmx.dialect.parsing import UnparsableText

_EXPECTATION = re.compile(
    r"expected-(error|warning|note|remark) *(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    comment_line: int
    comment_col: int
    matched: bool = False


@dataclass(frozen=True)
class Emitted:
    """One emitted diagnostic (notes are emitted diagnostics of their own)."""

    severity: str
    location: object
    message: str

    def text(self) -> str:
        """`file:line:col: severity: message`, as mlir-opt prints it."""
        return f"{location_text(self.location)}: {self.severity}: {self.message}"


@dataclass
class DiagnosticCollector:
    """Gathers diagnostics from MLIRErrors and from a context handler."""

    emitted: list[Emitted] = field(default_factory=list)

    def add(self, diagnostic, severity: str | None = None) -> None:
        severity = severity or severity_name(diagnostic.severity)
        self.emitted.append(Emitted(severity, diagnostic.location, diagnostic.message))
        for note in diagnostic.notes:
            self.add(note, "note")

    def add_error(self, error) -> None:
        """The diagnostics of an ir.MLIRError, or the one error of an
        UnparsableText (which has no ir.Diagnostic)."""
        if isinstance(error, UnparsableText):
            self.emitted.append(Emitted("error", error.location(), error.message))
            return
        for diagnostic in error.error_diagnostics:
            self.add(diagnostic)

    def handler(self, diagnostic) -> bool:
        self.add(diagnostic)
        return True


def parse_expectations(text: str, first_line: int) -> list[Expectation]:
    expectations = []
    for offset, line in enumerate(text.splitlines()):
        number = first_line + offset
        for match in _EXPECTATION.finditer(line):
            severity, where, message = match.groups()
            target = number + {None: 0, "above": -1, "below": 1}.get(where, 0)
            if where not in (None, "above", "below"):
                target = number + int(where)
            expectations.append(Expectation(severity, target, message, number, match.start() + 1))
    return expectations


def _matches(expectation: Expectation, emitted: Emitted, source_name: str) -> bool:
    position = file_line_col(emitted.location)
    return (
        position is not None
        and position[0] == source_name
        and position[1] == expectation.line
        and expectation.severity == emitted.severity
        and expectation.text in emitted.message
    )


def verify(expectations: list[Expectation], emitted: list[Emitted], source_name: str) -> list[str]:
    """mlir-opt style error lines for every mismatch; empty when all match."""
    problems = []
    for diagnostic in emitted:
        candidates = [e for e in expectations if not e.matched and _matches(e, diagnostic, source_name)]
        if candidates:
            candidates[0].matched = True
        else:
            problems.append(
                f"{location_text(diagnostic.location)}: error: unexpected "
                f"{diagnostic.severity}: {diagnostic.message}"
            )
    for e in expectations:
        if not e.matched:
            problems.append(
                f'{source_name}:{e.comment_line}:{e.comment_col}: error: expected '
                f'{e.severity} "{e.text}" was not produced'
            )
    return problems
