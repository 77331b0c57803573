"""The probes stand on one shared layer: what probes/ holds itself (host, layout, runner,
the not-run model and its findings) imports no probe, and neither probe imports the
other, so each can change without reaching sideways into the other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PROBES = Path(__file__).resolve().parent.parent / "linter" / "shiplint" / "probes"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    found |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return found


def _reaching(path: Path, package: str) -> list[str]:
    return sorted(m for m in _imports(path) if m == package or m.startswith(package + "."))


@pytest.mark.parametrize("path", sorted(PROBES.glob("*.py")), ids=lambda p: p.name)
def test_the_shared_layer_imports_no_probe(path: Path) -> None:
    assert _reaching(path, "shiplint.probes.link") == []
    assert _reaching(path, "shiplint.probes.header") == []


@pytest.mark.parametrize(
    ("probe", "other"), [("link", "header"), ("header", "link")], ids=["link", "header"]
)
def test_a_probe_does_not_import_the_other(probe: str, other: str) -> None:
    reaching = {
        path.name: found
        for path in sorted((PROBES / probe).glob("*.py"))
        if (found := _reaching(path, f"shiplint.probes.{other}"))
    }
    assert reaching == {}
    # And each stands on the shared layer (a probe that copied it would not).
    shared = {m for path in (PROBES / probe).glob("*.py") for m in _imports(path)}
    assert {"shiplint.probes.host", "shiplint.probes.layout", "shiplint.probes.runner"} <= shared
