"""The manifest init is about to write: what `decide.py` chose and `render.py` writes.

Plain frozen values in the order they are written, each with the comments a human
should read beside it (where init guessed, or where only the project can decide).
"""

from __future__ import annotations

from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class DraftPlacement:
    selector: str
    directory: str
    file: str | None


@dataclass(frozen=True)
class DraftLibrary:
    name: str
    kind: str
    placements: tuple[DraftPlacement, ...]
    components: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    # The CMake target that builds it (with --root).
    build_target: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DraftComponent:
    name: str
    target: str | None = None
    request: str | None = None
    opt_in: bool = False
    only_on_request: bool = False
    header_only: bool = False
    notes: tuple[str, ...] = ()
    requestable: bool = True


@dataclass(frozen=True)
class DraftRoute:
    name: str
    since: str | None
    below: str | None
    description: str
    imported_targets: bool = True


@dataclass(frozen=True)
class DraftAggregate:
    variable: str
    # Exactly one of the two is set.
    all_except: tuple[str, ...] | None
    only: tuple[str, ...] | None
    routes: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DraftComponentVariable:
    variable: str
    component: str
    routes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ExternalGroup:
    """System libraries that belong together, under one comment."""

    comment: str
    entries: tuple[str, ...]
    # `{policy: NAME}` entries rather than globs.
    policies: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProvidedGroup:
    """Libraries another distribution ships, found where the package's binaries look
    for them (their search path names that distribution's package directory)."""

    provider: str
    libraries: tuple[str, ...]
    comment: str


@dataclass(frozen=True)
class BuildDeclaration:
    """Where the repository's build says which targets it builds (with --root)."""

    kind: str
    path: str | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Draft:
    package: str
    cmake_package: str | None
    namespace: str
    package_root: str
    config_dirs: tuple[str, ...]
    routes: tuple[DraftRoute, ...]
    libraries: tuple[DraftLibrary, ...]
    components: tuple[DraftComponent, ...]
    aggregates: tuple[DraftAggregate, ...]
    component_variables: tuple[DraftComponentVariable, ...]
    externals: tuple[ExternalGroup, ...]
    # What the artifacts were and how they were read, for the file's header.
    provenance: tuple[str, ...]
    # Where the routes disagree: printed, never written into the contract.
    disagreements: tuple[str, ...] = ()
    # Said on stderr: what init could not decide for the human.
    warnings: tuple[str, ...] = ()
    build_declarations: tuple[BuildDeclaration, ...] = ()
    provided: tuple[ProvidedGroup, ...] = ()
    # The `shiplint check` command that reads what init read (the same artifacts and
    # CMakes, and --no-sources unless the sources were given): written in the header
    # so the advice there is one command that works as written.
    check_command: str = ""
