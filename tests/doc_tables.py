"""The parts of docs/passes.md that the code says: the table of gmx passes
(from the registry, `gmx.passes.get_all_passes`: flag, options, description)
and the table of `--gmx-canonicalize` patterns (from its pattern table:
name, root ops, the first paragraph of the pattern's docstring, module).

Each sits between `<!-- generated: NAME -->` and `<!-- end: NAME -->`;
`test_docs.py` fails when either differs from what the code gives, and

    .venv/bin/python tests/doc_tables.py

rewrites them in place.
"""

from __future__ import annotations

import re
from pathlib import Path

PASSES_DOC = Path(__file__).resolve().parents[1] / "docs" / "passes.md"


def _cell(text: str) -> str:
    """One Markdown table cell: whitespace collapsed, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def pass_rows() -> list[str]:
    from gmx.passes import get_all_passes

    rows = ["| flag | options (default) | what it does |", "| --- | --- | --- |"]
    for flag, factory in get_all_passes().items():
        info = factory()
        options = "<br>".join(f"`{o.name}={str(o.default).lower()}`: {_cell(o.description)}" for o in info.options)
        rows.append(f"| `--{flag}` | {options or '–'} | {_cell(info.description)} |")
    return rows


def _patterns() -> list[tuple[str, str, object]]:
    """(name, root op, function) of every pattern of --gmx-canonicalize, in
    the order the driver tries them."""
    from gmx.passes.raising import gmx_canonicalize

    found = []
    for entry in gmx_canonicalize.PATTERNS:
        if hasattr(entry, "roots"):  # a pattern record: name, roots, function
            found += [(entry.name, root, entry.function) for root in entry.roots]
        else:  # a (root, function) pair, named after the function
            root, function = entry
            found.append((function.__name__.replace("_", "-"), root, function))
    return found


def pattern_rows() -> list[str]:
    roots: dict[str, list[str]] = {}
    functions = {}
    for name, root, function in _patterns():
        roots.setdefault(name, []).append(root)
        functions[name] = function
    rows = ["| pattern | root ops | what it rewrites | module |", "| --- | --- | --- | --- |"]
    for name, ops in roots.items():
        function = functions[name]
        summary = (function.__doc__ or "").strip().split("\n\n")[0]
        module = function.__module__.removeprefix("gmx.").replace(".", "/") + ".py"
        rows.append(f"| `{name}` | {', '.join(f'`{op}`' for op in ops)} | {_cell(summary)} | `{module}` |")
    return rows


GENERATORS = {"passes": pass_rows, "patterns": pattern_rows}


def regenerate(text: str) -> str:
    """`text` with every generated part as the code gives it now."""
    for name, rows in GENERATORS.items():
        block = re.compile(rf"(<!-- generated: {name} -->\n).*?(<!-- end: {name} -->)", re.DOTALL)
        assert block.search(text), f"no generated part '{name}' in docs/passes.md"
        text = block.sub(lambda m, rows=rows: m.group(1) + "\n".join(rows()) + "\n" + m.group(2), text)
    return text


if __name__ == "__main__":
    PASSES_DOC.write_text(regenerate(PASSES_DOC.read_text()))
