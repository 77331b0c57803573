"""A Python expression of a build script as a finding quotes it."""

from __future__ import annotations

import ast

_MAX_CHARS = 120


def shown(node: ast.expr) -> str:
    """The expression's source text, at most 120 characters. `ast.unparse` recurses once
    per operator: a script's chain of hundreds of `+` is said, not unparsed."""
    try:
        text = ast.unparse(node)
    except RecursionError:
        return f"an expression nested too deeply to quote (line {node.lineno})"
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 3] + "..."
