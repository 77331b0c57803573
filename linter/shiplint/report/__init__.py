"""Reporters, chosen by name. Each is `render(report) -> str`; none prints."""

from __future__ import annotations

from collections.abc import Callable

from shiplint.report.model import Report

Reporter = Callable[[Report], str]


def reporter(name: str) -> Reporter:
    # Imported on demand: a text run never loads the SARIF writer.
    if name == "text":
        from shiplint.report.text import render
    elif name == "json":
        from shiplint.report.json import render
    elif name == "sarif":
        from shiplint.report.sarif import render
    elif name == "github":
        from shiplint.report.github import render
    elif name == "markdown":
        from shiplint.report.markdown import render
    else:
        raise KeyError(name)
    return render


FORMATS = ("text", "json", "sarif", "github", "markdown")
