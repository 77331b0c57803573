"""Every rule is registered once, documented in rules/, and its page renders."""

from __future__ import annotations

from collections import Counter

import pytest
from shiplint.catalogue import catalogue, render_page
from shiplint.cli import main
from shiplint.registry import RULES

CODES = [r.code for r in RULES]


def test_each_rule_registered_once() -> None:
    assert [c for c, n in Counter(CODES).items() if n > 1] == []


def test_every_registered_rule_is_documented_and_every_doc_registered() -> None:
    assert sorted(catalogue()) == sorted(CODES)


def test_slugs_are_unique() -> None:
    slugs = Counter(doc.slug for doc in catalogue().values())
    assert [s for s, n in slugs.items() if n > 1] == []


def test_code_ranges_match_areas() -> None:
    areas = {
        "0": "run",
        "1": "cmake-evaluation",
        "2": "sources",
        "3": "artifacts",
        "4": "operators",
        "5": "link-probe",
    }
    for doc in catalogue().values():
        assert areas[doc.code[2]] == doc.area, doc.code


@pytest.mark.parametrize("code", CODES)
def test_explain_prints_the_page(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", code.lower()]) == 0
    out = capsys.readouterr().out
    assert out.strip() == render_page(catalogue()[code]).strip()
    assert "Why it matters:" in out and "Fix:" in out


def test_rules_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for code in CODES:
        assert f"{code}  {catalogue()[code].slug}" in out


def test_explain_unknown_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "SL998"]) == 2
    assert "unknown rule 'SL998': neither a code nor a slug" in capsys.readouterr().err


@pytest.mark.parametrize("code", CODES)
def test_explain_accepts_the_slug(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = catalogue()[code]
    assert main(["explain", doc.slug]) == 0
    assert capsys.readouterr().out.strip() == render_page(doc).strip()


def test_explain_suggests_the_closest_slug(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "component-missing-from-agregate"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'component-missing-from-aggregate'?" in err
