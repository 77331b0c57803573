"""GitHub Actions workflow commands: one annotation line per diagnostic.

    ::error file=CMakeLists.txt,line=12,col=3,title=SL201 component-never-built::message

Severity maps error -> `::error`, warning -> `::warning`, info -> `::notice`.
A waived diagnostic is still one line, as a `::notice` whose title ends in
"(waived)" and whose message carries the waiver's reason: the pull request shows
what the manifest excuses without it counting as a failure.

`file=` is set only for a file of the checked tree (GitHub can attach the
annotation to it); a finding about an artifact (`dist/wheel.whl`, or a member
`dist/wheel.whl!/member`) names it at the start of its message instead, since
artifacts are built, not committed. The hint follows the message on its own line.

Escaping follows the Actions toolkit (`@actions/core` command.ts): in the message
`%`, CR and LF become `%25`, `%0D`, `%0A`; in properties also `:` -> `%3A` and
`,` -> `%2C`. Without it a newline in a message would end the command and the
rest would print as a plain log line.
"""

from __future__ import annotations

from shiplint.diagnostics import Diagnostic, Severity
from shiplint.report.locations import place
from shiplint.report.model import Report

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    return "".join(annotation(report, d) + "\n" for d in report.diagnostics)


def annotation(report: Report, diagnostic: Diagnostic) -> str:
    loc = diagnostic.location
    where = place(loc, report.root, diagnostic.subject.artifact)
    props: list[tuple[str, str]] = []
    message = diagnostic.message
    if where.relative and not where.artifact:
        props.append(("file", where.file))
        if loc.line is not None:
            props.append(("line", str(loc.line)))
            if loc.column is not None:
                props.append(("col", str(loc.column)))
    else:
        message = f"{loc.render()}: {message}"
    title = f"{diagnostic.code} {diagnostic.slug}"
    command = _COMMAND[diagnostic.severity]
    if diagnostic.hint:
        message = f"{message}\n{diagnostic.hint}"
    if diagnostic.waived is not None:
        command = "notice"
        title += " (waived)"
        message = f"{message}\nwaived: {diagnostic.waived}"
    props.append(("title", title))
    rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{command} {rendered}::{escape_data(message)}"
