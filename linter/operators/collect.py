"""Assemble one artifact's `OperatorRegistrations` from its binaries' link facts and tables."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from linter.manifest.model import Library, Manifest
from linter.operators.model import (
    LibraryRegistrations,
    OperatorRegistrations,
    RegistryUse,
    Status,
)
from linter.operators.registries import LinkFacts, Resolver, owns
from linter.operators.tables import PointerImage, kernel_records
from linter.platforms import Platform


@dataclass(frozen=True)
class BinaryInput:
    facts: LinkFacts
    # The relocated pointers, or None when they could not be read (then `unreadable` says why).
    pointers: PointerImage | None
    unreadable: str | None = None


def collect(
    artifact: str,
    platform: Platform | None,
    manifest: Manifest,
    binaries: Sequence[BinaryInput],
) -> OperatorRegistrations:
    resolver = Resolver(b.facts for b in binaries)
    libraries = tuple(
        _library(manifest, platform, resolver, b) for b in sorted(binaries, key=_member)
    )
    return OperatorRegistrations(artifact, platform, libraries)


def _member(binary: BinaryInput) -> str:
    return binary.facts.member


def _library(
    manifest: Manifest, platform: Platform | None, resolver: Resolver, binary: BinaryInput
) -> LibraryRegistrations:
    facts = binary.facts
    registries = manifest.registries
    uses = resolver.uses(facts.member, registries)
    owned = tuple(r.name for r in registries if owns(facts, r))
    records = kernel_records(binary.pointers) if binary.pointers is not None else ()
    status, reason = _status(binary, uses, owned, len(records))
    return LibraryRegistrations(
        member=facts.member,
        library=_manifest_library(manifest, platform, facts.member),
        status=status,
        owns=owned,
        uses=uses,
        operators=records,
        reason=reason,
        closure=resolver.closure(facts.member),
    )


def _status(
    binary: BinaryInput, uses: tuple[RegistryUse, ...], owned: tuple[str, ...], records: int
) -> tuple[Status, str | None]:
    if binary.pointers is None:
        if not uses:
            return Status.NONE, None
        return Status.NOT_DETERMINED, binary.unreadable or "its relocations could not be read"
    if not uses:
        if records:
            return Status.NOT_DETERMINED, (
                f"it holds kernel tables for {records} operator kernel(s) but references none "
                "of the manifest's registries, so the registry they go to is unknown "
                "(a registry the manifest does not name, or a hidden copy of one)"
            )
        return Status.NONE, None
    if records:
        return Status.TABLES, None
    if owned and len(owned) == len(uses):
        # The registry itself, with no table of its own: it registers nothing.
        return Status.NONE, None
    names = ", ".join(u.registry for u in uses)
    return Status.NOT_DETERMINED, (
        f"it imports the {names} registry but holds no kernel table: it registers "
        "through code (one Kernel built at static initialisation, as EXECUTORCH_LIBRARY "
        "does), whose operator names are not data the binary points at"
    )


def _manifest_library(manifest: Manifest, platform: Platform | None, member: str) -> str | None:
    directory, file_name = posixpath.split(member)
    for library in manifest.libraries:
        if _placed_here(library, platform, directory, file_name):
            return library.name
    return None


def _placed_here(
    library: Library, platform: Platform | None, directory: str, file_name: str
) -> bool:
    # The platform is the wheel tag's, else the binaries' own (artifact.py), so
    # it is only unknown when there is no binary to place.
    if platform is None:
        return False
    placement = library.placement_for(platform)
    return (
        placement is not None
        and placement.directory.strip("/") == directory
        and library.matches_file(platform, file_name)
    )
