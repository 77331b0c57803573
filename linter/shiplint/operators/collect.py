"""Assemble one artifact's `OperatorRegistrations` from its binaries' link facts and tables."""

from __future__ import annotations

from collections.abc import Sequence

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.operators.model import (
    LibraryRegistrations,
    OperatorRegistrations,
    RegistryUse,
    Status,
)
from shiplint.operators.registries import LinkFacts, Resolver, owns
from shiplint.operators.tables import PointerImage, kernel_records
from shiplint.platforms import Platform
from shiplint.plural import counted


@dataclass(frozen=True)
class BinaryInput:
    facts: LinkFacts
    # The manifest library this binary is (as the artifacts area placed it), if any.
    library: str | None
    # The relocated pointers, or None when they could not be read (then `unreadable` says why).
    pointers: PointerImage | None
    unreadable: str | None = None


def collect(
    artifact: str,
    where: Location,
    platform: Platform | None,
    manifest: Manifest,
    binaries: Sequence[BinaryInput],
) -> OperatorRegistrations:
    resolver = Resolver(b.facts for b in binaries)
    libraries = tuple(_library(manifest, resolver, b) for b in sorted(binaries, key=_member))
    return OperatorRegistrations(artifact, platform, libraries, where)


def _member(binary: BinaryInput) -> str:
    return binary.facts.member


def _library(manifest: Manifest, resolver: Resolver, binary: BinaryInput) -> LibraryRegistrations:
    facts = binary.facts
    registries = manifest.registries
    uses = resolver.uses(facts.member, registries)
    owned = tuple(r.name for r in registries if owns(facts, r))
    records = kernel_records(binary.pointers) if binary.pointers is not None else ()
    status, reason = _status(binary, uses, owned, len(records))
    return LibraryRegistrations(
        member=facts.member,
        library=binary.library,
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
                f"it holds kernel tables for {counted(records, 'operator kernel')} but references none "
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
