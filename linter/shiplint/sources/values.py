"""The values the walk computes: CMake lists, unknown-variable markers, paths.

A variable the walk cannot know expands to a marker, not to the empty string CMake
would use, so a path or target name built from it is recognised as unknown
(reported, never followed) rather than silently wrong. `known()` turns markers
back into `${NAME}` for display.
"""

from __future__ import annotations

import os.path
import re
from pathlib import Path

UNKNOWN_OPEN, UNKNOWN_CLOSE = "\x00", "\x01"


def split_list(value: str) -> list[str]:
    """A CMake list: `;`-separated, `\\;` kept, empty items dropped."""
    if not value:
        return []
    if "\\;" not in value:
        return [v for v in value.split(";") if v]
    parts = re.split(r"(?<!\\);", value)
    return [p.replace("\\;", ";") for p in parts if p]


def unknown(name: str) -> str:
    return f"{UNKNOWN_OPEN}{name}{UNKNOWN_CLOSE}"


def known(text: str) -> str:
    """Turn unknown-variable markers back into `${NAME}` for display and matching."""
    if UNKNOWN_OPEN not in text:
        return text
    return text.replace(UNKNOWN_OPEN, "${").replace(UNKNOWN_CLOSE, "}")


def resolve(base: Path, spec: str) -> Path:
    path = Path(spec)
    return Path(normpath(path if path.is_absolute() else base / path))


def normpath(path: Path) -> str:
    return os.path.normpath(path)


def keyword_value(words: list[str], keyword: str) -> str | None:
    if keyword in words:
        index = words.index(keyword)
        if index + 1 < len(words):
            return words[index + 1]
    return None
