"""What a package config published when real CMake evaluated it: the models SL1xx rules read.

Produced by `shiplint.cmake_eval.evaluate`; paths are already mapped back from the
temporary tree to members of the artifact (or files of the repository), and every
aggregate entry is already resolved to the component it carries, so a rule only
compares these facts with the manifest.
"""

from __future__ import annotations

import enum
import posixpath
import re
from collections.abc import Iterable

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform


class DiagnosticKind(enum.Enum):
    """What a consumer's plain find_package meets that the config said or left wrong."""

    WARNING = "warning"  # the config's own message(WARNING)
    NOTFOUND_PROPERTY = "notfound-property"  # an imported target's property
    NOTFOUND_VARIABLE = "notfound-variable"  # an aggregate or component variable
    MISSING_LINK_TARGET = "missing-link-target"  # INTERFACE_LINK_LIBRARIES names no target
    OWN_TARGET = "own-target"  # a non-IMPORTED target in the consumer's project
    CACHE_ENTRY = "cache-entry"  # a cache entry added to the consumer's cache


@dataclass(frozen=True)
class ConfigDiagnostic:
    kind: DiagnosticKind
    # The target or variable it is about (the warning's: empty).
    subject: str
    # The warning's text, the property and its value, the variable's NOTFOUND entry, or
    # the missing target's name.
    detail: str
    location: Location


# A file name a linker takes as a library, and the prefixes that pass an option through.
LIBRARY_FILE = re.compile(r"\.(so(\.\d+)*|dylib|dll|lib|a|tbd)$")
OPTION_PREFIXES = ("-Wl,", "LINKER:", "SHELL:")


def option_parts(item: str) -> list[str]:
    for prefix in OPTION_PREFIXES:
        if item.startswith(prefix):
            return [p for p in item[len(prefix) :].split(",") if p]
    return [item]


def retains(options: Iterable[str], location: str | None) -> bool:
    """True when the link options keep `location` on the link line under --as-needed.

    Either a `--no-as-needed` option naming this very library (the scoped
    push-state form), or one that names no library at all (it then applies to
    everything after it, this library included).
    """
    for option in options:
        parts = option_parts(option)
        if "--no-as-needed" not in parts:
            continue
        paths = [p for p in parts if "/" in p or LIBRARY_FILE.search(p)]
        if not paths:
            return True
        if location is not None and any(
            posixpath.basename(p) == posixpath.basename(location) for p in paths
        ):
            return True
    return False


class Mode(enum.Enum):
    ARTIFACT = "artifact"
    SOURCE = "source"


class EntryKind(enum.Enum):
    TARGET = "target"  # an imported target name (executorch::etdump)
    PATH = "path"  # a library file, possibly wrapped in retention options
    OPTION = "option"  # a bare linker option (-Wl,--no-as-needed)
    OTHER = "other"  # anything else (a bare name, a generator expression)


@dataclass(frozen=True)
class Entry:
    """One item of a variable's list, resolved back to what it carries."""

    raw: str
    kind: EntryKind
    # The manifest component it carries, when one could be determined.
    component: str | None = None
    # The manifest library it names (by path or through the target's location).
    library: str | None = None
    # The library file it names, as a member path of the evaluated tree.
    path: str | None = None
    # Kept on the link line by --no-as-needed (wrapped, or inside a no-as-needed span).
    retained: bool = False


@dataclass(frozen=True)
class ResolvedVariable:
    variable: str
    defined: bool
    entries: tuple[Entry, ...]

    @property
    def components(self) -> tuple[str, ...]:
        """The distinct components the variable carries, in order."""
        seen: dict[str, None] = {}
        for entry in self.entries:
            if entry.component is not None:
                seen.setdefault(entry.component, None)
        return tuple(seen)

    @property
    def text(self) -> str:
        return ";".join(e.raw for e in self.entries)


@dataclass(frozen=True)
class ImportedTarget:
    name: str
    type: str
    # IMPORTED_LOCATION (or the first IMPORTED_LOCATION_<CONFIG>), as a member path
    # when it lies inside the evaluated tree, else verbatim.
    location: str | None
    link_libraries: tuple[str, ...]
    link_options: tuple[str, ...]
    # The manifest component this target is named after, or whose library it imports.
    component: str | None = None
    # Absolute paths outside the package in its link interface that the config files
    # spell out verbatim: written on the machine that built the package.
    build_machine_paths: tuple[str, ...] = ()
    # INTERFACE_INCLUDE_DIRECTORIES: member paths when inside the evaluated tree, else
    # verbatim (generator expressions kept as CMake left them).
    include_dirs: tuple[str, ...] = ()
    # INTERFACE_COMPILE_DEFINITIONS as CMake left them (`NAME`, `NAME=VALUE`, genexes).
    compile_definitions: tuple[str, ...] = ()

    @property
    def retained(self) -> bool:
        """Whether its link options keep its library on a consumer's link line under
        --as-needed (a library that registers from a static initializer needs it)."""
        return retains(self.link_options, self.location)


@dataclass(frozen=True)
class ComponentRequest:
    """`find_package(<pkg> CONFIG COMPONENTS <component>)`, each in its own directory scope."""

    component: str
    # Whether the component's library is in the evaluated tree.
    shipped: bool
    found: bool
    message: str | None
    # A FATAL_ERROR/SEND_ERROR the config raised while answering (recorded, not fatal).
    fatal: str | None = None
    # The spelling the request used (the manifest component's `request`).
    spelling: str | None = None
    # What the request published: its imported targets and component variables.
    targets: tuple[ImportedTarget, ...] = ()
    component_variables: tuple[ResolvedVariable, ...] = ()
    # Asked for again alone: the batched request left <pkg>_<c>_FOUND unset.
    retried: bool = False
    # The same request made as REQUIRED (shipped components only; None: not asked so):
    # whether it was answered found, and what the config said when it was not.
    required_found: bool | None = None
    required_message: str | None = None

    @property
    def refused(self) -> bool:
        """A REQUIRED request would fail: not found, or the config raised an error."""
        return not self.found or self.fatal is not None


@dataclass(frozen=True)
class RequestSetAnswer:
    """`find_package(<pkg> CONFIG COMPONENTS <set>)` for a manifest request set (`ALL`)."""

    request: str
    found: bool
    message: str | None
    fatal: str | None
    # The imported targets it published, each resolved to its component.
    targets: tuple[ImportedTarget, ...] = ()

    @property
    def refused(self) -> bool:
        return not self.found or self.fatal is not None


@dataclass(frozen=True)
class ShippedLibrary:
    """A manifest library present in the evaluated tree."""

    library: str
    member: str
    components: tuple[str, ...]


class FailureKind(enum.Enum):
    # CMake reported an error (or exited without the probe's results).
    ERROR = "error"
    # The configure run was stopped at the time limit.
    TIMEOUT = "timeout"
    # CMake was stopped from outside (SIGSTOP, a debugger) and did not continue.
    STOPPED = "stopped"
    # The CMake binary could not be used at all.
    CMAKE_UNUSABLE = "cmake-unusable"


@dataclass(frozen=True)
class Failure:
    """The evaluation did not complete: CMake's own message and where it points."""

    kind: FailureKind
    message: str
    location: Location


@dataclass(frozen=True)
class AlternateConfig:
    """The same package's config installed in another directory of the artifact."""

    config: Location
    found: bool
    aggregates: tuple[ResolvedVariable, ...]
    component_variables: tuple[ResolvedVariable, ...]
    targets: tuple[ImportedTarget, ...]


@dataclass(frozen=True)
class ConfigEvaluation:
    """One configure run of the probe: one config, one platform, one CMake."""

    mode: Mode
    # The artifact's file name, or `source` for the repository's config.
    label: str
    platform: Platform
    cmake: str
    cmake_version: str
    # The manifest route this CMake version falls in (None when no route covers it).
    route: str | None
    # Where the evaluated config is: `<artifact>!/<member>` or the repo-relative source.
    config: Location
    shipped: tuple[ShippedLibrary, ...]
    failure: Failure | None
    found: bool
    not_found_message: str | None
    aggregates: tuple[ResolvedVariable, ...]
    component_variables: tuple[ResolvedVariable, ...]
    targets: tuple[ImportedTarget, ...]
    requests: tuple[ComponentRequest, ...]
    # Seconds the configure run took (wall clock).
    seconds: float
    # The other installed copies of the config, evaluated in the same run.
    alternates: tuple[AlternateConfig, ...] = ()
    # The languages of the consumer the evaluation answers for (none: no compiler on the
    # host). A config that cannot tell a consumer without them (compiler_need.py) was run
    # without them, its answers the same.
    languages: tuple[str, ...] = ("C", "CXX")
    # Why the probe enabled them (a package file naming what their detection sets, or
    # what a run without them showed), tree paths as the artifact's members; None when
    # it did not need them or the host has none.
    languages_because: str | None = None
    # The manifest's request sets, each as its request answered.
    request_sets: tuple[RequestSetAnswer, ...] = ()
    # Nothing kept the config's writes inside the run's directory (no read-only mounts,
    # no Landlock on this system).
    unconfined: bool = False
    # The manifest's CMake package this is about; None: its main one (cmake.package).
    cmake_package: str | None = None
    # Replayed from the user cache: the same inputs were evaluated before (replay.py).
    reused: bool = False
    # CMake runs it took: one, plus one more per request a fatal error stopped (isolate.py).
    runs: int = 1
    # What the config asked of the host that no stand-in could answer for the artifact's
    # platform, so the host answered (`python -i`, `uname -r`; target_host.py).
    host_answers: tuple[str, ...] = ()
    # What the plain evaluation said or left wrong for a consumer (diagnostics.py).
    diagnostics: tuple[ConfigDiagnostic, ...] = ()

    @property
    def artifact(self) -> str | None:
        return self.label if self.mode is Mode.ARTIFACT else None

    def variable(self, name: str) -> ResolvedVariable | None:
        return next(
            (v for v in (*self.aggregates, *self.component_variables) if v.variable == name),
            None,
        )

    def target(self, name: str) -> ImportedTarget | None:
        return next((t for t in self.targets if t.name == name), None)

    def request(self, component: str) -> ComponentRequest | None:
        return next((r for r in self.requests if r.component == component), None)

    def requested_target(self, component: str, name: str) -> ImportedTarget | None:
        """`name` as the request for `component` published it."""
        request = self.request(component)
        if request is None:
            return None
        return next((t for t in request.targets if t.name == name), None)

    def requested_variable(self, component: str, name: str) -> ResolvedVariable | None:
        request = self.request(component)
        if request is None:
            return None
        return next((v for v in request.component_variables if v.variable == name), None)

    def shipped_components(self) -> tuple[str, ...]:
        return tuple(c for lib in self.shipped for c in lib.components)


@dataclass(frozen=True)
class RouteView:
    route: str
    cmake_version: str
    components: tuple[str, ...]


@dataclass(frozen=True)
class AggregateAcrossRoutes:
    """One aggregate of one evaluated config, as each CMake route published it."""

    mode: Mode
    label: str
    platform: Platform
    variable: str
    config: Location
    views: tuple[RouteView, ...]
    # The manifest's CMake package this is about; None: its main one (cmake.package).
    cmake_package: str | None = None

    @property
    def artifact(self) -> str | None:
        return self.label if self.mode is Mode.ARTIFACT else None


@dataclass(frozen=True)
class MissingConfig:
    """An artifact in which none of the manifest's installed config directories holds a config."""

    label: str
    platform: Platform
    searched: tuple[str, ...]
    # The artifact's own location.
    location: Location
    # The manifest's CMake package this is about; None: its main one (cmake.package).
    cmake_package: str | None = None


@dataclass(frozen=True)
class RouteCoverage:
    """Which of the manifest's CMake routes one evaluated config was evaluated on."""

    mode: Mode
    label: str
    platform: Platform
    config: Location
    # (route, CMake version) of each evaluation that ran to the end.
    evaluated: tuple[tuple[str, str], ...]
    # Manifest routes no configured CMake falls in.
    missing: tuple[str, ...]
    # The manifest's CMake package this is about; None: its main one (cmake.package).
    cmake_package: str | None = None

    @property
    def artifact(self) -> str | None:
        return self.label if self.mode is Mode.ARTIFACT else None


# The installed config's version file, evaluated as find_package does (SL123-SL125).


@dataclass(frozen=True)
class MissingVersionFile:
    """An installed config with no version file beside it: find_package(<pkg> <version>)
    then rejects it for any version asked for."""

    label: str
    config: Location
    # The names find_package looks for, in its order.
    names: tuple[str, str]


@dataclass(frozen=True)
class VersionAnswer:
    """What the version file answered one find_package(<pkg> <requested>)."""

    requested: str
    compatible: bool
    exact: bool
    unsuitable: bool

    @property
    def accepted(self) -> bool:
        return self.compatible and not self.unsuitable


@dataclass(frozen=True)
class VersionFileEvaluation:
    """One version file evaluated by one CMake, as find_package evaluates it."""

    label: str
    platform: Platform
    version_file: Location
    cmake: str
    cmake_version: str
    route: str | None
    # The artifact's own version (a wheel's, its numeric release part); None when the
    # artifact does not say (an install tree, a plain archive).
    expected: str | None
    # The full version the artifact declares (`1.5.1+cpu`), for messages.
    declared: str | None
    # PACKAGE_VERSION as the file set it ("" when it set none); None when the run failed.
    reported: str | None
    # find_package(<pkg> <major>.<minor>) of the expected (else reported) version, and of
    # the next major, which a version file must turn away.
    same_minor: VersionAnswer | None
    next_major: VersionAnswer | None
    # Why the file could not be evaluated (a CMake error, a time-out); None when it was.
    failure: str | None = None

    @property
    def on(self) -> str:
        route = f" (route {self.route})" if self.route else ""
        return f"CMake {self.cmake_version}{route}"


# What the version-file evaluation builds: the models SL123-SL125 read.
VersionModel = MissingVersionFile | VersionFileEvaluation

# What the CMake evaluation area builds: the models the SL1xx rules read.
ConfigModel = ConfigEvaluation | AggregateAcrossRoutes | MissingConfig | RouteCoverage
