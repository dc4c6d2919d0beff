"""Every `$ gmx-opt ...` / `$ gmx-run ...` transcript of README.md and
docs/*.md is run, and its output must be the one shown.

A transcript is a fenced block (no language) whose lines starting with `$ `
are commands (a trailing `\\` continues one on the next line) and whose other
lines are what the commands before them print, stdout and stderr together.
A line `...` in the shown output stands for any number of lines. Commands
run in the repository root, on files of the repository (`examples/`,
`lit_tests/`): a single `gmx-opt`/`gmx-run` call in-process (its `main`,
stdout and stderr in one stream), anything with shell syntax (pipes,
`; echo "exit $?"`) under bash, `.venv/bin/` naming the directory of the
Python that runs the tests (so the tools are this checkout's). Blocks whose commands are other tools (gmx-study, gmx-bench:
timings) are not run; `test_transcripts_are_found` keeps the count honest.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gmx.tools import gmx_opt, gmx_run

pytestmark = pytest.mark.slow_file  # started first (file_order.py)

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOOLS = {".venv/bin/gmx-opt": gmx_opt, ".venv/bin/gmx-run": gmx_run}
CHECKED_TOOLS = tuple(TOOLS)
SHELL_SYNTAX = re.compile(r"[|;&<>$`]")
ELLIPSIS = "..."


@dataclass(frozen=True)
class Transcript:
    doc: str  # relative to the repository root
    line: int  # of the block's first command, 1-based
    script: str  # the commands, one per line, continuations joined
    shown: tuple[str, ...]  # the output shown

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def fenced_blocks(path: Path) -> list[tuple[int, list[str]]]:
    """(line of the first content line, lines) of every fenced block without a language."""
    lines, blocks, i = path.read_text().splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            language = lines[i][3:].strip()
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            if not language:
                blocks.append((i + 2, lines[i + 1 : end]))
            i = end + 1
        else:
            i += 1
    return blocks


def transcript_of(doc: str, first_line: int, lines: list[str]) -> Transcript | None:
    """The block's transcript, or None when it has no `$ ` command."""
    commands, shown, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            commands.append(command)
        elif commands:
            shown.append(line.rstrip())
        i += 1
    if not commands:
        return None
    first = first_line + next(n for n, line in enumerate(lines) if line.startswith("$ "))
    return Transcript(doc, first, "\n".join(commands), tuple(shown))


def transcripts() -> list[Transcript]:
    found = []
    for path in DOCS:
        for first_line, lines in fenced_blocks(path):
            transcript = transcript_of(str(path.relative_to(ROOT)), first_line, lines)
            if transcript is not None:
                found.append(transcript)
    return found


def checked(transcript: Transcript) -> bool:
    return all(command.startswith(CHECKED_TOOLS) for command in transcript.script.splitlines())


def matches(shown: tuple[str, ...], printed: list[str]) -> bool:
    """Whether `printed` is `shown`, each `...` line standing for any lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == ELLIPSIS else re.escape(line + "\n") for line in shown)
    return re.fullmatch(pattern, "".join(line + "\n" for line in printed)) is not None


def run(transcript: Transcript) -> list[str]:
    """What the transcript's commands print, lines stripped at the right."""
    if "\n" in transcript.script or SHELL_SYNTAX.search(transcript.script):
        printed = run_in_bash(transcript.script)
    else:
        printed = run_in_process(transcript.script)
    return [line.rstrip() for line in printed.splitlines()]


def run_in_process(command: str) -> str:
    name, *argv = shlex.split(command)
    tool, printed = TOOLS[name], io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            tool.main(tool.parse_arguments(argv))
        except SystemExit:  # an argument error, printed
            pass
    return printed.getvalue()


def run_in_bash(script: str) -> str:
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(["bash", "-c", script.replace(".venv/bin/", f"{bin_dir}/")], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return done.stdout.replace(f"{bin_dir}/", ".venv/bin/")


TRANSCRIPTS = transcripts()
CHECKED = [t for t in TRANSCRIPTS if checked(t)]


def test_transcripts_are_found():
    """The README's transcripts and the docs' are all seen: a change to the
    block format that hid them would pass every test below vacuously."""
    assert sum(t.doc == "README.md" for t in CHECKED) >= 3
    assert sum(t.doc != "README.md" for t in CHECKED) >= 6
    mixed = [t.id for t in TRANSCRIPTS if not checked(t) and any(
        command.startswith(CHECKED_TOOLS) for command in t.script.splitlines())]
    assert not mixed, f"blocks mixing gmx-opt/gmx-run with other commands (not run): {mixed}"


@pytest.mark.parametrize("transcript", CHECKED, ids=lambda t: t.id)
def test_transcript(transcript, monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = run(transcript)
    assert matches(transcript.shown, printed), (
        f"{transcript.id}: the output of\n{transcript.script}\nis now\n" + "\n".join(printed)
    )


def test_ellipsis_matches_any_lines():
    assert matches(("a", "...", "d"), ["a", "b", "c", "d"])
    assert matches(("a", "...", "d"), ["a", "d"])
    assert not matches(("a", "...", "d"), ["a", "b", "c"])
    assert not matches(("a", "b"), ["a", "b", "c"])
