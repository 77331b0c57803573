"""The inventory of one artifact: what every area reads, built once per artifact.

`Listing` (members, platform, library placements, installed configs) plus the
binary records and the resolved link graph. The SL3xx rules read it whole; the
operator area and the link probe read its records and links instead of parsing
or walking anything again. Built by `shiplint.artifacts.inventory.read_inventory`.
Frozen, no lief, no archive members.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# ArtifactKind is re-exported: the rules read it from the model.
from shiplint.artifacts.archive import ArtifactKind as ArtifactKind
from shiplint.artifacts.archive import Rejected
from shiplint.artifacts.import_library import ImportLibrary
from shiplint.artifacts.linkage import LinkGraph
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.metadata import WheelMetadata
from shiplint.artifacts.placement import LibraryFile
from shiplint.artifacts.records import BinaryRecord
from shiplint.diagnostics import Location
from shiplint.platforms import Platform

__all__ = ["ArtifactKind", "Inventory", "LibraryFile", "Listing", "Unreadable"]


@dataclass(frozen=True)
class Unreadable:
    """A member the rules need that could not be read or parsed as a binary, and why."""

    member: str
    reason: str


@dataclass(frozen=True)
class Inventory:
    listing: Listing
    # Every binary read: the manifest's libraries and every other shared object.
    binaries: tuple[BinaryRecord, ...]
    # How the loader links each of them.
    links: LinkGraph
    unreadable: tuple[Unreadable, ...] = ()
    # Byte-identical copies of a shared object under other names in its directory
    # (`libx.so` and `libx.so.12.13` beside `libx.so.12`: a wheel holds no symlinks), as
    # (copy, the member it copies). A copy is not in `binaries`: it is checked as the
    # member it copies, once.
    copies: tuple[tuple[str, str], ...] = ()
    # A wheel's `.dist-info/METADATA` requirements; None for other artifacts.
    metadata: WheelMetadata | None = None
    # Windows: every `.lib` that is an import library, with the DLLs it names.
    import_libraries: tuple[ImportLibrary, ...] = ()

    def copy_of(self, member: str) -> str | None:
        return next((kept for copy, kept in self.copies if copy == member), None)

    def copies_of(self, member: str) -> tuple[str, ...]:
        return tuple(copy for copy, kept in self.copies if kept == member)

    # The listing's facts, read as the inventory's own.
    @property
    def label(self) -> str:
        return self.listing.label

    @property
    def kind(self) -> ArtifactKind:
        return self.listing.kind

    @property
    def platform(self) -> Platform | None:
        return self.listing.platform

    @property
    def platform_source(self) -> str:
        return self.listing.platform_source

    @property
    def members(self) -> tuple[str, ...]:
        return self.listing.members

    @property
    def libraries(self) -> tuple[LibraryFile, ...]:
        return self.listing.libraries

    @property
    def rejected(self) -> tuple[Rejected, ...]:
        return self.listing.rejected

    @property
    def member_set(self) -> frozenset[str]:
        return self.listing.member_set

    @property
    def directories(self) -> frozenset[str]:
        return self.listing.directories

    @property
    def path(self) -> str:
        return self.listing.path

    @property
    def platform_tag(self) -> str | None:
        return self.listing.platform_tag

    def location(self, member: str | None = None) -> Location:
        """Where a finding points: the member `member`, or the whole artifact."""
        return self.listing.location(member)

    def library_file(self, library: str) -> LibraryFile | None:
        return self.listing.library_file(library)

    def library_of(self, member: str) -> str | None:
        """The manifest library shipped as `member`, if any."""
        return self.listing.library_of(member)

    def binary(self, member: str | None) -> BinaryRecord | None:
        return None if member is None else self._index.get(member)

    # cached_property writes the instance __dict__ directly, which a frozen
    # dataclass allows: the index is derived once, the fields stay frozen.
    @functools.cached_property
    def _index(self) -> dict[str, BinaryRecord]:
        return {b.name: b for b in self.binaries}

    def library_binary(self, library: str) -> BinaryRecord | None:
        placed = self.library_file(library)
        return None if placed is None else self.binary(placed.member)

    def subject_name(self, member: str) -> str:
        """How a finding names a binary: its manifest library, else its file name."""
        return self.library_of(member) or member.rsplit("/", 1)[-1]
