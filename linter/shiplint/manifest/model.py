"""The manifest as frozen dataclasses: the one list every check reads.

Built once by `shiplint.manifest.load` from a schema-valid document; nothing here
reads files or validates. Every entry keeps the `Location` of its YAML node so a
finding about it can point at the manifest line.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import field, replace
from fnmatch import fnmatchcase

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform, PlatformSelector

# Where an entry is written in the manifest (file, 1-based line and column): its `mark`.
NO_MARK = Location("<manifest>", 1, 1)


class LibraryKind(enum.Enum):
    RUNTIME = "runtime"
    COMPONENT = "component"
    PLUGIN = "plugin"
    PYTHON_EXTENSION = "python-extension"
    # A third-party library shipped for the others (a vendored TBB): linkable, but not
    # the package's own, so it need not depend on the runtime.
    BUNDLED = "bundled"

    @property
    def linkable(self) -> bool:
        """A library consumers link (through a target or a variable)."""
        return self in (LibraryKind.RUNTIME, LibraryKind.COMPONENT, LibraryKind.BUNDLED)


class LibraryType(enum.Enum):
    """What the library's file is: what the linker does with it."""

    SHARED = "shared"
    # A static archive linked into the consumer: no SONAME, nothing to load at run time.
    STATIC = "static"


@dataclass(frozen=True)
class Placement:
    """Where a library lands on the platforms a selector matches."""

    selector: PlatformSelector
    directory: str
    # A glob for the file name when it is not the platform's default
    # (lib<name>.so, lib<name>.dylib, <name>.dll).
    file: str | None
    required: bool


@dataclass(frozen=True)
class Ownership:
    components: tuple[str, ...] = ()
    # Sentinel symbols: demangled names without their argument list, or mangled names.
    symbols: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    operator_namespaces: tuple[str, ...] = ()
    operator_count: int | None = None


@dataclass(frozen=True)
class Library:
    name: str
    kind: LibraryKind
    build_target: str | None
    output_name: str
    placements: tuple[Placement, ...]
    registers_statically: bool
    owns: Ownership
    depends_on: tuple[str, ...]
    must_not_depend_on: tuple[str, ...]
    mark: Location = NO_MARK
    type: LibraryType = LibraryType.SHARED

    @property
    def static(self) -> bool:
        return self.type is LibraryType.STATIC

    def placement_for(self, platform: Platform) -> Placement | None:
        """The most specific placement whose selector matches `platform`."""
        matching = [p for p in self.placements if p.selector.matches(platform)]
        if not matching:
            return None
        return max(matching, key=lambda p: p.selector.specificity)

    def file_pattern(self, platform: Platform) -> str | None:
        """The file-name glob this library has on `platform`, or None if it is not placed there."""
        placement = self.placement_for(platform)
        if placement is None:
            return None
        if placement.file:
            return placement.file
        if self.static:
            return static_file_name(self.output_name, platform)
        return default_file_name(self.output_name, platform)

    def matches_file(self, platform: Platform, file_name: str) -> bool:
        pattern = self.file_pattern(platform)
        return pattern is not None and fnmatchcase(file_name, pattern)

    def members(self, platform: Platform, names: Iterable[str]) -> tuple[str, ...]:
        """The artifact members (posix paths) that are this library on `platform`: files
        directly in its placement directory whose name matches its pattern."""
        placement = self.placement_for(platform)
        pattern = self.file_pattern(platform)
        if placement is None or pattern is None:
            return ()
        directory = placement.directory.strip("/")
        prefix = f"{directory}/" if directory not in ("", ".") else ""
        return tuple(
            name
            for name in names
            if name.startswith(prefix)
            and "/" not in name[len(prefix) :]
            and fnmatchcase(name[len(prefix) :], pattern)
        )


def static_file_name(base: str, platform: Platform) -> str:
    return f"{base}.lib" if platform.os == "windows" else f"lib{base}.a"


def default_file_name(base: str, platform: Platform) -> str:
    if platform.os == "macos":
        return f"lib{base}.dylib"
    if platform.os == "windows":
        return f"{base}.dll"
    return f"lib{base}.so"


@dataclass(frozen=True)
class Component:
    name: str
    opt_in: bool
    description: str | None
    mark: Location = NO_MARK
    # The imported target when it is not <namespace><name> (any depth, or no namespace).
    target: str | None = None
    # The find_package COMPONENTS spelling when it is not the name (OpenVINO's ONNX).
    request: str | None = None
    # The config publishes its target and variables only when it is requested.
    only_on_request: bool = False
    # An INTERFACE target with no library of its own (headers, usage requirements).
    header_only: bool = False
    # False: a target of the plain find_package, never named after COMPONENTS.
    requestable: bool = True
    # The CMake package publishing it when not the manifest's main one (cmake.package).
    package: str | None = None

    @property
    def request_name(self) -> str:
        return self.request or self.name


@dataclass(frozen=True)
class Carries:
    """Which components an aggregate carries: all but `excluded`, or exactly `only`."""

    only: tuple[str, ...] | None = None
    excluded: tuple[str, ...] = ()

    def expected(self, components: tuple[Component, ...]) -> tuple[str, ...]:
        if self.only is not None:
            return self.only
        return tuple(c.name for c in components if c.name not in self.excluded)


@dataclass(frozen=True)
class Aggregate:
    variable: str
    carries: Carries
    # Route names this aggregate is checked on; empty means every route.
    routes: tuple[str, ...]
    mark: Location = NO_MARK
    # The CMake package whose config sets it when not the main one.
    package: str | None = None


@dataclass(frozen=True)
class ComponentVariable:
    """A variable that must name exactly one component (e.g. the opt-in's own variable)."""

    variable: str
    component: str
    routes: tuple[str, ...]
    mark: Location = NO_MARK
    # The CMake package whose config sets it when not the main one.
    package: str | None = None


@dataclass(frozen=True)
class CMakeRoute:
    """A range of CMake versions the config treats alike: [since, below)."""

    name: str
    since: tuple[int, ...] | None
    below: tuple[int, ...] | None
    description: str | None
    # False: the config defines no imported targets on this route by design.
    imported_targets: bool = True

    def contains(self, version: tuple[int, ...]) -> bool:
        if self.since is not None and version < self.since:
            return False
        return not (self.below is not None and version >= self.below)


@dataclass(frozen=True)
class OtherPackage:
    """Another CMake package the artifact installs, evaluated on its own."""

    package: str
    namespace: str
    installed_config_dirs: tuple[str, ...]


@dataclass(frozen=True)
class RequestSet:
    """A COMPONENTS spelling that stands for several components (`ALL`)."""

    request: str
    # The components it publishes when they ship, as an aggregate's `carries`.
    brings: Carries
    mark: Location = NO_MARK


@dataclass(frozen=True)
class CMakePackage:
    package: str
    # The imported targets' prefix (`acme::`); empty when targets have no namespace.
    namespace: str
    # Directories inside an artifact that hold the installed config (several allowed).
    installed_config_dirs: tuple[str, ...]
    # The config's source in the repository (a .cmake or .cmake.in file), if any.
    config_source: str | None
    # Other files of the config's source (version file, helper modules), repo-relative.
    config_source_extras: tuple[str, ...]
    routes: tuple[CMakeRoute, ...]
    # The package root inside an artifact, relative to which the layout is given.
    package_root: str
    # Directories the config requires to exist under the package root.
    required_dirs: tuple[str, ...]
    # Where the manifest names config_source, then each of config_source_extras.
    config_source_marks: tuple[Location, ...] = ()
    request_sets: tuple[RequestSet, ...] = ()
    other_packages: tuple[OtherPackage, ...] = ()

    def route_for(self, version: tuple[int, ...]) -> CMakeRoute | None:
        return next((r for r in self.routes if r.contains(version)), None)


@dataclass(frozen=True)
class ProvidedLibraries:
    """Libraries another wheel (or the system) provides, as file-name globs."""

    provider: str
    patterns: tuple[str, ...]
    # The Python distribution shipping them, which a wheel loading them must require.
    distribution: str | None = None
    # Where that distribution installs them, relative to site-packages (`torch/lib`): a
    # binary of the wheel finds them through a RUNPATH / LC_RPATH entry naming it.
    directory: str | None = None
    # The Python import that loads them before any binary of the wheel NEEDing them is
    # loaded (`torch`): the loader then reuses the loaded library, whatever the RUNPATH.
    loaded_by: str | None = None


@dataclass(frozen=True)
class AcceleratorBuild:
    """A kind of accelerator build, named by the local version label (`+cu130`), and the
    distributions a wheel of that kind must require."""

    # An fnmatch pattern on the local label (`cu13*`), compared case-insensitively.
    label: str
    requires: tuple[str, ...]


@dataclass(frozen=True)
class Externals:
    system: tuple[str, ...] = ()
    provided: tuple[ProvidedLibraries, ...] = ()
    # System-library policies named under `system` (`platform-tag`, `manylinux_2_28`):
    # which libraries they allow depends on the artifact (`artifacts.system_policy`).
    policies: tuple[str, ...] = ()
    accelerator_builds: tuple[AcceleratorBuild, ...] = ()


@dataclass(frozen=True)
class Conflict:
    libraries: tuple[str, ...]
    reason: str
    mark: Location = NO_MARK


@dataclass(frozen=True)
class RegistryListing:
    """How a program lists what a registry holds: code the link probe's consumers run."""

    # The component whose imported target carries the registry's headers and library.
    component: str
    # Headers to include, spelled as a consumer writes them (`#include <...>`).
    includes: tuple[str, ...]
    # C++ statements printing each registered name on its own line on stdout.
    statement: str


@dataclass(frozen=True)
class Registry:
    """An operator registry, named by the symbols whose strong definition owns it."""

    name: str
    symbols: tuple[str, ...]
    mark: Location = NO_MARK
    listing: RegistryListing | None = None


@dataclass(frozen=True)
class Waiver:
    # A rule code (SL305) or a code prefix (SL3).
    rule: str
    # Subject fields (glob patterns) a diagnostic must match; empty matches any.
    subject: tuple[tuple[str, str], ...]
    reason: str
    mark: Location = NO_MARK

    def subject_pattern(self) -> dict[str, str]:
        return dict(self.subject)


@dataclass(frozen=True)
class PackagingCall:
    """Calls in a build script that copy one build output into the wheel (`BuiltFile(...)`)."""

    calls: tuple[str, ...]
    name_keyword: str
    name_position: int | None = None
    # Keyword of the entry's directory: a file that exists there in the checkout is not built.
    dir_keyword: str | None = None
    # Calls that only decorate a name with the platform's prefix/suffix (get_dynamic_lib_name).
    name_functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class BuildDeclaration:
    """Where the build says which CMake targets it builds."""

    kind: str  # setup-py | cmake-presets | scikit-build | all
    path: str | None
    mark: Location = NO_MARK
    # setup-py only: how the script lists what it copies from the build tree into the wheel.
    packaging: tuple[PackagingCall, ...] = ()


@dataclass(frozen=True)
class Sources:
    # Directories (repo-relative) whose CMakeLists.txt start the walk.
    cmake_roots: tuple[str, ...] = (".",)
    # Globs of repo-relative paths never read (vendored trees).
    exclude: tuple[str, ...] = ()
    build_declarations: tuple[BuildDeclaration, ...] = ()


@dataclass(frozen=True)
class HeaderOwner:
    """Headers whose inline code must resolve against one component's library."""

    # Globs over a header's path below its include directory, as for `exclude`.
    headers: tuple[str, ...]
    component: str


@dataclass(frozen=True)
class Headers:
    """What the header probe compiles: every header under the config's include dirs but these."""

    # Globs over a header's path below its include directory (as `#include <...>` spells
    # it): headers that forbid direct inclusion.
    exclude: tuple[str, ...] = ()
    # The first entry whose globs match a header names the component it is linked against.
    owners: tuple[HeaderOwner, ...] = ()
    # Globs over a header's path below its include directory: each must match a shipped
    # public header (a release that drops a core header is a defect).
    required: tuple[str, ...] = ()
    # Globs over `#include` spellings another package provides (`torch/*`, `c10/**`):
    # includes of them are the consumer's to resolve, not the package's.
    external: tuple[str, ...] = ()


@dataclass(frozen=True)
class Manifest:
    path: str
    name: str
    cmake: CMakePackage
    libraries: tuple[Library, ...]
    components: tuple[Component, ...]
    aggregates: tuple[Aggregate, ...]
    component_variables: tuple[ComponentVariable, ...]
    externals: Externals
    conflicts: tuple[Conflict, ...]
    registries: tuple[Registry, ...]
    waivers: tuple[Waiver, ...]
    sources: Sources
    platforms: tuple[Platform, ...] = field(default=())
    headers: Headers = Headers()
    # Distributions whose wheels install into the same prefix (package.companions).
    companions: tuple[str, ...] = ()

    def library(self, name: str) -> Library | None:
        return next((lib for lib in self.libraries if lib.name == name), None)

    def component(self, name: str) -> Component | None:
        return next((c for c in self.components if c.name == name), None)

    def owner_of(self, component: str) -> Library | None:
        return next((lib for lib in self.libraries if component in lib.owns.components), None)

    def target_name(self, component: str) -> str:
        known = self.component(component)
        if known is not None and known.target is not None:
            return known.target
        return f"{self.cmake.namespace}{component}"

    def component_of_target(self, target: str) -> str | None:
        """The component whose imported target is `target`, by name (no location lookup)."""
        return next((c.name for c in self.components if self.target_name(c.name) == target), None)

    @property
    def cmake_packages(self) -> tuple[str, ...]:
        """Every CMake package the manifest describes, the main one first."""
        return (self.cmake.package, *(o.package for o in self.cmake.other_packages))

    def for_package(self, package: str) -> Manifest:
        """The manifest as one of its CMake packages sees it: that package's find_package
        name, namespace and config directories, and only the components, aggregates and
        component variables it publishes (each library owning only those). Everything
        else (libraries, placements, routes, externals) is shared."""
        main = self.cmake.package
        if package == main:
            cmake = self.cmake
        else:
            other = next(o for o in self.cmake.other_packages if o.package == package)
            cmake = replace(
                self.cmake,
                package=other.package,
                namespace=other.namespace,
                installed_config_dirs=other.installed_config_dirs,
                config_source=None,
                config_source_extras=(),
                config_source_marks=(),
                request_sets=(),
            )

        def ours(owner: str | None) -> bool:
            return (owner or main) == package

        components = tuple(c for c in self.components if ours(c.package))
        names = {c.name for c in components}
        libraries = tuple(
            replace(
                lib,
                owns=replace(
                    lib.owns, components=tuple(c for c in lib.owns.components if c in names)
                ),
            )
            for lib in self.libraries
        )
        return replace(
            self,
            cmake=replace(cmake, other_packages=()),
            libraries=libraries,
            components=components,
            aggregates=tuple(a for a in self.aggregates if ours(a.package)),
            component_variables=tuple(v for v in self.component_variables if ours(v.package)),
        )

    def request_name(self, component: str) -> str:
        known = self.component(component)
        return known.request_name if known is not None else component


def bare_manifest(name: str = "") -> Manifest:
    """A manifest that declares nothing: what a diff without --manifest, or init before it
    knows the package, reads artifacts with (no library placed, no config looked for
    unless `name` is the CMake package's)."""
    return Manifest(
        path="",
        name=name,
        cmake=CMakePackage("", "", (), None, (), (), "", ()),
        libraries=(),
        components=(),
        aggregates=(),
        component_variables=(),
        externals=Externals(),
        conflicts=(),
        registries=(),
        waivers=(),
        sources=Sources(),
    )
