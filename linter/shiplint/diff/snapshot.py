"""What one build publishes to consumers, per platform: the side of a diff.

Built from the models `shiplint check` reads (the artifact's binaries, the installed
config as each CMake evaluates it), never from the files again: a diff reads each
artifact exactly as a check does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from shiplint.artifacts.model import LinkGraph
from shiplint.artifacts.records import BinaryRecord, SymbolRecord
from shiplint.cmake_eval.evaluate import ABSENT_COMPONENT
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.platforms import Platform


class ArtifactBinaries(Protocol):
    """The part of an artifact's model a diff reads."""

    @property
    def label(self) -> str: ...

    @property
    def platform(self) -> Platform | None: ...

    @property
    def binaries(self) -> tuple[BinaryRecord, ...]: ...

    @property
    def links(self) -> LinkGraph: ...

    def library_of(self, member: str) -> str | None: ...


@dataclass(frozen=True)
class LibrarySnapshot:
    # The manifest's library name when the manifest places it, else the member path.
    key: str
    member: str
    soname: str | None
    file_type: str
    needed: tuple[str, ...]
    # Exported dynamic symbols by mangled name and version (None where unversioned);
    # demangled only when shown.
    exported: dict[tuple[str, str | None], SymbolRecord]
    # The members of the same build the loader loads with it (its NEEDED closure inside
    # the artifact, from the inventory's link graph), itself excluded.
    loads: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        return self.member.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class RouteSnapshot:
    """What find_package publishes with one CMake (one route)."""

    route: str
    cmake_version: str
    components: frozenset[str]
    targets: frozenset[str]
    # Aggregate variable -> the components (or raw entries) it lists.
    aggregates: dict[str, frozenset[str]]


@dataclass(frozen=True)
class Snapshot:
    label: str
    platform: str
    libraries: dict[str, LibrarySnapshot]
    routes: dict[str, RouteSnapshot]


def snapshot(artifact: ArtifactBinaries, configs: Iterable[object]) -> Snapshot:
    libraries: dict[str, LibrarySnapshot] = {}
    links = artifact.links.binaries
    for record in artifact.binaries:
        key = artifact.library_of(record.name) or record.name
        libraries[key] = LibrarySnapshot(
            key=key,
            member=record.name,
            soname=record.soname,
            file_type=record.file_type.value,
            needed=record.needed,
            exported={(s.name, s.version): s for s in record.defined},
            loads=artifact.links.of(record.name).loads if record.name in links else (),
        )
    routes = {
        route.route: route
        for route in (_route(c) for c in configs if isinstance(c, ConfigEvaluation))
        if route is not None
    }
    platform = str(artifact.platform) if artifact.platform is not None else "unknown"
    return Snapshot(artifact.label, platform, libraries, routes)


def _route(evaluation: ConfigEvaluation) -> RouteSnapshot | None:
    if evaluation.failure is not None or not evaluation.found:
        return None
    route = evaluation.route or f"CMake {evaluation.cmake_version}"
    # What a consumer sees: a component whose REQUIRED request succeeds (whether its
    # library is really there is the check's question, not the diff's).
    requests = [r for r in evaluation.requests if not r.refused]
    if any(r.component == ABSENT_COMPONENT for r in requests):
        # A config that accepts a component no package has accepts any name: its
        # answers say nothing about which components it publishes.
        requests = []
    targets = [*evaluation.targets, *(t for r in requests for t in r.targets)]
    return RouteSnapshot(
        route=route,
        cmake_version=evaluation.cmake_version,
        components=frozenset(r.component for r in requests),
        targets=frozenset(t.name for t in targets),
        aggregates={
            v.variable: frozenset(e.component or e.raw for e in v.entries)
            for v in evaluation.aggregates
            if v.defined
        },
    )


def by_platform(side: Sequence[Snapshot]) -> dict[str, Snapshot]:
    """Each platform's snapshot; two artifacts of one platform on one side are merged
    (a wheel and its separate debug-symbols archive, a split install tree)."""
    out: dict[str, Snapshot] = {}
    for snap in side:
        seen = out.get(snap.platform)
        if seen is None:
            out[snap.platform] = snap
        else:
            out[snap.platform] = Snapshot(
                f"{seen.label}, {snap.label}",
                snap.platform,
                {**seen.libraries, **snap.libraries},
                {**seen.routes, **snap.routes},
            )
    return out
