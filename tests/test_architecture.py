"""The import structure: no cycle between modules, none between top-level
folders, and the folders layered

    dialect -> reference -> passes -> runtime -> tools -> benchmarks

(a folder imports only earlier folders or itself). Every module is read
with `ast`, imports inside functions included, relative imports resolved;
nothing is imported. The folders and their package names come from
pyproject.toml's `[tool.setuptools.package-dir]`.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("dialect", "reference", "passes", "runtime", "tools", "benchmarks")

Graph = dict[str, set[str]]


def package_folders() -> dict[str, str]:
    """Top-level package (`gmx.passes`) -> folder (`passes`), as installed."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(config["tool"]["setuptools"]["package-dir"])


def module_files(packages: dict[str, str]) -> dict[str, Path]:
    """Module name -> file, for every module of the packages."""
    modules = {}
    for package, folder in packages.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def imported_names(module: str, is_package: bool, source: str) -> set[str]:
    """Absolute names of everything `source` imports, anywhere in it:
    `a.b` for `import a.b`, `package.name` for `from package import name`
    (a module, or a name its package defines)."""
    package = module if is_package else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph(modules: dict[str, Path]) -> Graph:
    """Module -> the modules of `modules` it imports. A name that is not a
    module stands for its package (`from gmx.dialect import OP_NAME`); a
    package is not counted as imported by its submodules' imports (Python
    runs its __init__ first, whoever imports it)."""
    graph = {}
    for module, path in modules.items():
        names = imported_names(module, path.name == "__init__.py", path.read_text())
        targets = set()
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def tangles(graph: Graph) -> list[set[str]]:
    """The strongly connected components of more than one node (Tarjan):
    each a set of modules that import each other, directly or not."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(set(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def cycle_through(graph: Graph, component: set[str]) -> list[str]:
    """A shortest cycle from the component's first node back to it."""
    start = min(component)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for target in sorted(graph[path[-1]] & component):
            if target == start:
                return path + [start]
            if target not in seen:
                seen.add(target)
                paths.append(path + [target])
    raise AssertionError(f"no cycle in component {component}")


def folder_graph(graph: Graph, folder_of: dict[str, str]) -> Graph:
    folders: Graph = {}
    for module, targets in graph.items():
        folders.setdefault(folder_of[module], set()).update(
            folder_of[t] for t in targets if folder_of[t] != folder_of[module]
        )
    return folders


def layer_violations(graph: Graph, folder_of: dict[str, str]) -> list[str]:
    """`module -> target` for each import of a later layer's module."""
    rank = {folder: i for i, folder in enumerate(LAYERS)}
    return [
        f"{module} -> {target} ({folder_of[module]}/ may import only {', '.join(LAYERS[: rank[folder_of[module]] + 1])})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if rank[folder_of[target]] > rank[folder_of[module]]
    ]


@pytest.fixture(scope="module")
def project():
    packages = package_folders()
    modules = module_files(packages)
    folder_of = {m: next(f for p, f in packages.items() if m == p or m.startswith(p + ".")) for m in modules}
    return import_graph(modules), folder_of


# --- the project ------------------------------------------------------------------------


def test_every_folder_is_a_layer():
    assert sorted(package_folders().values()) == sorted(LAYERS)


def test_the_graph_sees_the_imports(project):
    """The checks below are not vacuous: module-level, function-level and
    relative imports are all found."""
    graph, _ = project
    assert "gmx.passes.pipeline" in graph["gmx.tools.gmx_opt"]  # from gmx.passes.pipeline import ...
    assert "gmx.passes.raising.gmx_canonicalize" in graph["gmx.passes"]  # inside a lazy factory
    assert "gmx.passes.debug" in graph["gmx.passes.patterns"]  # from . import debug
    assert "gmx.passes.patterns" in graph["gmx.passes.raising.gmx_canonicalize"]  # from ..patterns import ...
    assert "gmx.reference.semantics" in graph["gmx.reference.mappings"]  # from .semantics import ...


def describe_tangles(graph: Graph) -> list[str]:
    """`a, b, c (a -> b -> a, ...)`: each tangle and one of its cycles."""
    return [
        f"{', '.join(sorted(tangle))} ({' -> '.join(cycle_through(graph, tangle))}, ...)"
        for tangle in sorted(tangles(graph), key=min)
    ]


def test_no_import_cycle_between_modules(project):
    graph, _ = project
    found = describe_tangles(graph)
    assert not found, "modules that import each other:\n  " + "\n  ".join(found)


def test_no_import_cycle_between_folders(project):
    graph, folder_of = project
    found = describe_tangles(folder_graph(graph, folder_of))
    assert not found, "folders that import each other:\n  " + "\n  ".join(found)


def test_folders_import_only_earlier_layers(project):
    graph, folder_of = project
    violations = layer_violations(graph, folder_of)
    assert not violations, "imports against the layers:\n  " + "\n  ".join(violations)


def test_test_modules_import_no_test_module():
    """Shared test helpers live in conftest.py fixtures or in helper modules
    (`torch_corpus`, `worked_examples`), never in another test module."""
    tests = Path(__file__).resolve().parent
    found = [
        f"{path.name} imports {name}"
        for path in sorted(tests.glob("test_*.py"))
        for name in sorted(imported_names(path.stem, False, path.read_text()))
        if name.split(".")[0].startswith("test_")
    ]
    assert not found, "test modules importing test modules:\n  " + "\n  ".join(found)


# --- the analysis itself -----------------------------------------------------------------


def test_relative_imports_resolve_against_the_package():
    source = "from . import a\nfrom ..b import c\nimport x.y\ndef f():\n    from .d import e\n"
    assert imported_names("p.q.m", False, source) == {"p.q.a", "p.b.c", "x.y", "p.q.d.e"}
    assert imported_names("p.q", True, "from . import a\n") == {"p.q.a"}


def test_a_name_that_is_no_module_stands_for_its_package(tmp_path):
    (tmp_path / "p").mkdir()
    files = {"p": tmp_path / "p" / "__init__.py", "p.a": tmp_path / "p" / "a.py", "p.b": tmp_path / "p" / "b.py"}
    files["p"].write_text("from .a import f\n")
    files["p.a"].write_text("from . import b\n")
    files["p.b"].write_text("from p import f\nfrom p.a import g\nimport numpy\n")
    assert import_graph(files) == {"p": {"p.a"}, "p.a": {"p.b"}, "p.b": {"p", "p.a"}}


def test_cycles_are_found_and_shown_as_paths():
    graph = {"a": {"b"}, "b": {"c", "x"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "x": {"b"}}
    assert tangles(graph) == [{"a", "b", "c", "x"}]
    assert describe_tangles(graph) == ["a, b, c, x (a -> b -> c -> a, ...)"]
    assert tangles({"a": {"b"}, "b": set()}) == []


def test_layer_violations_name_the_import():
    folder_of = {"gmx.dialect.x": "dialect", "gmx.tools.y": "tools"}
    graph = {"gmx.dialect.x": {"gmx.tools.y"}, "gmx.tools.y": {"gmx.dialect.x"}}
    assert layer_violations(graph, folder_of) == [
        "gmx.dialect.x -> gmx.tools.y (dialect/ may import only dialect)"
    ]
