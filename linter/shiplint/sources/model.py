"""What the repository's CMake sources and build declarations say, as frozen facts.

Produced by `shiplint.sources.collect.read_sources`; read by the SL2xx rules.
Every fact carries its `Location` (repo-relative path, 1-based line and column)
and the chain of conditions it sits under, so a finding can say "only when ...".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from fnmatch import translate
from functools import lru_cache

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass

# The if() conditions enclosing a fact, outermost first, as written (`EXECUTORCH_BUILD_SHARED`,
# `TARGET portable_lib`, `NOT (APPLE)` for an else branch). Empty: unconditional.
Conditions = tuple[str, ...]

LIBRARY_TYPES = ("SHARED", "MODULE", "STATIC", "OBJECT", "INTERFACE")


@dataclass(frozen=True)
class TargetDef:
    """One place a target is created (a target defined in two exclusive branches has two)."""

    name: str
    # library | executable | custom | external | imported | alias
    kind: str
    # For libraries: SHARED, MODULE, STATIC, OBJECT or INTERFACE as CMake would pick it.
    library_type: str | None
    # How the type was decided: "explicit", "BUILD_SHARED_LIBS=ON (at file:line)", or the default.
    type_reason: str
    location: Location
    conditions: Conditions
    # Wrapper calls that produced this definition, outermost first ("my_add_shared_library at
    # CMakeLists.txt:12:1"); empty when add_library() is written directly.
    via: tuple[str, ...]
    in_all: bool
    # For ALIAS targets: the aliased target.
    aliased: str | None = None
    # Conditions that chose this definition's type or wrapper arguments: `SHARED` set in
    # `if(X)`, `STATIC` in its else(). Separate from `conditions` (where it is written).
    choice: Conditions = ()


@dataclass(frozen=True)
class OutputName:
    """An OUTPUT_NAME (or LIBRARY_OUTPUT_NAME) set on a target."""

    target: str
    value: str
    location: Location
    conditions: Conditions


@dataclass(frozen=True)
class Install:
    """install(TARGETS ...) of one target."""

    target: str
    export: str | None
    location: Location
    conditions: Conditions
    # (artifact kind, DESTINATION) as written: kind is LIBRARY, ARCHIVE, RUNTIME, ... or ""
    # for a DESTINATION that applies to every kind.
    destinations: tuple[tuple[str, str], ...] = ()

    def destination(self, kind: str) -> str | None:
        """Where an artifact of `kind` goes: its own DESTINATION, else the shared one."""
        own = next((d for k, d in self.destinations if k == kind), None)
        return own if own is not None else next((d for k, d in self.destinations if k == ""), None)


@dataclass(frozen=True)
class ExportInstall:
    """install(EXPORT <name> ...): the file an install writes for an export set."""

    name: str
    # The file name (FILE, default `<name>.cmake`), the DESTINATION and NAMESPACE as written.
    file: str
    destination: str | None
    namespace: str
    location: Location
    conditions: Conditions


@dataclass(frozen=True)
class InstalledFile:
    """install(FILES ...) of one file: repo-relative (or as written when outside the
    checkout or built), with its DESTINATION."""

    path: str
    destination: str | None
    location: Location


@dataclass(frozen=True)
class Edge:
    """`source` needs `dest` built: target_link_libraries or add_dependencies."""

    source: str
    dest: str
    kind: str  # link | dependency | alias
    location: Location
    conditions: Conditions


@dataclass(frozen=True)
class Unreadable:
    """Input that could not be read or followed; a rule reports it."""

    location: Location
    reason: str
    # What a waiver can name: the variable only CMake knows, or the target asked for.
    variable: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class CMakeProject:
    files: tuple[str, ...]
    targets: tuple[TargetDef, ...]
    output_names: tuple[OutputName, ...]
    installs: tuple[Install, ...]
    # Export sets installed with install(EXPORT ...).
    exported_sets: tuple[ExportInstall, ...]
    edges: tuple[Edge, ...]
    unreadable: tuple[Unreadable, ...]
    # Files an ExternalProject says it makes (BUILD_BYPRODUCTS), by file name: the
    # outputs of a target whose name says nothing about them (flatbuffers_ep -> flatc).
    byproducts: tuple[OutputName, ...] = ()
    installed_files: tuple[InstalledFile, ...] = ()
    # EXPORT_NAME set on a target: the name install(EXPORT) gives its imported target.
    export_names: tuple[OutputName, ...] = ()

    def definitions(self, name: str) -> tuple[TargetDef, ...]:
        return tuple(t for t in self.targets if t.name == name)


@dataclass(frozen=True)
class TargetRequest:
    """A build declaration asks for `name` (`--target name`, `build.targets`, a preset)."""

    name: str
    declaration: str  # setup-py | scikit-build | cmake-presets | all
    location: Location
    conditions: Conditions


@dataclass(frozen=True)
class PackagingEntry:
    """One call in a build script that copies a file from the build tree into the wheel."""

    # fnmatch globs on the file's name, as the script writes it once the configured
    # name functions are applied (`get_dynamic_lib_name("x")` -> `x`); two or more for
    # `a if cond else b`, which names a different file per platform.
    names: tuple[str, ...]
    call: str  # BuiltFile
    declaration: str  # the declaration that reads it: "setup-py (setup.py)"
    location: Location
    conditions: Conditions
    # The file exists at the entry's own directory in the checkout: copied, not built.
    checked_in: bool = False


@dataclass(frozen=True)
class BuildPlan:
    requests: tuple[TargetRequest, ...]
    # Declarations that build the default target (ALL), with where they say so.
    builds_all: tuple[Location, ...]
    unreadable: tuple[Unreadable, ...]
    packaging: tuple[PackagingEntry, ...] = ()
    # Declarations whose packaging list was read ("setup-py (setup.py)"); empty: none is
    # configured, and nothing is known about what the wheel copies.
    packaging_read: tuple[str, ...] = ()
    # Packaging entries whose file name could not be read (an f-string, a variable).
    packaging_unreadable: tuple[Unreadable, ...] = ()


@dataclass(frozen=True)
class SourceModel:
    """The sources half of a run: the CMake project and what the build asks of it."""

    root: str
    project: CMakeProject
    plan: BuildPlan
    # Target name -> the chain that makes it built (request first, then edges).
    built: tuple[tuple[str, tuple[str, ...]], ...]

    def built_by(self, name: str) -> tuple[str, ...] | None:
        return next((why for target, why in self.built if target == name), None)


# The decorations a platform gives a library, module or executable's file name. The
# Python extension tags are samples: a glob such as `_C.cp*` or `_C.*` matches them.
_PREFIXES = ("", "lib")
_SUFFIXES = (
    "",
    ".so",
    ".so.1",
    ".dylib",
    ".dll",
    ".lib",
    ".a",
    ".exe",
    ".pyd",
    ".abi3.so",
    ".cpython-311-x86_64-linux-gnu.so",
    ".cpython-311-darwin.so",
    ".cp311-win_amd64.pyd",
)
_GLOB = re.compile(r"[*?\[]")


# -- matching ---------------------------------------------------------------------------


class PackagingIndex:
    """Which producers (targets, manifest libraries) a packaging name can copy the output of."""

    def __init__(self, outputs: Iterable[tuple[str, str]]) -> None:
        # candidate file name -> the producers whose output it can be
        self.files: dict[str, list[str]] = {}
        for output, producer in outputs:
            if "${" in output:
                continue  # a name only CMake knows; SL203's business
            for candidate in _candidates(output):
                owners = self.files.setdefault(candidate, [])
                if producer not in owners:
                    owners.append(producer)

    def producers(self, pattern: str) -> list[str]:
        base = pattern.rsplit("/", 1)[-1]
        if not _GLOB.search(base):
            return list(self.files.get(base, ()))
        regex, literal = _compiled(base)
        found: list[str] = []
        for candidate, owners in self.files.items():
            if literal in candidate and regex.match(candidate):
                found.extend(o for o in owners if o not in found)
        return found


def name_matches(pattern: str, output: str) -> bool:
    """A packaging name copies the file a target with this output name leaves in the tree."""
    regex, _ = _compiled(pattern.rsplit("/", 1)[-1])
    return any(regex.match(c) for c in _candidates(output))


def _candidates(output: str) -> Iterator[str]:
    for prefix in _PREFIXES:
        for suffix in _SUFFIXES:
            yield prefix + output + suffix


@lru_cache(maxsize=512)
def _compiled(glob: str) -> tuple[re.Pattern[str], str]:
    """The glob as a regex, and its longest run without wildcards (a cheap pre-filter)."""
    runs = [r for r in re.split(r"[*?]|\[[^\]]*\]", glob) if r]
    return re.compile(translate(glob)), max(runs, key=len, default="")
