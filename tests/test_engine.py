"""The engine: stamping from the catalogue, waivers, stale waivers, crashes, selection."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest
from shiplint import registry
from shiplint.catalogue import catalogue
from shiplint.diagnostics import Finding, Location, Severity, Subject
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Manifest, Mark, Waiver
from shiplint.rule import Rule

from tests.builders import library, manifest


@dataclass(frozen=True)
class FakeModel:
    libraries: tuple[str, ...]


def _missing(manifest: Manifest, model: FakeModel) -> Iterator[Finding]:
    for name in model.libraries:
        yield Finding(f"{name} is missing", Location("x.whl!/lib"), Subject(library=name))


def _crash(manifest: Manifest, model: FakeModel) -> Iterator[Finding]:
    raise KeyError("boom")


@pytest.fixture
def with_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    # Borrow two real catalogue codes for the fake rules: the engine stamps their docs.
    monkeypatch.setattr(
        "shiplint.engine.RULES",
        (*registry.RULES, Rule("SL001", FakeModel, _missing), Rule("SL002", FakeModel, _crash)),
    )


def _waiver(rule: str, **subject: str) -> Waiver:
    return Waiver(rule, tuple(sorted(subject.items())), "because it is fine", Mark("m.yaml", 7, 3))


def test_engine_stamps_code_slug_and_severity(with_rules: None) -> None:
    diags = lint(manifest((library("a"),)), [FakeModel(("a",))], Selection(ignore=("SL002",)))
    (d,) = diags
    doc = catalogue()["SL001"]
    assert (d.code, d.slug, d.severity) == ("SL001", doc.slug, doc.severity)
    assert d.subject == Subject(library="a")
    assert d.counts


def test_waiver_marks_finding_and_does_not_count(with_rules: None) -> None:
    m = manifest(waivers=(_waiver("SL001", library="a*"),))
    diags = lint(m, [FakeModel(("abc", "zzz"))], Selection(ignore=("SL002",)))
    waived = {d.subject.library: d.waived for d in diags}
    assert waived == {"abc": "because it is fine", "zzz": None}


def test_unmatched_waiver_is_reported_at_its_line(with_rules: None) -> None:
    m = manifest(waivers=(_waiver("SL001", library="nothing"),))
    diags = lint(m, [FakeModel(("abc",))], Selection(ignore=("SL002",)))
    stale = [d for d in diags if d.message.startswith("waiver for")]
    assert len(stale) == 1
    assert stale[0].location == Location("m.yaml", 7, 3)
    assert stale[0].severity is Severity.WARNING


def test_waiver_for_a_rule_that_did_not_run_is_not_stale(with_rules: None) -> None:
    m = manifest(waivers=(_waiver("SL3", library="x"),))
    assert lint(m, [], Selection(ignore=("SL002",))) == []


def test_crashing_rule_is_reported_not_raised(with_rules: None) -> None:
    diags = lint(manifest(), [FakeModel(("a",))], Selection(select=("SL002",)))
    (d,) = diags
    assert d.code == "SL002" and "KeyError" in d.message and "test_engine.py" in d.message


def test_selection() -> None:
    s = Selection(select=("SL1", "SL301"), ignore=("SL105",))
    assert s.enabled("SL101") and s.enabled("SL301")
    assert not s.enabled("SL105") and not s.enabled("SL302")
    assert Selection().enabled("SL999")


def test_diagnostics_are_immutable(with_rules: None) -> None:
    (d,) = lint(manifest(), [FakeModel(("a",))], Selection(select=("SL001",)))
    with pytest.raises(AttributeError):
        d.code = "SL999"  # type: ignore[misc]
    assert replace(d, waived="x").waived == "x"
