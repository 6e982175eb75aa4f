"""The package's floors, bottom to top, and a check that imports only go down them.

A module may import a module of its own package or of any package on a lower floor; packages on the same floor
are independent of each other. ``python -m toolex.layers`` prints the floors and every breach (upward or
sideways import, a toolex import inside a function outside :data:`LOCAL_IMPORTS`, an import loop between
modules); ``tests/test_layers.py`` keeps the list empty, and the architecture page (``docs/architecture.md``)
is checked against :data:`LAYERS`. Entry points (``__main__`` modules) sit above every floor.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Bottom to top; the packages of one floor never import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "errors", "keys", "paths", "sampling", "style"),
    ("data",),
    ("io",),
    ("metrics", "llm", "paper"),
    ("retrieval", "validate"),
    ("annotate",),
    ("experiments",),
    ("downstream",),
    ("report",),
    ("review", "skills"),
    ("widgets",),
    ("commands",),
    ("cli",),
)
ROOT = Path(__file__).resolve().parent
#: Packages whose functions may import toolex modules, each with its reason.
LOCAL_IMPORTS = {"commands": "toolex --help imports every command module; a command loads its work when run"}


@dataclass(frozen=True)
class Import:
    """``source`` imports ``target`` (dotted module names) at ``line``; ``local`` inside a function."""

    source: str
    target: str
    line: int
    local: bool


def floor_of(module: str) -> int:
    """The floor of a dotted module name (``toolex.retrieval.bm25`` → the floor of ``retrieval``)."""
    parts = module.split(".")
    package = parts[1] if len(parts) > 1 else "__init__"
    for level, packages in enumerate(LAYERS):
        if package in packages:
            return level
    raise KeyError(f"{module}: package {package!r} is on no floor of toolex.layers.LAYERS")


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _known(name: str, modules: set[str]) -> str | None:
    """The toolex module an import names (``from toolex.a import b`` may name the module ``toolex.a.b``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports(root: Path = ROOT) -> Iterator[Import]:
    """Every import of one toolex module by another, outside ``if TYPE_CHECKING:`` blocks."""
    files = {module_name(p, root): p for p in root.rglob("*.py")}
    modules = set(files)
    for source, path in sorted(files.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        yield from _walk(tree.body, source, modules, local=False)


def _walk(body: list[ast.stmt], source: str, modules: set[str], local: bool) -> Iterator[Import]:
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("toolex"):
            for alias in node.names:
                target = _known(f"{node.module}.{alias.name}", modules)
                if target and target != source:
                    yield Import(source, target, node.lineno, local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name, modules) if alias.name.startswith("toolex") else None
                if target and target != source:
                    yield Import(source, target, node.lineno, local)
        inner = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for field in ("body", "orelse", "finalbody"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                yield from _walk([c for c in children if isinstance(c, ast.stmt)], source, modules,
                                 local or inner)
        for handler in getattr(node, "handlers", None) or ():
            yield from _walk(handler.body, source, modules, local or inner)


def breaches(found: list[Import] | None = None) -> list[str]:
    """Imports that go up a floor or sideways to another package of the same floor (entry points excepted)."""
    out = []
    for imp in found if found is not None else list(imports()):
        if imp.source.endswith("__main__") or package_of(imp.source) == package_of(imp.target):
            continue
        if floor_of(imp.target) >= floor_of(imp.source):
            out.append(f"{imp.source}:{imp.line} imports {imp.target} (floor {floor_of(imp.target)} from "
                       f"floor {floor_of(imp.source)})")
    return out


def local_imports(found: list[Import] | None = None) -> list[str]:
    """Toolex imports inside functions outside :data:`LOCAL_IMPORTS` (heavy third-party imports inside
    functions are not counted: they are what keeps a light command light)."""
    return [f"{imp.source}:{imp.line} imports {imp.target} inside a function"
            for imp in (found if found is not None else list(imports()))
            if imp.local and package_of(imp.source) not in LOCAL_IMPORTS]


def loops(found: list[Import] | None = None) -> list[list[str]]:
    """Import cycles between modules, function-level imports included (each cycle once)."""
    graph: dict[str, set[str]] = {}
    for imp in found if found is not None else list(imports()):
        if not _is_package_init_of(imp.target, imp.source):
            graph.setdefault(imp.source, set()).add(imp.target)
    cycles, index, low, stack, on_stack, counter = [], {}, {}, [], set(), [0]

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def _is_package_init_of(target: str, source: str) -> bool:
    """A module importing its own package's ``__init__`` (re-exports) is not a loop of modules."""
    return source.startswith(target + ".")


def describe() -> str:
    """The floors, top first, one line each."""
    return "\n".join(" · ".join(p for p in packages if p != "__init__") or "(root)"
                     for packages in reversed(LAYERS))


if __name__ == "__main__":
    found = list(imports())
    print(describe())
    problems = breaches(found) + local_imports(found) + [" -> ".join(c) for c in loops(found)]
    print("\n".join(problems) or "no upward import, no loop")
    sys.exit(1 if problems else 0)
