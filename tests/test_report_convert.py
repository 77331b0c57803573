"""The JSON report converts back losslessly; the Markdown summary escapes what it shows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.diagnostics import Location
from shiplint.report import FORMATS, reporter
from shiplint.report.convert import ReportFormatError, load_report, main
from shiplint.report.markdown import MAX_ROWS
from shiplint.report.markdown import render as markdown

from tests.report_fixtures import diagnostic, sample_report


def test_json_round_trip_is_lossless(tmp_path: Path) -> None:
    report = sample_report(tmp_path)
    again = load_report(reporter("json")(report), tmp_path)
    assert again == report
    for name in FORMATS:
        assert reporter(name)(again) == reporter(name)(report)


def test_convert_command_writes_the_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "report.json"
    saved.write_text(reporter("json")(sample_report(tmp_path)))
    out = tmp_path / "out.sarif"
    assert (
        main([str(saved), "--format", "sarif", "--root", str(tmp_path), "--output", str(out)]) == 0
    )
    assert out.read_text() == reporter("sarif")(sample_report(tmp_path))
    assert main([str(saved), "--format", "github", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == reporter("github")(sample_report(tmp_path))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "not a shiplint JSON report"),
        ('{"version": 2}', "unsupported report version 2"),
        ('{"version": 1, "diagnostics": [{"code": "SL001"}]}', "not a shiplint JSON report"),
    ],
)
def test_not_a_report_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    with pytest.raises(ReportFormatError, match=reason):
        load_report(text, tmp_path)
    saved = tmp_path / "bad.json"
    saved.write_text(text)
    assert main([str(saved), "--format", "text"]) == 2
    assert f"shiplint: error: {saved}: " in capsys.readouterr().err


def test_markdown_summary_shows_verdict_counts_and_waivers(tmp_path: Path) -> None:
    text = markdown(sample_report(tmp_path))
    assert text.startswith("## :x: shiplint failed\n")
    assert "**1** error · **1** warning · **1** info · **1** waived" in text
    # Cells cannot break the table or inject HTML.
    assert "100% a bug,<br>please report it" in text
    assert "<code>cmake/dir, with comma/x&#58;y.cmake&#58;7</code>" in text
    assert "<details><summary>1 waived finding</summary>" in text
    assert "known upstream, see pytorch/executorch#21642" in text
    hostile = diagnostic("SL001", "a | b <script>`x`</script>", Location("f", 1))
    row = markdown(sample_report(tmp_path, (hostile,)))
    assert "a &#124; b &#60;script&#62;&#96;x&#96;&#60;/script&#62;" in row
    assert "<script>" not in row


def test_markdown_summary_is_cut_short(tmp_path: Path) -> None:
    base = diagnostic("SL001", "m", Location("f", 1))
    many = tuple(replace(base, message=f"m{i}") for i in range(MAX_ROWS + 5))
    text = markdown(sample_report(tmp_path, many))
    assert text.count("\n| warning |") == MAX_ROWS
    assert "…and 5 more: see the SARIF or JSON report." in text


def test_fail_on_none_survives_the_round_trip(tmp_path: Path) -> None:
    report = replace(sample_report(tmp_path), fail_on=None)
    again = load_report(reporter("json")(report), tmp_path)
    assert again.fail_on is None and again.passed and report.summary() == again.summary()
