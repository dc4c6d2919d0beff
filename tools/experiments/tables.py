"""The one table renderer: rows of cells as GitHub Markdown or as aligned
text, and the cell formats the tools share.

    markdown_table(["variant", "ms"], [["take", "0.12"]])
    text_table(["contender", "ms"], [["fused", "0.12"]])
"""

from __future__ import annotations

from collections.abc import Sequence


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A GitHub Markdown table, one line per row; `|` in a cell is escaped."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]


def text_table(head: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> list[str]:
    """Columns two spaces apart; `align` has an `l` or `r` per column (default:
    the first left, the others right)."""
    align = align or "l" + "r" * (len(head) - 1)
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(row):
        cells = [str(c).ljust(w) if a == "l" else str(c).rjust(w) for c, w, a in zip(row, widths, align)]
        return "  ".join(cells).rstrip()

    return [line(head)] + [line(r) for r in rows]


def fmt_ms(ms: float | None) -> str:
    """Milliseconds with three or four significant digits; `–` when absent."""
    if ms is None:
        return "–"
    decimals = 4 if ms < 1 else 3 if ms < 10 else 2 if ms < 100 else 1
    return f"{ms:.{decimals}f}"


def fmt_fixed(value: float | None, digits: int) -> str:
    """`value` with `digits` decimals; `–` when absent."""
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ratio(value: float | None) -> str:
    """`1.23x`; `–` when absent."""
    return "–" if value is None else f"{value:.2f}x"
