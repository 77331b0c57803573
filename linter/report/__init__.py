"""Reporters, chosen by name. Each is `render(report) -> str`; none prints."""

from __future__ import annotations

from collections.abc import Callable

from linter.report.model import Report

Reporter = Callable[[Report], str]


def reporter(name: str) -> Reporter:
    # Imported on demand: a text run never loads the SARIF writer.
    if name == "text":
        from linter.report.text import render
    elif name == "json":
        from linter.report.json import render
    elif name == "sarif":
        from linter.report.sarif import render
    elif name == "github":
        from linter.report.github import render
    elif name == "markdown":
        from linter.report.markdown import render
    else:
        raise KeyError(name)
    return render


FORMATS = ("text", "json", "sarif", "github", "markdown")
