"""The package's modules import each other without cycles, lazy imports included: a cycle
hides behind a function-level or TYPE_CHECKING import until someone moves it and the package
no longer imports. Read from the source (every `import` statement, wherever it is), not by
importing."""

from __future__ import annotations

import ast
from pathlib import Path

import a2a_serverless

PACKAGE = Path(a2a_serverless.__file__).parent

# Known, to be untangled: the ASGI app serves the inspector page, which answers with the ASGI
# module's Request and Response (issue "One place for each rule", item 5).
KNOWN_CYCLES = [{"a2a_serverless.asgi", "a2a_serverless.inspector"}]


def module_name(path: Path) -> tuple[str, tuple[str, ...]]:
    """The module's dotted name and the package its relative imports start from."""
    parts = ("a2a_serverless", *path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def imports_of(path: Path, package: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            if node.module:
                found.add(target)
            # `from x import y` may name a submodule y.
            found.update(f"{target}.{a.name}" for a in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    names = {name for name, _ in modules}
    graph: dict[str, set[str]] = {}
    for (name, package), path in modules.items():
        # Importing a submodule runs its package's __init__, which is no dependency of ours.
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = {m for m in imports_of(path, package) if m in names} - {name} - ancestors
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for child in graph[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycles_but_the_known_one() -> None:
    found = cycles(import_graph())
    assert sorted(map(sorted, found)) == sorted(map(sorted, KNOWN_CYCLES))


def test_the_vocabulary_of_a_turn_is_a_leaf() -> None:
    graph = import_graph()
    assert graph["a2a_serverless.turn"] <= {"a2a_serverless.ids", "a2a_serverless.models"}
    for name in ("executor", "function_agent", "direct"):
        assert "a2a_serverless.agent" not in graph[f"a2a_serverless.{name}"], name


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
