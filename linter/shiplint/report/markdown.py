"""A Markdown summary: the verdict, the counts, and a table per kind of finding.

Rows go errors first, then by location (as the text report); a rule's hint is shown
under the rule's first row, not repeated on every row of that rule (the SARIF and
JSON reports keep every finding's hint).

Written by the GitHub Action to `$GITHUB_STEP_SUMMARY`, which GitHub renders as
GitHub-flavoured Markdown with inline HTML allowed; so every character of a cell that
Markdown or HTML gives a meaning is written as its character reference (`cell`), and a
long report is cut short with a count, since a step summary is limited to 1 MiB.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shiplint.diagnostics import Diagnostic
from shiplint.plural import noun
from shiplint.report.model import Report, reading_order

# Rows per table before the rest is only counted.
MAX_ROWS = 200


# Characters GitHub's Markdown gives a meaning inside a table cell: the cell delimiter,
# backslash escapes (a name ending in `\\` escaped the `<` of the closing `</code>`),
# code spans, emphasis, links and images, strikethrough, math, emoji shortcodes,
# autolinks, and HTML. Each becomes its numeric character reference, which GitHub decodes
# after the row is split into cells and after inline parsing: the text reads as written.
# An underscore between two letters or digits never starts emphasis (GitHub's flanking
# rules): names like backend_qnn stay as written.
_MEANINGFUL = re.compile(r"[&<>|\\`*\[\]!~$:@]|(?i:www)\.|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _reference(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) > 1:  # `www.`: a bare-domain autolink
        return f"{text[:-1]}&#46;"
    return f"&#{ord(text)};"


def cell(text: str) -> str:
    """`text` as one table cell shows it, verbatim: nothing in it splits the cell or reads
    as Markdown or HTML; line breaks become `<br>`."""
    escaped = _MEANINGFUL.sub(_reference, text)
    return escaped.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def render(report: Report) -> str:
    s = report.summary()
    verdict = "passed" if report.passed else "failed"
    mark = ":white_check_mark:" if report.passed else ":x:"
    lines = [
        f"## {mark} shiplint {verdict}",
        "",
        f"**{s['errors']}** {noun(s['errors'], 'error')} · "
        f"**{s['warnings']}** {noun(s['warnings'], 'warning')} · **{s['infos']}** info · "
        f"**{s['waived']}** waived · failing at **{s['fail_on']}** "
        f"({s['failing']} failing) · shiplint {cell(report.tool_version)}",
        "",
    ]
    ordered = reading_order(report.diagnostics)
    counted = [d for d in ordered if d.counts]
    waived = [d for d in ordered if not d.counts]
    if counted:
        lines += _table(counted, ("severity", "rule", "location", "message"), _rows(counted))
    if waived:
        lines += [
            f"<details><summary>{len(waived)} {noun(len(waived), 'waived finding')}</summary>",
            "",
        ]
        lines += _table(waived, ("rule", "location", "message", "reason"), _waived_row)
        lines += ["</details>", ""]
    if not report.diagnostics:
        lines += ["No findings.", ""]
    if report.picture:
        lines += [
            "<details><summary>Picture of the checked builds: libraries, components and "
            "aggregates per route, findings marked</summary>",
            "",
            "```mermaid",
            report.picture.rstrip("\n"),
            "```",
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines)


def _table(
    diagnostics: list[Diagnostic],
    header: tuple[str, ...],
    row: Callable[[Diagnostic], str],
) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += [row(d) for d in diagnostics[:MAX_ROWS]]
    if len(diagnostics) > MAX_ROWS:
        out.append(f"\n…and {len(diagnostics) - MAX_ROWS} more: see the SARIF or JSON report.")
    out.append("")
    return out


def _rule(d: Diagnostic) -> str:
    return f"{d.code} {cell(d.slug)}"


def _rows(diagnostics: list[Diagnostic]) -> Callable[[Diagnostic], str]:
    """The row of a counted finding; the hint only on the first hinted row of its rule."""
    first: dict[str, Diagnostic] = {}
    for d in diagnostics:
        if d.hint:
            first.setdefault(d.code, d)

    def row(d: Diagnostic) -> str:
        text = cell(d.message)
        if d.hint and first[d.code] is d:
            text += f"<br>*{cell(d.hint)}*"
        return (
            f"| {d.severity.value} | {_rule(d)} | <code>{cell(d.location.render())}</code> "
            f"| {text} |"
        )

    return row


def _waived_row(d: Diagnostic) -> str:
    return (
        f"| {_rule(d)} | <code>{cell(d.location.render())}</code> | {cell(d.message)} "
        f"| {cell(d.waived or '')} |"
    )
