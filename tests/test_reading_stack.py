"""The reading stack is one package with one face: nothing above it knows which reader
answers, and its layers import downwards only.

Read from the sources' syntax trees (every import, at the top or inside a function), so
a lazy import that closes a circle is found too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.material import REPO

PACKAGE = REPO / "linter" / "shiplint"
READING = PACKAGE / "artifacts" / "reading"
FACE = "shiplint.artifacts.reading"
# What only the stack may name: the parser it hides, its process, its internal flag.
_HIDDEN = re.compile(r"lief|\bworker\b|struct_declined", re.IGNORECASE)


def _module(source: Path) -> str:
    parts = source.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_MODULES = {_module(p) for p in PACKAGE.rglob("*.py")}


def _imports(source: Path) -> set[str]:
    """The modules `source` imports: for `from X import name`, X.name when that is a module."""
    found: set[str] = set()
    package = (
        _module(source) if source.name == "__init__.py" else _module(source).rpartition(".")[0]
    )
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                named = f"{base}.{alias.name}"
                found.add(named if named in _MODULES else base)
    return found


def _outside() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if READING not in p.parents]


def test_nothing_outside_the_stack_imports_past_its_face() -> None:
    inner = {_module(p) for p in READING.glob("*.py")} - {FACE}
    reaching = {
        f"{_module(source)} -> {name}" for source in _outside() for name in _imports(source) & inner
    }
    assert reaching == set()


def test_nothing_outside_the_stack_names_what_it_hides() -> None:
    named = [
        f"{source.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for source in _outside()
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1)
        if _HIDDEN.search(line)
    ]
    assert named == []


def test_the_stack_s_modules_import_no_circle() -> None:
    modules = {_module(p): p for p in READING.glob("*.py")}
    graph = {name: _imports(path) & set(modules) - {name} for name, path in modules.items()}
    # The face re-exports the layers; no layer imports the face back.
    assert all(FACE not in imports for imports in graph.values())
    # Kahn's order: a module is placed once everything it imports is.
    placed: list[str] = []
    while len(placed) < len(graph):
        ready = sorted(m for m in graph if m not in placed and graph[m] <= set(placed))
        assert ready, f"an import circle among {sorted(set(graph) - set(placed))}"
        placed.extend(ready)
    # Each layer knows only the one below: kept reads, the struct readers, lief.
    assert graph[f"{FACE}.kept"] >= {f"{FACE}.by_struct"}
    assert f"{FACE}.worker" not in graph[f"{FACE}.kept"] | graph[f"{FACE}.by_struct"]
    assert f"{FACE}.lief_reader" not in graph[f"{FACE}.kept"] | graph[f"{FACE}.by_struct"]
