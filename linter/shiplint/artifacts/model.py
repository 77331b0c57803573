"""The artifact model the SL3xx rules read: one per artifact, frozen, no lief, no zip members.

Built by `shiplint.artifacts.collect.collect_artifact` from an open `ArtifactTree`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# ArtifactKind is re-exported: the rules read it from the model.
from shiplint.artifacts.archive import ArtifactKind as ArtifactKind
from shiplint.artifacts.archive import Rejected
from shiplint.artifacts.import_library import ImportLibrary
from shiplint.artifacts.metadata import WheelMetadata
from shiplint.artifacts.records import BinaryRecord
from shiplint.diagnostics import Location
from shiplint.platforms import Platform


@dataclass(frozen=True)
class LibraryFile:
    """Where a manifest library placed on this artifact's platform was found (or not)."""

    library: str
    # The placement directory and file-name glob it is looked for with.
    directory: str
    pattern: str
    required: bool
    # The member path of the file, None when the artifact does not ship it.
    member: str | None
    # Files in that directory that look like the library but do not match the
    # pattern (a static `.a` or `.lib` shipped in its place, a versioned name).
    lookalikes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unreadable:
    """A member the rules need that could not be read or parsed as a binary, and why."""

    member: str
    reason: str


@dataclass(frozen=True)
class ArtifactModel:
    # The artifact's file name: how messages and subjects name it.
    label: str
    # Its path as locations name it (relative to the checked root when under it).
    path: str
    kind: ArtifactKind
    platform: Platform | None
    # Where the platform came from: "wheel tag", "binaries", or "unknown".
    platform_source: str
    members: tuple[str, ...]
    # Every manifest library placed on this platform, in manifest order.
    libraries: tuple[LibraryFile, ...]
    # Every binary read: the manifest's libraries and every other shared object.
    binaries: tuple[BinaryRecord, ...]
    unreadable: tuple[Unreadable, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    # Byte-identical copies of a shared object under other names in its directory
    # (`libx.so` and `libx.so.12.13` beside `libx.so.12`: a wheel holds no symlinks), as
    # (copy, the member it copies). A copy is not in `binaries`: it is checked as the
    # member it copies, once.
    copies: tuple[tuple[str, str], ...] = ()
    # A wheel's platform tag as written (`manylinux_2_28_x86_64`), else None.
    platform_tag: str | None = None
    # A wheel's `.dist-info/METADATA` requirements; None for other artifacts.
    metadata: WheelMetadata | None = None
    # Windows: every `.lib` that is an import library, with the DLLs it names.
    import_libraries: tuple[ImportLibrary, ...] = ()

    def copy_of(self, member: str) -> str | None:
        return next((kept for copy, kept in self.copies if copy == member), None)

    def copies_of(self, member: str) -> tuple[str, ...]:
        return tuple(copy for copy, kept in self.copies if kept == member)

    def location(self, member: str | None = None) -> Location:
        """Where a finding points: the member `name`, or the whole artifact."""
        where = Location(self.path)
        return where if member is None else where.within(member)

    def binary(self, member: str | None) -> BinaryRecord | None:
        return None if member is None else self._index.get(member)

    # cached_property writes the instance __dict__ directly, which a frozen
    # dataclass allows: the indexes are derived once, the fields stay frozen.
    @functools.cached_property
    def _index(self) -> dict[str, BinaryRecord]:
        return {b.name: b for b in self.binaries}

    def library_file(self, library: str) -> LibraryFile | None:
        return next((f for f in self.libraries if f.library == library), None)

    def library_binary(self, library: str) -> BinaryRecord | None:
        placed = self.library_file(library)
        return None if placed is None else self.binary(placed.member)

    def library_of(self, member: str) -> str | None:
        """The manifest library shipped as `member`, if any."""
        return self._owners.get(member)

    @functools.cached_property
    def _owners(self) -> dict[str, str]:
        return {f.member: f.library for f in self.libraries if f.member is not None}

    @functools.cached_property
    def member_set(self) -> frozenset[str]:
        return frozenset(self.members)

    @functools.cached_property
    def members_by_lower_name(self) -> dict[str, str]:
        """Members by their lower-cased path, for Windows' case-insensitive lookups."""
        return {m.lower(): m for m in self.members}

    @functools.cached_property
    def directories(self) -> frozenset[str]:
        """Every directory that holds at least one member ("" is the root)."""
        found: set[str] = {""}
        for member in self.members:
            parts = member.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                found.add("/".join(parts[:depth]))
        return frozenset(found)

    def subject_name(self, member: str) -> str:
        """How a finding names a binary: its manifest library, else its file name."""
        return self.library_of(member) or member.rsplit("/", 1)[-1]
