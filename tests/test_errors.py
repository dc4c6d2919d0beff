"""One exception hierarchy: every error class gmx defines is a `GmxError`,
so `except GmxError` catches whatever gmx itself refused, and each keeps the
builtin base its callers catch."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from gmx.dialect.errors import GmxError

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("dialect", "reference", "passes", "runtime", "tools", "benchmarks")

# Control flow inside the raising patterns, never seen by a user.
INTERNAL = {"NoMatch"}

# Errors that callers (and the documented Python API) catch by a builtin base.
BUILTIN_BASES = {
    "GatherShapeError": ValueError,
    "PipelineError": ValueError,
    "PassOptionError": ValueError,
    "StudyError": ValueError,
    "ElementTypeError": TypeError,
}


def error_classes() -> dict[str, type]:
    """Every exception class defined in a gmx module, by qualified name."""
    found = {}
    for folder in LAYERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            module_name = ".".join(("gmx", *parts[:-1])) if parts[-1] == "__init__" else ".".join(("gmx", *parts))
            if parts[-1] == "__main__":
                continue
            module = importlib.import_module(module_name)
            for name, value in vars(module).items():
                if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module_name:
                    found[f"{module_name}.{name}"] = value
    return found


def test_every_error_is_a_gmx_error():
    classes = error_classes()
    assert len(classes) >= 15, sorted(classes)
    outside = [name for name, cls in classes.items()
               if cls.__name__ not in INTERNAL and not issubclass(cls, GmxError)]
    assert not outside, f"errors not under GmxError: {outside}"


def test_errors_keep_their_builtin_bases():
    by_name = {cls.__name__: cls for cls in error_classes().values()}
    for name, base in BUILTIN_BASES.items():
        assert issubclass(by_name[name], base), name
