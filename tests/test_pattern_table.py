"""The patterns of --gmx-canonicalize, three ways: the pattern table the pass
composes from its families, the list in the pass's docstring, and the lit
cases. They must agree: every pattern listed in the docstring's order, and
each with a positive and a negative lit case naming it.

A lit case (a `// -----` chunk of `lit_tests/passes/gmx-canonicalize*.mlir`;
the first chunk without its file header) names a pattern in a comment line
that starts with it: `// fold-input-broadcast: ...` (positive) or
`// fold-input-broadcast, negative: ...`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gmx.passes.raising import gmx_canonicalize

LIT = Path(__file__).resolve().parent.parent / "lit_tests" / "passes"
# A comment line opening with a kebab-case name (at least one hyphen).
NAMED = re.compile(r"^// ([a-z0-9]+(?:-[a-z0-9]+)+)(, negative)?[ :(]")


def table_names() -> list[str]:
    return [p.name for p in gmx_canonicalize.PATTERNS]


def docstring_names() -> list[str]:
    """The names the docstring lists: `    name   description` rows."""
    return re.findall(r"^ {4}([a-z0-9]+(?:-[a-z0-9]+)+) {2,}", gmx_canonicalize.__doc__, flags=re.M)


def lit_cases(text: str) -> list[str]:
    """The cases of a lit file; the first one without the file's header
    (everything up to its first blank line)."""
    chunks = re.split(r"^// -----$", text, flags=re.M)
    chunks[0] = chunks[0].split("\n\n", 1)[-1]
    return chunks


def named_cases() -> dict[str, dict[str, int]]:
    """Per name a lit case opens a comment with: how many positive and negative cases."""
    counts: dict[str, dict[str, int]] = {}
    for path in sorted(LIT.glob("gmx-canonicalize*.mlir")):
        for case in lit_cases(path.read_text()):
            seen = set()
            for line in case.splitlines():
                match = NAMED.match(line)
                if match:
                    seen.add((match.group(1), "negative" if match.group(2) else "positive"))
            for name, kind in seen:
                counts.setdefault(name, {"positive": 0, "negative": 0})[kind] += 1
    return counts


def test_the_docstring_lists_the_table_in_order():
    assert len(set(table_names())) == len(table_names()), "two patterns share a name"
    assert docstring_names() == table_names()


def test_the_fuse_false_patterns_are_in_the_table():
    assert {p.name for p in gmx_canonicalize.RAISE_ONLY} <= set(table_names())


@pytest.mark.parametrize("name", table_names())
def test_every_pattern_has_a_positive_and_a_negative_lit_case(name):
    counts = named_cases().get(name, {"positive": 0, "negative": 0})
    assert counts["positive"] >= 1, f"no lit case opens a comment with `// {name}:`"
    assert counts["negative"] >= 1, f"no lit case opens a comment with `// {name}, negative:`"


def test_lit_cases_name_only_patterns_that_exist():
    """A renamed pattern leaves no stale name in the lit cases (names that
    start with a pattern's verb: `fold-...`, not `torch-mlir`)."""
    verbs = {name.split("-")[0] for name in table_names()}
    assert {n for n in named_cases() if n.split("-")[0] in verbs} <= set(table_names())
