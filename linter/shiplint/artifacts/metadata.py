"""A wheel's declared requirements, read from the headers of its `.dist-info/METADATA`.

Only what the rules need: the distribution's `Name`, `Version` and `Requires-Dist`
entries as strings, and what could not be read. Markers are evaluated by the rule.

METADATA is an RFC 822 header block, read by the standard library's header parser
with the compat32 policy (its default: email.policy, which names it, imports the
header registry and its parser): the parser `packaging.metadata.parse_email` hands its
fields to, so the values are the same (tests/test_artifacts_metadata.py holds this
reader to `parse_email` on the real wheels' METADATA and on malformed ones), without
importing packaging's metadata module and its licence tables on every wheel run, and
without parsing the body (a multipart one tripped `parse_email`'s assertion).

What the parser found is kept in the user cache under METADATA's bytes (keyed by this
module's code and the interpreter, whose standard library parses it): a later run over
the same wheel imports no email package (about 15 ms of a warm run's 0.3-0.45 s of CPU
here).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.artifacts.kinds import ArtifactKind, MemberError
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass
from shiplint.memo import Memo, constant

# METADATA is a few kilobytes; anything larger is not a wheel's metadata.
_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class WheelMetadata:
    member: str
    requires_dist: tuple[str, ...]
    # Why METADATA could not be read; None when it was.
    problem: str | None = None
    # The `Version` field as written (`1.5.1+cu130`); None when absent or repeated.
    version: str | None = None
    # The `Name` field as written; None when absent or repeated.
    name: str | None = None


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
    """`Requires-Dist` (every one, in order), `Version` and `Name` (each when written
    exactly once)."""
    requires, version, name = _PARSED.through(lambda: _fields(data), data)
    return WheelMetadata(member, requires, None, version, name)


_Fields = tuple[tuple[str, ...], str | None, str | None]


def _fields(data: bytes) -> _Fields:
    from email.parser import HeaderParser

    # Decoded with replacement, the text holds no lone surrogates: every value is a
    # plain string, never the parser's undecodable Header (which parse_email would have
    # put in its unparsed fields).
    headers = HeaderParser().parsestr(data.decode("utf-8", "replace"))
    versions = [str(value) for value in headers.get_all("Version", [])]
    names = [str(value) for value in headers.get_all("Name", [])]
    requires = tuple(str(value) for value in headers.get_all("Requires-Dist", []))
    return (
        requires,
        versions[0] if len(versions) == 1 else None,
        names[0] if len(names) == 1 else None,
    )


def _decode(data: Any) -> _Fields:
    """Kept fields back, or an error (a miss) for anything of another form."""
    requires, version, name = data
    if not isinstance(requires, tuple) or not all(isinstance(r, str) for r in requires):
        raise ValueError("not kept Requires-Dist entries")
    if not all(value is None or isinstance(value, str) for value in (version, name)):
        raise ValueError("not a kept Version or Name")
    return requires, version, name


_PARSED: Memo[_Fields] = Memo(
    "wheel-metadata",
    constant(cache.source_bytes((Path(__file__),)) + sys.version.encode()),
    decode=_decode,
)
