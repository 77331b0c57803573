"""What an artifact holds, known without parsing a binary: the part of the inventory every
area reads (the CMake evaluation needs no more than this).

Built by `shiplint.artifacts.inventory.list_artifact`, once per artifact.
"""

from __future__ import annotations

import functools

from shiplint.artifacts.kinds import ArtifactKind, Rejected
from shiplint.artifacts.paths import parent_directories
from shiplint.artifacts.placement import LibraryFile
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform


@dataclass(frozen=True)
class Listing:
    # The artifact's file name: how messages and subjects name it.
    label: str
    # Its path as locations name it (relative to the checked root when under it).
    path: str
    kind: ArtifactKind
    platform: Platform | None
    # Where the platform came from: "wheel tag", "binaries" (their headers), or "unknown".
    platform_source: str
    members: tuple[str, ...]
    # Every manifest library placed on this platform, in manifest order (none when the
    # platform is unknown: a placement is per platform).
    libraries: tuple[LibraryFile, ...]
    # The installed config of each installed config directory that holds one, in the
    # manifest's order: the first is the one a consumer's find_package finds.
    configs: tuple[str, ...]
    rejected: tuple[Rejected, ...] = ()
    # A wheel's platform tag as written (`manylinux_2_28_x86_64`), else None.
    platform_tag: str | None = None
    # Members that come from another artifact of the same prefix (a companion wheel):
    # (member, that artifact's path, its own name for the member).
    origins: tuple[tuple[str, str, str], ...] = ()

    def location(self, member: str | None = None) -> Location:
        """Where a finding points: the member `member`, or the whole artifact."""
        if member is not None and member in self._origins:
            path, own = self._origins[member]
            return Location(path).within(own)
        where = Location(self.path)
        return where if member is None else where.within(member)

    @functools.cached_property
    def _origins(self) -> dict[str, tuple[str, str]]:
        return {member: (path, own) for member, path, own in self.origins}

    @property
    def config(self) -> str | None:
        """The installed config a consumer finds, if the artifact ships one."""
        return self.configs[0] if self.configs else None

    def library_file(self, library: str) -> LibraryFile | None:
        return next((f for f in self.libraries if f.library == library), None)

    def library_of(self, member: str) -> str | None:
        """The manifest library shipped as `member`, if any."""
        return self._owners.get(member)

    # cached_property writes the instance __dict__ directly, which a frozen
    # dataclass allows: the indexes are derived once, the fields stay frozen.
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
        return frozenset({"", *parent_directories(self.members)})

    def shipped(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each placed library the artifact ships, with every member that is it."""
        return tuple((f.library, f.files) for f in self.libraries if f.files)
