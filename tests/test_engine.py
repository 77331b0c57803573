"""The engine: stamping from the catalogue, waivers, stale waivers, crashes, selection."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest
from shiplint import registry
from shiplint.catalogue import catalogue
from shiplint.codes import rule_codes, unknown_patterns
from shiplint.diagnostics import Finding, Location, Severity, Subject
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Manifest, Waiver
from shiplint.rule import Rule

from tests.builders import library, manifest
from tests.material import EXAMPLE_MANIFEST, REPO


@dataclass(frozen=True)
class FakeModel:
    libraries: tuple[str, ...]


def _missing(manifest: Manifest, model: FakeModel) -> Iterator[Finding]:
    for name in model.libraries:
        yield Finding(f"{name} is missing", Location("x.whl", member="lib"), Subject(library=name))


def _crash(manifest: Manifest, model: FakeModel) -> Iterator[Finding]:
    raise KeyError("boom")


# Two real catalogue codes borrowed for the fake rules: the engine stamps their docs.
WITH_FAKES = (*registry.RULES, Rule("SL001", FakeModel, _missing), Rule("SL002", FakeModel, _crash))


def _waiver(rule: str, **subject: str) -> Waiver:
    return Waiver(
        rule, tuple(sorted(subject.items())), "because it is fine", Location("m.yaml", 7, 3)
    )


def test_engine_stamps_code_slug_and_severity() -> None:
    diags = lint(
        WITH_FAKES, manifest((library("a"),)), [FakeModel(("a",))], Selection(ignore=("SL002",))
    )
    (d,) = diags
    doc = catalogue()["SL001"]
    assert (d.code, d.slug, d.severity) == ("SL001", doc.slug, doc.severity)
    assert d.subject == Subject(library="a")
    assert d.counts


def test_waiver_marks_finding_and_does_not_count() -> None:
    m = manifest(waivers=(_waiver("SL001", library="a*"),))
    diags = lint(WITH_FAKES, m, [FakeModel(("abc", "zzz"))], Selection(ignore=("SL002",)))
    waived = {d.subject.library: d.waived for d in diags}
    assert waived == {"abc": "because it is fine", "zzz": None}


def test_unmatched_waiver_is_reported_at_its_line() -> None:
    m = manifest(waivers=(_waiver("SL001", library="nothing"),))
    diags = lint(WITH_FAKES, m, [FakeModel(("abc",))], Selection(ignore=("SL002",)))
    stale = [d for d in diags if d.message.startswith("waiver for")]
    assert len(stale) == 1
    assert stale[0].location == Location("m.yaml", 7, 3)
    assert stale[0].severity is Severity.WARNING


def test_waiver_for_a_rule_that_did_not_run_is_not_stale() -> None:
    m = manifest(waivers=(_waiver("SL3", library="x"),))
    assert lint(WITH_FAKES, m, [], Selection(ignore=("SL002",))) == []


def test_crashing_rule_is_reported_not_raised() -> None:
    diags = lint(WITH_FAKES, manifest(), [FakeModel(("a",))], Selection(select=("SL002",)))
    (d,) = diags
    assert d.code == "SL002" and "KeyError" in d.message and "test_engine.py" in d.message


def test_selection() -> None:
    s = Selection(select=("SL1", "SL301"), ignore=("SL105",))
    assert s.enabled("SL101") and s.enabled("SL301")
    assert not s.enabled("SL105") and not s.enabled("SL302")
    assert Selection().enabled("SL999")


def test_diagnostics_are_immutable() -> None:
    (d,) = lint(WITH_FAKES, manifest(), [FakeModel(("a",))], Selection(select=("SL001",)))
    with pytest.raises(AttributeError):
        d.code = "SL999"  # type: ignore[misc]
    assert replace(d, waived="x").waived == "x"


def test_loading_config_and_manifest_imports_no_rule() -> None:
    """Validating a waiver's or --select's code reads the rule documents, not the rules."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from shiplint.config import load_config\n"
        "from shiplint.manifest.load import load_manifest\n"
        f"load_config(Path({str(REPO)!r}))\n"
        f"load_manifest(Path({str(EXAMPLE_MANIFEST)!r}))\n"
        "loaded = [m for m in sys.modules if m.startswith(('shiplint.checks', 'shiplint.registry'))]\n"
        "print(loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_rule_codes_are_the_registered_rules() -> None:
    assert rule_codes() == tuple(sorted(r.code for r in registry.RULES))


@pytest.mark.parametrize(
    ("pattern", "names"),
    [("SL3", True), ("SL305", True), ("SL", True), ("SL9", False), ("X", False)],
)
def test_one_answer_to_which_patterns_name_a_rule(pattern: str, names: bool) -> None:
    assert unknown_patterns([pattern], rule_codes()) == ([] if names else [pattern])


# Every rule module's imports are checked.
_RULE_MODULES = tuple(
    sorted(
        path.stem
        for path in (REPO / "linter" / "shiplint" / "checks").glob("*.py")
        if path.stem != "__init__"
    )
)
# What a rule may import besides model modules (`shiplint.<area>.model`).
_RULE_IMPORTS = {
    # The dataclass decorator every model's records are made with.
    "shiplint.fastclass",
    # The binary records (the artifact model's per-binary part, free of lief) and the
    # demangler they use to name symbols: data and a pure function, no builder.
    "shiplint.artifacts.demangle",
    "shiplint.artifacts.records",
    # Views of the inventory the symbol rules ask per binary: its load scope (the link
    # graph walked on through the system libraries' shipped data tables) and the
    # binaries loaded into Python. Pure functions of the model, reading no artifact.
    "shiplint.artifacts.load_scope",
    "shiplint.artifacts.python_loaded",
    # What a wheel's platform tag promises (auditwheel's policy data, shipped in
    # schemas/): a pure function of the tag, reading no artifact.
    "shiplint.artifacts.tag_promises",
    # Member paths joined inside an artifact without leaving it: a pure function.
    "shiplint.artifacts.paths",
    # The one shape of a probe's findings about itself (not run, part not applied): pure
    # functions of the probes' shared model, which both probes' rules are built with.
    "shiplint.probes.status",
    "shiplint.diagnostics",
    "shiplint.engine_models",
    "shiplint.manifest.model",
    "shiplint.plural",
    "shiplint.rule",
}


@pytest.mark.parametrize("module", _RULE_MODULES)
def test_rules_import_models_never_builders(module: str) -> None:
    import ast

    path = REPO / "linter" / "shiplint" / "checks" / f"{module}.py"
    imported = {
        node.module
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("shiplint")
    }
    builders = {m for m in imported if m not in _RULE_IMPORTS and not m.endswith(".model")}
    assert not builders, f"checks/{module}.py imports {sorted(builders)}"
