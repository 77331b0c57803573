"""The docs stay true: docs/rules.md is the catalogue rendered, docs/manifest.md covers the schema."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from linter import docs_gen
from linter.catalogue import catalogue

REPO = Path(__file__).resolve().parent.parent
RULES_PAGE = REPO / "docs" / "rules.md"


def test_rules_page_is_up_to_date() -> None:
    expected = docs_gen.render(list(catalogue().values()))
    assert RULES_PAGE.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m linter.docs_gen` and commit the result"
    )


def test_every_rule_has_its_section_and_table_row() -> None:
    page = RULES_PAGE.read_text(encoding="utf-8")
    for doc in catalogue().values():
        assert f'<a id="{doc.code.lower()}"></a>\n### {doc.code} `{doc.slug}`' in page
        assert f"| [{doc.code}](#{doc.code.lower()}) | `{doc.slug}` |" in page
        assert doc.fix.splitlines()[0] in page


def test_check_mode_detects_a_stale_page(tmp_path: Path) -> None:
    page = tmp_path / "rules.md"
    assert docs_gen.main(["--check", "--output", str(page)]) == 1  # missing
    assert docs_gen.main(["--output", str(page)]) == 0
    assert docs_gen.main(["--check", "--output", str(page)]) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("SL001", "SL999"), encoding="utf-8")
    assert docs_gen.main(["--check", "--output", str(page)]) == 1


def test_rendering_follows_the_rule_documents() -> None:
    doc = catalogue()["SL001"]
    changed = replace(doc, summary="Changed | summary.", area="some-new-area")
    page = docs_gen.render([changed])
    assert "| [SL001](#sl001) | `unmatched-waiver` | warning | Changed \\| summary. |" in page
    # An area the generator has no title for still gets a section.
    assert "## SL0xx: some-new-area" in page
