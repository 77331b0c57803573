"""A diff as text, JSON (schemas/diff.schema.json), Markdown or a Mermaid picture.
Breaking changes first."""

from __future__ import annotations

import json

from shiplint.diff.model import Change, Diff, Problem
from shiplint.plural import counted

FORMATS = ("text", "json", "markdown", "mermaid")
# The formats that show the picture of the changed package.
PICTURED = ("markdown", "mermaid")
JSON_VERSION = 1


def render(diff: Diff, format_name: str, picture: str = "") -> str:
    """The diff in `format_name`; `picture` (Mermaid) is what the PICTURED formats draw."""
    if format_name == "json":
        return as_json(diff)
    if format_name == "markdown":
        return as_markdown(diff, picture)
    if format_name == "mermaid":
        return picture
    return as_text(diff)


def _sides(diff: Diff) -> str:
    return f"{', '.join(diff.old)} -> {', '.join(diff.new)}"


def as_text(diff: Diff) -> str:
    lines = [f"shiplint diff: {_sides(diff)}"]
    if diff.problems:
        lines.append(f"not compared ({len(diff.problems)}):")
        lines.extend(f"  {_problem(p)}" for p in diff.problems)
    if not diff.changes:
        return "\n".join([*lines, "no changes", ""])
    width = max(len(c.kind.slug) for c in diff.changes)
    for title, changes in (("breaking", diff.breaking), ("other changes", diff.other)):
        if changes:
            lines.append(f"{title} ({len(changes)}):")
            lines.extend(f"  {c.platform}  {c.kind.slug:<{width}} {c.message}" for c in changes)
    lines.append(_summary(diff))
    return "\n".join([*lines, ""])


def _problem(problem: Problem) -> str:
    return (
        f"{problem.location.render()}: {problem.side} build, {problem.platform}, route "
        f"{problem.route}: {problem.message}"
    )


def _summary(diff: Diff) -> str:
    failing = [p for p in diff.problems if p.breaking]
    fails = f"; {counted(len(failing), 'route')} that worked now failing" if failing else ""
    if not diff.breaking:
        return f"{counted(len(diff.changes), 'change')}, none breaking{fails}"
    return (
        f"{counted(len(diff.breaking), 'breaking change')} (something consumers rely on was "
        f"removed), {counted(len(diff.other), 'other change')}{fails}"
    )


def _change(change: Change) -> dict[str, object]:
    out: dict[str, object] = {
        "kind": change.kind.slug,
        "breaking": change.breaking,
        "platform": change.platform,
        "subject": change.subject,
        "message": change.message,
    }
    if change.route is not None:
        out["route"] = change.route
    if change.count:
        out["count"] = change.count
    if change.names:
        out["names"] = list(change.names)
    return out


def as_json(diff: Diff) -> str:
    document = {
        "version": JSON_VERSION,
        "old": list(diff.old),
        "new": list(diff.new),
        "breaking": diff.fails,
        "changes": [_change(c) for c in diff.changes],
        "problems": [
            {
                "side": p.side,
                "platform": p.platform,
                "route": p.route,
                "message": p.message,
                "location": p.location.as_dict(),
                "regressed": p.regressed,
            }
            for p in diff.problems
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_markdown(diff: Diff, picture: str = "") -> str:
    lines = [f"## shiplint diff: {_cell(_sides(diff))}", ""]
    if diff.changes:
        lines.extend([f"**{_summary(diff)}**", ""])
    if diff.problems:
        lines.extend(["### Not compared", ""])
        lines.extend(
            f"- `{p.location.render()}`: {p.side} build, {p.platform}, route "
            f"{p.route}: {_cell(p.message)}"
            for p in diff.problems
        )
        lines.append("")
    if not diff.changes:
        return "\n".join([*lines, "No changes.", ""])
    for title, changes in (("Breaking", diff.breaking), ("Other changes", diff.other)):
        if not changes:
            continue
        lines.extend([f"### {title}", "", "| platform | change | what |", "|---|---|---|"])
        lines.extend(f"| {c.platform} | {c.kind.slug} | {_cell(c.message)} |" for c in changes)
        lines.append("")
    if picture:
        lines.extend(
            [
                "### What changed, drawn",
                "",
                "New parts green, removed ones red and dashed (drawn from the old build), "
                "changed ones amber, changed in a breaking way red; thick edges entered an "
                "aggregate, dotted labelled ones left it.",
                "",
                "```mermaid",
                picture.rstrip("\n"),
                "```",
                "",
            ]
        )
    return "\n".join(lines)
