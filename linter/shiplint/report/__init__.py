"""Reporters, chosen by name. Each is `render(report) -> str`; none prints."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from shiplint.report.model import Report

Reporter = Callable[[Report], str]

FORMATS = ("text", "json", "sarif", "github", "markdown", "mermaid")
# The formats that carry the picture of the checked builds (JSON carries it so that a
# Markdown summary converted from a saved report still has it).
PICTURED = ("json", "markdown", "mermaid")


def reporter(name: str) -> Reporter:
    """The named format's renderer (KeyError for an unknown name)."""
    if name not in FORMATS:
        raise KeyError(name)
    # Imported on demand: a text run never loads the SARIF writer.
    render: Reporter = importlib.import_module(f"shiplint.report.{name}").render
    return render
