"""One home per concept in the raising, checked on the source (`ast`, no
import): the gmx op is built only by `raised_gather.emit_gather`, views only
by `passes/views.py`, and integer op semantics live in `integer_ops` (the
linalg reader only traces bodies)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAISING = sorted((ROOT / "passes" / "raising").glob("*.py"))


def calls(path: Path, names: set[str]) -> list[str]:
    """`file:line` of each call of a function named in `names` (`f(...)`,
    or `module.f(...)` spelled `tensor.expand_shape`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name = f"{func.value.id}.{func.attr}"
        else:
            name = getattr(func, "id", None)
        if name in names:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_the_gmx_op_is_built_by_one_emitter():
    built = [c for path in RAISING for c in calls(path, {"gather_multiaxis", "GatherMultiaxisOp"})]
    assert built and all(c.startswith("passes/raising/raised_gather.py:") for c in built), built


def test_views_are_built_in_views_py_only():
    paths = RAISING + sorted((ROOT / "passes").glob("*.py"))
    built = [c for path in paths for c in calls(path, {"tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape", "tosa.reshape"})]
    assert built and all(c.startswith("passes/views.py:") for c in built), built


def test_the_linalg_reader_has_no_op_semantics():
    source = (ROOT / "passes" / "raising" / "linalg_gathers.py").read_text()
    assert not {"evaluate_scalar", "_BINARY", "_CMPI"} & {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
