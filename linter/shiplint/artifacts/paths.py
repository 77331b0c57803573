"""Member paths inside an artifact: joined and normalised without leaving the root."""

from __future__ import annotations

from collections.abc import Iterable


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


def parent_directories(names: Iterable[str]) -> set[str]:
    """Every directory some name lies in: `name[:i]` for each `/` at `i` in it."""
    found: set[str] = set()
    for name in names:
        cut = name.rfind("/")
        # Walked from the deepest parent up; a directory already found has had all of
        # its parents added, so the walk stops there (an archive lists thousands of
        # members in a few directories).
        while cut >= 0:
            directory = name[:cut]
            if directory in found:
                break
            found.add(directory)
            cut = name.rfind("/", 0, cut)
    return found
