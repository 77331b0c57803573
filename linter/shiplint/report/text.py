"""The report people read: errors first, each hint once, lines within 100 columns.

Each finding is `location: CODE [severity] message` (the `path:line:col:` prefix
editors and problem matchers jump to), its message wrapped at 100 columns under a
4-column indent. A rule's hint follows its first finding only, as `  hint: ...`
wrapped under its own indent: a rule that fires on 18 libraries says what to do
once, where the reader meets it first. Hints that differ per finding only name
what the message already names (the component to add), and the JSON and SARIF
reports keep every hint. Findings go by severity, then location; waived ones come
last with their reason. The summary line closes the report.
"""

from __future__ import annotations

import textwrap

from shiplint.diagnostics import Diagnostic
from shiplint.report.model import Report, reading_order

# The terminal width the report is laid out for.
WIDTH = 100
_MESSAGE_INDENT = " " * 4
_HINT_LEAD = "  hint: "


def render(report: Report) -> str:
    lines: list[str] = []
    hinted: set[str] = set()
    for d in reading_order(report.diagnostics):
        lines += finding_lines(d)
        if d.hint and d.counts and d.code not in hinted:
            hinted.add(d.code)
            lines += _wrap(d.hint, _HINT_LEAD, " " * len(_HINT_LEAD))
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def header(d: Diagnostic) -> str:
    return f"{d.location.render()}: {d.code} [{d.severity.value}]"


def finding_lines(d: Diagnostic) -> list[str]:
    waived = f" (waived: {d.waived})" if d.waived else ""
    head = header(d)
    # A location too long to leave room for words (a wheel member's path) keeps
    # the line to itself, so the message starts at the indent, not at column 100.
    if len(head) > WIDTH * 3 // 5:
        return [head, *_wrap(d.message + waived, _MESSAGE_INDENT, _MESSAGE_INDENT)]
    return _wrap(d.message + waived, head + " ", _MESSAGE_INDENT)


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


def summary_line(report: Report) -> str:
    s = report.summary()
    verdict = "passed" if report.passed else "failed"
    return (
        f"shiplint: {verdict}: {s['errors']} error(s), {s['warnings']} warning(s), "
        f"{s['infos']} info, {s['waived']} waived (failing at {s['fail_on']})"
    )
