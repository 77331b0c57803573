"""Member paths inside an artifact: joined and normalised without leaving the root."""

from __future__ import annotations


def join_within(base: str, relative: str) -> str | None:
    """`base/relative` normalised (posix, `.` and `..` resolved); None when it climbs above
    the artifact's root, "" for the root itself. Backslashes count as separators."""
    parts: list[str] = []
    for part in f"{base}/{relative}".replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)
