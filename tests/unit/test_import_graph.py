"""The package's modules, and the adapters', import each other without cycles, lazy imports
included: a cycle hides behind a function-level or TYPE_CHECKING import until someone moves it
and the package no longer imports. Read from the source (every `import` statement, wherever it
is), not by importing."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Each package the graph reads, and its directory.
PACKAGES = {
    "a2a_serverless": ROOT / "a2a_serverless",
    "a2a_serverless_aws": ROOT / "adapters" / "aws" / "a2a_serverless_aws",
    "a2a_serverless_gcp": ROOT / "adapters" / "gcp" / "a2a_serverless_gcp",
}
ADAPTERS = ("a2a_serverless_aws", "a2a_serverless_gcp")

# The transport bindings, peers over the service: none imports another (transport.py, http.py
# and httpjson.py hold what they share).
TRANSPORTS = {
    "jsonrpc": {
        "a2a_serverless.jsonrpc",
        "a2a_serverless.jsonrpc_transport",
        "a2a_serverless.v03.jsonrpc",
        "a2a_serverless.v10.jsonrpc",
    },
    "rest 0.3": {
        "a2a_serverless.rest",
        "a2a_serverless.rest.transport",
        "a2a_serverless.v03.rest",
        "a2a_serverless.v03.convert",
        "a2a_serverless.v03.models",
    },
    "rest 1.0": {"a2a_serverless.v10.rest"},
}
# The layers below the transports, which import none of them, nor the app (each version's
# method table among them: both of its bindings call it).
BELOW_TRANSPORTS = (
    "a2a_serverless.errors",
    "a2a_serverless.models",
    "a2a_serverless.store.base",
    "a2a_serverless.journal",
    "a2a_serverless.service",
    "a2a_serverless.worker",
    "a2a_serverless.transport",
    "a2a_serverless.http",
    "a2a_serverless.httpjson",
    "a2a_serverless.v03.methods",
    "a2a_serverless.v10.methods",
)
# Each protocol version's codec package: neither imports the other's, so either could go (0.3
# one day) with its transports and nothing of the other version's edge.
CODECS = ("a2a_serverless.v03", "a2a_serverless.v10")
# The HTTP edge: requests and responses, hosts and origins, the public URL, the fixed paths.
# It knows nothing of A2A: besides its own modules it reaches only the JSON codec, the
# settings and the exception tree's root module.
HTTP_EDGE = {
    "a2a_serverless.http",
    "a2a_serverless.origins",
    "a2a_serverless.publicurl",
    "a2a_serverless.routepaths",
}
NOT_A2A = HTTP_EDGE | {
    "a2a_serverless.codec",
    "a2a_serverless.config",
    "a2a_serverless.dataclassmethods",
    "a2a_serverless.exceptions",
}


def module_name(path: Path, package: str) -> tuple[str, tuple[str, ...]]:
    """The module's dotted name and the package its relative imports start from."""
    parts = (package, *path.relative_to(PACKAGES[package]).with_suffix("").parts)
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
    modules = {
        module_name(p, package): p
        for package, directory in PACKAGES.items()
        for p in directory.rglob("*.py")
    }
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


def test_the_package_has_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for child in graph[todo.pop()]:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def test_transports_are_peers() -> None:
    graph = import_graph()
    for name, modules in TRANSPORTS.items():
        others = set().union(*(m for n, m in TRANSPORTS.items() if n != name))
        for module in modules:
            assert not graph[module] & others, (module, graph[module] & others)


def test_the_layers_below_the_transports_import_none_of_them() -> None:
    graph = import_graph()
    above = set().union(*TRANSPORTS.values()) | {
        "a2a_serverless.asgi",
        "a2a_serverless.inspector",
        "a2a_serverless.runtime",
    }
    for module in BELOW_TRANSPORTS:
        assert not reaches(graph, module) & above, (module, reaches(graph, module) & above)


def test_the_version_codecs_import_neither_each_other() -> None:
    graph = import_graph()
    for codec in CODECS:
        (other,) = (c for c in CODECS if c != codec)
        for name, imported in graph.items():
            if name == codec or name.startswith(codec + "."):
                assert not {m for m in imported if m.startswith(other)}, (name, other)


def test_the_core_asks_the_codecs_by_version_only() -> None:
    # The service and push import no version's codec: a push config's notification form is
    # looked up by its version string (versions.webhook_form).
    graph = import_graph()
    core = [m for m in graph if m.startswith("a2a_serverless.push")] + ["a2a_serverless.service"]
    for name in core:
        assert not {m for m in graph[name] if m.startswith(CODECS)}, name


def test_protocol_errors_do_not_know_the_store() -> None:
    graph = import_graph()
    assert not any(
        m.startswith("a2a_serverless.store") for m in reaches(graph, "a2a_serverless.errors")
    )


def test_the_vocabulary_of_a_turn_is_a_leaf() -> None:
    graph = import_graph()
    outcomes = "a2a_serverless.durable.outcomes"  # what a durable call gives back: a leaf too
    methods = "a2a_serverless.dataclassmethods"  # its dataclasses' eq, hash, repr: a leaf too
    assert graph["a2a_serverless.turn"] <= {
        "a2a_serverless.ids",
        "a2a_serverless.models",
        outcomes,
        methods,
    }
    assert graph[methods] == set()
    assert graph[outcomes] <= {"a2a_serverless.models", "a2a_serverless.exceptions"}
    for name in ("executor", "function_agent", "direct"):
        assert "a2a_serverless.agent" not in graph[f"a2a_serverless.{name}"], name


def test_the_exception_tree_is_a_leaf() -> None:
    # Every module derives its errors from it, the HTTP edge's included.
    assert import_graph()["a2a_serverless.exceptions"] == set()


def test_the_http_edge_knows_nothing_of_a2a() -> None:
    graph = import_graph()
    for module in HTTP_EDGE:
        assert reaches(graph, module) <= NOT_A2A, (module, reaches(graph, module) - NOT_A2A)


def test_the_core_imports_no_adapter_and_the_adapters_not_each_other() -> None:
    graph = import_graph()
    for name, imported in graph.items():
        package = name.split(".")[0]
        others = {m for m in imported if m.split(".")[0] in ADAPTERS and m.split(".")[0] != package}
        assert not others, (name, others)


def test_the_adapters_are_read() -> None:
    graph = import_graph()
    for adapter in ADAPTERS:
        assert f"{adapter}.wrap" in graph
        assert "a2a_serverless.models" in reaches(graph, f"{adapter}.wrap")


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_the_aws_adapter_uses_mangum_through_its_public_face_alone() -> None:
    # `Mangum(app, ...)(event, context)`: no handler subclasses, no `mangum.protocols`, so a
    # Mangum release within the pinned range cannot break us through its internals.
    directory = PACKAGES["a2a_serverless_aws"]
    for path in directory.rglob("*.py"):
        _, package = module_name(path, "a2a_serverless_aws")
        used = {m for m in imports_of(path, package) if m.split(".")[0] == "mangum"}
        assert used <= {"mangum", "mangum.Mangum"}, (path.name, used)
