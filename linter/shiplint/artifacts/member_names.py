"""Member names inside an artifact: normalised, checked and printed.

A name is a path the CMake layout creates and text a report prints, taken from an
archive someone else made: it may climb out, hold control characters or undecodable
bytes, or be longer and deeper than any file system takes.
"""

from __future__ import annotations

import re

# Member names: what file systems and extractors accept (PATH_MAX, NAME_MAX), and a depth
# no install tree reaches.
MAX_NAME_CHARS = 1024
MAX_COMPONENT_BYTES = 255
MAX_DEPTH = 64


def normalise_member(raw: str) -> str | None:
    """The normalised posix path of a member, or None when it is absolute or climbs out.

    Backslashes count as separators: `..\\..\\x` is as hostile to a Windows
    extractor as `../../x` is to a posix one.
    """
    text = raw.replace("\\", "/")
    if text.startswith("/") or (len(text) >= 2 and text[1] == ":"):
        return None
    parts = text.split("/")
    if ".." in parts:
        return None
    # Most names are already normal: the list is searched, not rebuilt, for them.
    if "" in parts or "." in parts:
        parts = [part for part in parts if part not in ("", ".")]
    return "/".join(parts) if parts else None


_CONTROL = re.compile("[\x00-\x1f\x7f]")
# Undecodable bytes, kept as lone surrogates (surrogateescape).
_SURROGATE = re.compile("[\ud800-\udfff]")


def name_problem(name: str) -> str | None:
    """Why a normalised member name is not listed, or None. Names are text a report prints
    and paths the CMake layout creates: no control characters, no undecodable bytes, within
    the file system's length limits and a sane depth."""
    # One regular-expression scan per check: an archive lists thousands of names.
    if _CONTROL.search(name):
        return "name holds a control character"
    if _SURROGATE.search(name):
        return "name is not valid UTF-8"
    if len(name) > MAX_NAME_CHARS:
        return f"name longer than {MAX_NAME_CHARS} characters"
    parts = name.split("/")
    if len(parts) > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} directories"
    # No component is longer than the whole name: most names need no look at each part.
    if len(name.encode()) > MAX_COMPONENT_BYTES and any(
        len(p.encode()) > MAX_COMPONENT_BYTES for p in parts
    ):
        return f"a path component longer than {MAX_COMPONENT_BYTES} bytes"
    return None


# A plain name's length bound: no component of an ASCII name this long passes the byte
# limit, and the name is within the length limit.
_PLAIN_MAX_CHARS = min(MAX_COMPONENT_BYTES, MAX_NAME_CHARS)


def plain_member(raw: str) -> bool:
    """Whether a raw member name is already normal and has no problem (then
    `normalise_member(raw) == raw` and `name_problem(raw)` is None), by a few scans most
    names pass; False says only that the full checks must decide. An archive lists
    thousands of names, and the full checks cost most of listing one."""
    return (
        # ASCII and short: no undecodable byte, no component past the byte limit.
        raw.isascii()
        and 0 < len(raw) <= _PLAIN_MAX_CHARS
        and raw.count("/") < MAX_DEPTH
        and "\\" not in raw
        # No empty, `.` or `..` component (nor any starting with a dot), not absolute,
        # no drive.
        and not raw.startswith(("/", "."))
        and not raw.endswith("/")
        and "//" not in raw
        and "/." not in raw
        and raw[1:2] != ":"
        and _CONTROL.search(raw) is None
    )


def printable(raw: str) -> str:
    """A member name as a report may show it: control characters and undecodable bytes
    escaped, at most MAX_NAME_CHARS characters."""
    out = "".join(
        c
        if 0x20 <= ord(c) != 0x7F and not 0xD800 <= ord(c) <= 0xDFFF
        else f"\\x{ord(c) & 0xFF:02x}"
        for c in raw[:MAX_NAME_CHARS]
    )
    return out if len(raw) <= MAX_NAME_CHARS else f"{out}… ({len(raw):,} characters)"
