"""A wheel's declared requirements, read from its `.dist-info/METADATA` with `packaging`.

Only what the metadata rule needs: the distribution's `Version` and `Requires-Dist`
entries as strings, and what could not be read. Markers are evaluated by the rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.metadata import parse_email

from shiplint.artifacts.archive import ArtifactKind, MemberError
from shiplint.artifacts.tree import Tree

# METADATA is a few kilobytes; anything larger is not a wheel's metadata.
_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class WheelMetadata:
    member: str
    requires_dist: tuple[str, ...]
    # Why METADATA (or a part of it) could not be read; None when it was.
    problem: str | None = None
    # The `Version` field as written (`1.5.1+cu130`); None when absent.
    version: str | None = None


def read_metadata(tree: Tree, members: tuple[str, ...]) -> WheelMetadata | None:
    """The top-level `*.dist-info/METADATA` of a wheel; None for other artifacts."""
    if tree.kind is not ArtifactKind.WHEEL:
        return None
    found = [
        m
        for m in members
        if m.count("/") == 1 and m.endswith("/METADATA") and m.split("/")[0].endswith(".dist-info")
    ]
    if len(found) != 1:
        return None
    member = found[0]
    try:
        data = tree.read(member, _LIMIT)
    except MemberError as error:
        return WheelMetadata(member, (), error.reason)
    raw, unparsed = parse_email(data.decode("utf-8", "replace"))
    problem = None
    if "requires_dist" in unparsed or "requires-dist" in unparsed:
        problem = "Requires-Dist could not be parsed"
    return WheelMetadata(member, tuple(raw.get("requires_dist", ())), problem, raw.get("version"))
