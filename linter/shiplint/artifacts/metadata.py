"""A wheel's declared requirements, read from the headers of its `.dist-info/METADATA`.

Only what the metadata rule needs: the distribution's `Version` and `Requires-Dist`
entries as strings, and what could not be read. Markers are evaluated by the rule.

METADATA is an RFC 822 header block. The headers are read here the way the standard
library's email parser reads them with its compat32 policy, which is what
`packaging.metadata.parse_email` hands its fields to: same lines, same continuation
and defect handling, same values. Importing that parser (email, and packaging's
metadata module with its licence tables) cost a warm wheel run more than reading the
two fields; tests/test_artifacts_metadata.py holds this reader to `parse_email` on the
real wheels' METADATA and on malformed ones.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from shiplint.artifacts.kinds import ArtifactKind, MemberError
from shiplint.artifacts.tree import Tree

# METADATA is a few kilobytes; anything larger is not a wheel's metadata.
_LIMIT = 4 * 1024 * 1024
# A line the email parser takes as part of the header block: a unix-from line, a field
# name (printable ASCII but `:`) and its colon, or a continuation (email.feedparser's
# headerRE). The first line that is none of these ends the block.
_HEADER_LINE = re.compile(r"From |[\041-\071\073-\176]*:|[\t ]")


@dataclass(frozen=True)
class WheelMetadata:
    member: str
    requires_dist: tuple[str, ...]
    # Why METADATA could not be read; None when it was.
    problem: str | None = None
    # The `Version` field as written (`1.5.1+cu130`); None when absent or repeated.
    version: str | None = None


def read_metadata(tree: Tree, members: tuple[str, ...]) -> WheelMetadata | None:
    """The top-level `*.dist-info/METADATA` of a wheel; None for other artifacts."""
    if tree.kind is not ArtifactKind.WHEEL:
        return None
    found = [
        m
        for m in members
        if m.endswith("/METADATA") and m.count("/") == 1 and m.split("/")[0].endswith(".dist-info")
    ]
    if len(found) != 1:
        return None
    member = found[0]
    try:
        data = tree.read(member, _LIMIT)
    except MemberError as error:
        return WheelMetadata(member, (), error.reason)
    return parse_metadata(member, data)


def parse_metadata(member: str, data: bytes) -> WheelMetadata:
    """`Requires-Dist` (every one, in order) and `Version` (when written exactly once)."""
    # Decoded with replacement, the text holds no lone surrogates: every value is a
    # plain string, never the email parser's undecodable Header (which parse_email
    # would have put in its unparsed fields).
    fields = _header_fields(data.decode("utf-8", "replace"))
    versions = [value for name, value in fields if name == "version"]
    requires = tuple(value for name, value in fields if name == "requires-dist")
    return WheelMetadata(member, requires, None, versions[0] if len(versions) == 1 else None)


def _header_fields(text: str) -> list[tuple[str, str]]:
    """(lower-case name, value) of each header, in order, as compat32 parses them."""
    # Lines end at \r\n, \r or \n, ends kept: how the email parser splits its input.
    block: list[str] = []
    for line in io.StringIO(text, newline="").readlines():
        if not _HEADER_LINE.match(line):
            break
        block.append(line)
    fields: list[tuple[str, str]] = []
    current: list[str] = []
    for line in block:
        if line[0] in " \t":
            # A continuation before any field (or after a skipped line) is dropped.
            if current:
                current.append(line)
            continue
        if current:
            fields.append(_field(current))
            current = []
        # A unix-from line anywhere, and a line that starts with its colon, are no field.
        if line.startswith("From ") or line.startswith(":"):
            continue
        current = [line]
    if current:
        fields.append(_field(current))
    return fields


def _field(lines: list[str]) -> tuple[str, str]:
    name, value = lines[0].split(":", 1)
    return name.lower(), (value.lstrip(" \t") + "".join(lines[1:])).rstrip("\r\n")
