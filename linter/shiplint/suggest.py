"""A "did you mean" for a mistyped name, from the names that are known at that place."""

from __future__ import annotations

from collections.abc import Iterable


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` when one known name is close to `name`, else ``."""
    if not isinstance(name, str):
        return ""
    # Imported here: only a mistyped name needs it, never a clean run.
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
