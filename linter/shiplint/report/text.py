"""The report people read: errors first, each hint once, lines within 100 columns.

Each finding is `location: CODE [severity] message` (the `path:line:col:` prefix
editors and problem matchers jump to), its message wrapped at 100 columns under a
4-column indent. A rule's hint follows its first finding only, as `  hint: ...`
wrapped under its own indent: a rule that fires on 18 libraries says what to do
once, where the reader meets it first. Hints that differ per finding only name
what the message already names (the component to add), and the JSON and SARIF
reports keep every hint. Findings go by severity, then location; waived ones come
last with their reason. The summary line closes the report.

`statistics` adds a closing table, one row per rule: count, code, slug (as
`ruff --statistics`); `quiet` leaves out the findings. Colour, when the palette
is enabled, marks the severity and the code, nothing that changes the layout.
"""

from __future__ import annotations

import textwrap
from collections import Counter

from shiplint.diagnostics import Diagnostic
from shiplint.plural import counted
from shiplint.report.colour import PLAIN, Palette
from shiplint.report.model import Report, reading_order

# The terminal width the report is laid out for.
WIDTH = 100
_MESSAGE_INDENT = " " * 4
_HINT_LEAD = "  hint: "


def render(
    report: Report,
    *,
    palette: Palette = PLAIN,
    statistics: bool = False,
    quiet: bool = False,
) -> str:
    lines: list[str] = []
    if not quiet:
        lines += finding_block(report, palette)
    if statistics and report.diagnostics:
        if lines:
            lines.append("")
        lines += statistics_lines(report, palette)
    lines.append(summary_line(report, palette))
    return "\n".join(lines) + "\n"


def finding_block(report: Report, palette: Palette = PLAIN) -> list[str]:
    lines: list[str] = []
    hinted: set[str] = set()
    for d in reading_order(report.diagnostics):
        lines += finding_lines(d, palette)
        if d.hint and d.counts and d.code not in hinted:
            hinted.add(d.code)
            lines += _wrap(d.hint, _HINT_LEAD, " " * len(_HINT_LEAD))
    return lines


def header(d: Diagnostic, palette: Palette = PLAIN) -> str:
    severity = f"[{d.severity.value}]"
    painted = palette.faint(severity) if d.waived else palette.severity(d.severity, severity)
    return f"{d.location.render()}: {palette.code(d.code)} {painted}"


def finding_lines(d: Diagnostic, palette: Palette = PLAIN) -> list[str]:
    waived = f" (waived: {d.waived})" if d.waived else ""
    head = header(d)
    # A location too long to leave room for words (a wheel member's path) keeps
    # the line to itself, so the message starts at the indent, not at column 100.
    if len(head) > WIDTH * 3 // 5:
        lines = [head, *_wrap(d.message + waived, _MESSAGE_INDENT, _MESSAGE_INDENT)]
    else:
        lines = _wrap(d.message + waived, head + " ", _MESSAGE_INDENT)
    # Painted after wrapping: escape sequences take no columns.
    lines[0] = header(d, palette) + lines[0][len(head) :]
    return lines


def statistics_lines(report: Report, palette: Palette = PLAIN) -> list[str]:
    """One row per rule that reported: count, code, slug; most frequent first."""
    counted = Counter(d.code for d in report.diagnostics if d.counts)
    waived = Counter(d.code for d in report.diagnostics if not d.counts)
    slugs = {d.code: d.slug for d in report.diagnostics}
    width = len(str(max(counted.values(), default=0)))
    rows = []
    for code in sorted(slugs, key=lambda c: (-counted[c], -waived[c], c)):
        extra = f"  ({waived[code]} waived)" if waived[code] else ""
        rows.append(f"{counted[code]:>{width}}  {palette.code(code)}  {slugs[code]}{extra}")
    return rows


def _wrap(text: str, first: str, rest: str) -> list[str]:
    # "(= lib/)" explains the entry before it: a line never ends on its "(=".
    glued = text.replace("(= ", "(=\xa0")
    lines = textwrap.wrap(
        glued,
        width=WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]
    return [line.replace("\xa0", " ") for line in lines]


def summary_line(report: Report, palette: Palette = PLAIN) -> str:
    s = report.summary()
    verdict = palette.verdict(report.passed, "passed" if report.passed else "failed")
    return (
        f"shiplint: {verdict}: {counted(s['errors'], 'error')}, "
        f"{counted(s['warnings'], 'warning')}, "
        f"{s['infos']} info, {s['waived']} waived (failing at {s['fail_on']})"
    )
