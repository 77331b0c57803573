"""What one build publishes to consumers, per platform: a side of a diff, and what the
pictures draw for a check and for a diff alike.

Built from the models `shiplint check` reads (the artifact's binaries, the installed
config as each CMake evaluates it), never from the files again: a diff reads each
artifact exactly as a check does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Protocol

from shiplint.artifacts.model import LinkGraph, Resolution
from shiplint.artifacts.records import BinaryRecord, SymbolRecord
from shiplint.cmake_eval.evaluate import ABSENT_COMPONENT
from shiplint.cmake_eval.model import ComponentRequest, ConfigEvaluation, ResolvedVariable
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.operators.model import OperatorRegistrations, Status
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
    # The operators its kernel tables register (by name), or None when that is not
    # known: no registry in the manifest, or registrations the binary does not show.
    operators: frozenset[str] | None = None
    # The members its own NEEDED entries resolve to (the picture's edges).
    dependencies: tuple[str, ...] = ()

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
    # Component variable -> what it names, when the config defines it (overall or in
    # the answer to its component's request).
    component_variables: dict[str, frozenset[str]] = field(default_factory=dict)
    # The imported targets the plain find_package (no component asked for) defines.
    plain_targets: frozenset[str] = frozenset()
    # Why nothing of this route can be compared (its evaluation failed); None when it can.
    failure: str | None = None
    # Why its components, targets and component variables cannot be compared (the
    # request for the shipped components failed: the plain find_package's aggregates
    # still can); None when they can.
    refused: str | None = None
    # The evaluated config (or where CMake's error points), for the problem's location.
    config: Location = field(default_factory=lambda: Location(""))

    @property
    def problem(self) -> str | None:
        return self.failure or self.refused


@dataclass(frozen=True)
class Snapshot:
    label: str
    platform: str
    libraries: dict[str, LibrarySnapshot]
    routes: dict[str, RouteSnapshot]
    # NEEDED entries no library of the build resolves -> the members that need them.
    externals: dict[str, tuple[str, ...]] = field(default_factory=dict)


def snapshot(artifact: ArtifactBinaries, models: Iterable[object]) -> Snapshot:
    """`artifact`'s snapshot; `models` are the other areas' models of the same artifact
    (its config evaluations, its operator registrations)."""
    models = list(models)
    registered = {
        lib.member: frozenset(lib.operator_names())
        if lib.status is not Status.NOT_DETERMINED
        else None
        for m in models
        if isinstance(m, OperatorRegistrations)
        for lib in m.libraries
    }
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
            operators=registered.get(record.name),
            dependencies=links[record.name].dependencies if record.name in links else (),
        )
    routes = {
        route.route: route
        for route in (_route(m) for m in models if isinstance(m, ConfigEvaluation))
        if route is not None
    }
    platform = str(artifact.platform) if artifact.platform is not None else "unknown"
    return Snapshot(artifact.label, platform, libraries, routes, _externals(artifact.links))


def _externals(links: LinkGraph) -> dict[str, tuple[str, ...]]:
    needing: dict[str, list[str]] = {}
    for member, binary in sorted(links.binaries.items()):
        for resolved in binary.resolved:
            if resolved.how is not Resolution.PACKAGE:
                needing.setdefault(resolved.needed, []).append(member)
    return {name: tuple(members) for name, members in sorted(needing.items())}


def _route(evaluation: ConfigEvaluation) -> RouteSnapshot | None:
    route = evaluation.route or f"CMake {evaluation.cmake_version}"
    version = evaluation.cmake_version
    if evaluation.failure is not None:
        failure = evaluation.failure
        return RouteSnapshot(
            route,
            version,
            frozenset(),
            frozenset(),
            {},
            failure=failure.message,
            config=failure.location,
        )
    if not evaluation.found:
        return None
    aggregates = {
        v.variable: frozenset(e.component or e.raw for e in v.entries)
        for v in evaluation.aggregates
        if v.defined
    }
    plain = frozenset(t.name for t in evaluation.targets)
    shipped = [r for r in evaluation.requests if r.shipped]
    if shipped and all(r.refused for r in shipped):
        # The request for everything the build ships failed as a whole: its answers say
        # nothing about which components the config publishes.
        why = next((r.fatal or r.message for r in shipped if r.fatal or r.message), None)
        refused = (
            f"find_package of the shipped components ({', '.join(r.component for r in shipped)}) "
            f"fails on CMake {version}" + (f": {why}" if why else "")
        )
        return RouteSnapshot(
            route,
            version,
            frozenset(),
            frozenset(),
            aggregates,
            plain_targets=plain,
            refused=refused,
            config=evaluation.config,
        )
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
        cmake_version=version,
        components=frozenset(r.component for r in requests),
        targets=frozenset(t.name for t in targets),
        aggregates=aggregates,
        component_variables=_component_variables(evaluation, requests),
        plain_targets=plain,
        config=evaluation.config,
    )


def _component_variables(
    evaluation: ConfigEvaluation, requests: Sequence[ComponentRequest]
) -> dict[str, frozenset[str]]:
    """Each component variable as the config defines it without a request, else as the
    first successful request that defines it does (an opt-in's own variable is often set
    only when the opt-in is asked for)."""
    out: dict[str, frozenset[str]] = {}
    answers: list[ResolvedVariable] = [
        *evaluation.component_variables,
        *(v for r in requests for v in r.component_variables),
    ]
    for variable in answers:
        if variable.defined and variable.variable not in out:
            out[variable.variable] = frozenset(e.component or e.raw for e in variable.entries)
    return out


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
                {
                    name: tuple(
                        sorted({*seen.externals.get(name, ()), *snap.externals.get(name, ())})
                    )
                    for name in sorted(seen.externals.keys() | snap.externals.keys())
                },
            )
    return out


def artifact_snapshots(
    models: Sequence[object], package: str | None = None
) -> list[tuple[Snapshot, str]]:
    """A snapshot of each artifact among a run's models, with the path its findings are
    located at; each built from the other areas' models of the same artifact. With
    `package` (the manifest's cmake.package), only that CMake package's evaluations are
    kept: those of cmake.other_packages would otherwise take its routes' places."""
    from shiplint.artifacts.model import Inventory

    models = [
        m
        for m in models
        if not isinstance(m, ConfigEvaluation) or m.cmake_package in (None, package)
    ]

    return [
        (
            snapshot(model, [m for m in models if _artifact_of(m) == model.label]),
            model.location().path,
        )
        for model in models
        if isinstance(model, Inventory)
    ]


def _artifact_of(model: object) -> str | None:
    """The label of the artifact an area's model is about."""
    if isinstance(model, OperatorRegistrations):
        return model.artifact
    label = getattr(model, "label", None)
    return label if isinstance(label, str) else None
