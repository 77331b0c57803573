"""The inventory of one artifact: what every area reads, built once per artifact.

`Listing` (members, platform, library placements, installed configs) plus the
binary records and the resolved link graph. The SL3xx rules read it whole; the
operator area and the link probe read its records and links instead of parsing
or walking anything again. Built by `shiplint.artifacts.inventory.read_inventory`.
Frozen, no parser, no archive members.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

# ArtifactKind is re-exported: the rules read it from the model.
from shiplint.artifacts.kinds import ArtifactKind as ArtifactKind
from shiplint.artifacts.kinds import Rejected
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.placement import LibraryFile, is_shared_object_name, matches_any_library
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Library, Manifest
from shiplint.platforms import Platform

if TYPE_CHECKING:
    # Types of fields only: importing their readers (archive formats, packaging, ctypes)
    # would cost every run that builds no inventory, a sources-only hook above all.
    from shiplint.artifacts.import_library import ImportLibrary
    from shiplint.artifacts.integrity import Problem
    from shiplint.artifacts.metadata import WheelMetadata
    from shiplint.artifacts.records import BinaryRecord

__all__ = ["ArtifactKind", "Inventory", "LibraryFile", "Listing", "Unreadable"]


# Path components that say a directory belongs to a build tree, not an install.
_BUILD_COMPONENTS = frozenset({"build", "cmake-out", "_skbuild", "CMakeFiles", "cmake-build"})


class EntryKind(enum.Enum):
    INSIDE = "inside"  # a directory of the artifact (it may or may not exist)
    PROVIDER = "provider"  # another wheel's directory beside this one (torch/lib)
    ESCAPES = "escapes"  # climbs above the artifact root
    ABSOLUTE = "absolute"  # a path on the build machine
    UNEXPANDABLE = "unexpandable"  # @executable_path, $LIB, $PLATFORM: not known statically


@dataclass(frozen=True)
class SearchEntry:
    raw: str
    kind: EntryKind
    # The artifact-relative directory (INSIDE, PROVIDER), else None.
    directory: str | None

    @property
    def build_tree(self) -> bool:
        return any(part in _BUILD_COMPONENTS for part in self.raw.split("/"))


class Resolution(enum.Enum):
    PACKAGE = "package"
    EXTERNAL = "external"
    UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class Resolved:
    needed: str
    how: Resolution
    # The member it resolves to inside the package.
    member: str | None = None


@dataclass(frozen=True)
class BinaryLinks:
    """How the loader links one binary of the artifact."""

    member: str
    # Every RUNPATH and RPATH (LC_RPATH) entry, expanded, RUNPATH's first.
    entries: tuple[SearchEntry, ...]
    # Every NEEDED entry, resolved, in NEEDED order.
    resolved: tuple[Resolved, ...]
    # Every member of the package loading this binary loads (itself first), breadth
    # first, with the NEEDED chain from this binary to it.
    closure: Mapping[str, tuple[str, ...]]

    @property
    def dependencies(self) -> tuple[str, ...]:
        """The members its NEEDED entries resolve to, in NEEDED order."""
        return tuple(r.member for r in self.resolved if r.member is not None)

    @property
    def loads(self) -> tuple[str, ...]:
        """The members its closure reaches, breadth first, itself excluded."""
        return tuple(m for m in self.closure if m != self.member)


@dataclass(frozen=True)
class LinkGraph:
    """The artifact's binaries as the loader links them: one `BinaryLinks` per binary."""

    binaries: Mapping[str, BinaryLinks]

    def of(self, member: str) -> BinaryLinks:
        return self.binaries[member]

    def closure(self, member: str) -> Mapping[str, tuple[str, ...]]:
        return self.binaries[member].closure


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
    # A wheel's disagreements between its members, its RECORD and its local headers, each
    # with the path of the wheel it is in (a companion's are its own).
    integrity: tuple[tuple[str, Problem], ...] = ()

    def is_shared_object(self, member: str) -> bool:
        """Whether `member` is named like a shared object on any platform."""
        return is_shared_object_name(member)

    def manifest_library_for(self, manifest: Manifest, member: str) -> tuple[Library, str] | None:
        """The manifest library whose file pattern `member`'s name matches on this
        artifact's platform, and that library's placement directory."""
        if self.platform is None:
            return None
        return matches_any_library(manifest, self.platform, member)

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
