"""Shared test set-up: strict passes for the whole session, and the tools
called in-process.

Strict mode (`gmx.passes.debug`) is set in `os.environ`, so the tools called
in-process and every subprocess see it: a pattern of `--gmx-canonicalize`
that crashes fails its test instead of passing as "no match". A test of the
users' (lenient) behaviour turns it off with `monkeypatch.delenv`.

The suite has to run in under ten minutes on a 2-core machine: an
exhaustive sweep (every corpus program in every form, every dtype x mode x
reduction, many random seeds, every benchmark variant) runs
its whole matrix only with GMX_FULL_CORPUS=1, each test module reading
`FULL = os.environ.get("GMX_FULL_CORPUS", "") not in ("", "0")`; without it
the module keeps one case of each behaviour (each mode, reduction, dtype
kind, frontend form at least once).

What several test files of one run make alike (the torch corpus's
imports, lowered to each form by three files) is made once per run in
`run_cache`, whose directory the session fixture below sets: the run's
temporary directory, shared by its xdist workers.

The files run slowest first (`file_order`): a file marked
`pytest.mark.slow_file` is handed to an xdist worker before the others, so
that no minute-long file starts last and runs alone at the end.
"""

import os

import pytest

import run_cache
from file_order import file_order
from gmx.passes.debug import STRICT_ENV

os.environ[STRICT_ENV] = "1"


def pytest_collection_modifyitems(items):
    """The items file by file in `file_order` (each file's own order kept)."""
    by_file: dict = {}
    for item in items:
        by_file.setdefault(item.path, []).append(item)
    files = [
        (path, len(group), any(item.get_closest_marker("slow_file") for item in group))
        for path, group in by_file.items()
    ]
    items[:] = [item for path in file_order(files) for item in by_file[path]]


@pytest.fixture(scope="session", autouse=True)
def _run_cache(tmp_path_factory):
    """`run_cache` in this run's temporary directory: under xdist the parent
    of the worker's own (`.../popen-gw0`), which every worker shares."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    run_cache.directory = shared / "run-cache"
    run_cache.directory.mkdir(exist_ok=True)
    yield
    run_cache.directory = None


@pytest.fixture
def gmx_opt():
    """`gmx_opt(*argv) -> exit status`: gmx-opt in-process (Paths accepted)."""
    from gmx.tools import gmx_opt as tool

    return lambda *argv: tool.main(tool.parse_arguments([str(a) for a in argv]))


@pytest.fixture
def gmx_run():
    """`gmx_run(*argv) -> exit status`: gmx-run in-process (Paths accepted)."""
    from gmx.tools import gmx_run as tool

    return lambda *argv: tool.main(tool.parse_arguments([str(a) for a in argv]))


@pytest.fixture
def mlir_file(tmp_path):
    """`mlir_file(text, name="input.mlir") -> Path`: `text` written in the test's tmp_path."""

    def write(text: str, name: str = "input.mlir"):
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
