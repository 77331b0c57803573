"""The text report as people read it: errors first, each hint once, within 100 columns."""

from __future__ import annotations

import re
from pathlib import Path

from shiplint.diagnostics import Diagnostic, Location, Severity
from shiplint.report.markdown import render as markdown
from shiplint.report.text import render as text

from tests.report_fixtures import WHEEL, diagnostic, sample_report

WIDTH = 100  # the terminal the report must read well in
RUNPATH_HINT = (
    "Drop the entries from the install RPATH (CMake INSTALL_RPATH): a directory the package "
    "does not ship is searched on every load and lets whatever a user has there shadow the "
    "package's own libraries."
)


def _runpath(member: str) -> Diagnostic:
    return diagnostic(
        "SL310",
        "RUNPATH names directories the artifact does not contain: $ORIGIN/../src (= src/)",
        Location(f"{WHEEL}!/executorch/lib/{member}"),
        hint=RUNPATH_HINT,
    )


def _mixed() -> tuple[Diagnostic, ...]:
    """Warnings that sort before the errors by location, an info, a waived error."""
    return (
        _runpath("a.so"),
        _runpath("b.so"),
        diagnostic(
            "SL001", "a note", Location("aaa/first.yaml", 1, 1), severity=Severity.INFO, hint="h"
        ),
        diagnostic(
            "SL102",
            "EXECUTORCH_LIBRARIES does not carry the shipped component backend_qnn",
            Location(f"{WHEEL}!/executorch/share/cmake/executorch-config.cmake"),
            hint="Add backend_qnn to EXECUTORCH_LIBRARIES on this route.",
        ),
        diagnostic(
            "SL102",
            "EXECUTORCH_LIBRARIES does not carry the shipped component backend_vulkan",
            Location(f"{WHEEL}!/executorch/share/cmake/executorch-config.cmake"),
            hint="Add backend_vulkan to EXECUTORCH_LIBRARIES on this route.",
        ),
        diagnostic(
            "SL102",
            "an excused error",
            Location("0-sorts-first.cmake", 1),
            waived="known upstream",
        ),
        diagnostic(
            "SL103",
            "EXECUTORCH_LIBRARIES carries different components on different CMake routes",
            Location(f"{WHEEL}!/executorch/share/cmake/executorch-config.cmake"),
            hint="Publish the same components on every route.",
        ),
    )


def _codes_in_order(report_text: str) -> list[str]:
    found = (re.search(r": (SL\d{3}) \[(\w+)\]", line) for line in report_text.splitlines())
    return [f"{m[1]} {m[2]}" for m in found if m]


def test_errors_come_first_then_warnings_info_and_waived_last(tmp_path: Path) -> None:
    rendered = text(sample_report(tmp_path, _mixed()))
    assert _codes_in_order(rendered) == [
        "SL102 error",
        "SL102 error",
        "SL103 error",
        "SL310 warning",
        "SL310 warning",
        "SL001 info",
        "SL102 error",  # the waived one, last
    ]
    assert "(waived: known upstream)" in rendered.splitlines()[-2]


def test_a_hint_repeated_by_a_rule_is_printed_once(tmp_path: Path) -> None:
    rendered = text(sample_report(tmp_path, _mixed()))
    assert rendered.count("hint: Drop the entries") == 1
    # It follows the first finding of its rule.
    lines = rendered.splitlines()
    first = next(i for i, line in enumerate(lines) if "SL310" in line)
    assert lines[first + 1].startswith("    RUNPATH names")  # the message, under its location
    assert lines[first + 2].startswith("  hint: Drop the entries")
    # Once per rule, not per wording: the first SL102's hint stands for the rule (the
    # message names the component; the machine formats keep every hint).
    assert "hint: Add backend_qnn" in rendered
    assert "hint: Add backend_vulkan" not in rendered
    assert "hint: Publish the same components" in rendered


def test_every_line_fits_100_columns_where_words_allow(tmp_path: Path) -> None:
    rendered = text(sample_report(tmp_path, _mixed()))
    lines = rendered.splitlines()
    for line in lines:
        # Only a location longer than the width itself may overflow, alone with its code.
        assert len(line) <= WIDTH or line.endswith("]"), line
    # A wrapped hint keeps its indent.
    hint = lines.index(next(line for line in lines if "hint: Drop" in line))
    assert lines[hint + 1].startswith("        ") and lines[hint + 1].strip()
    assert " ".join(s.strip() for s in lines[hint : hint + 3]).startswith("hint: " + RUNPATH_HINT)


def test_markdown_orders_by_severity_and_gives_a_rule_hint_once(tmp_path: Path) -> None:
    rendered = markdown(sample_report(tmp_path, _mixed()))
    rows = [line for line in rendered.splitlines() if line.startswith("| ") and "---" not in line]
    severities = [row.split(" | ")[0].removeprefix("| ") for row in rows[1:5]]
    assert severities == ["error", "error", "error", "warning"]
    assert rendered.count("Drop the entries") == 1
    assert "Add backend_qnn" in rendered and "Add backend_vulkan" not in rendered
