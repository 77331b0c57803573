"""Gather what init decides from: each artifact read through the check's own pipeline.

Three readings, each `pipeline.area_models` with a manifest that states only what
is known so far:

1. the inventory of every artifact with no manifest at all: every shared object, its
   SONAME, NEEDED (resolved inside the artifact or not), exported symbols;
2. the installed config as each CMake evaluates it, with a probing manifest that
   places every shared object found in (1) under its own name and asks for every
   variable the config's text sets for the package: which imported targets a plain
   find_package defines, which library each imports, what each variable carries;
3. when some spelling must be tried (a component's request, a library no plain
   find_package imports), the same evaluation asking for those spellings.

Nothing here decides what the manifest says; `decide.py` does, from these facts.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from shiplint.areas import ARTIFACTS, CONFIG_ARTIFACT, Area
from shiplint.artifacts.kinds import ArtifactKind
from shiplint.artifacts.model import EntryKind, Inventory, Resolution, SearchEntry
from shiplint.artifacts.reading import Reader
from shiplint.artifacts.records import BinaryFormat, BinaryRecord
from shiplint.cmake_eval.cmake_binary import identify
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.init.model import ArtifactFacts, ConfigFacts, Facts, InitError, Shipped, Trial
from shiplint.init.names import config_package, install_prefix, library_name
from shiplint.init.spelling import candidate_requests
from shiplint.init.why import no_library
from shiplint.manifest.model import (
    Aggregate,
    Carries,
    CMakePackage,
    CMakeRoute,
    Component,
    Library,
    LibraryKind,
    Manifest,
    Ownership,
    Placement,
    bare_manifest,
)
from shiplint.platforms import Platform, PlatformSelector
from shiplint.request import Progress, RunRequest

# The one route of a probing manifest: every CMake falls in it; init names routes later.
_ANY_ROUTE = CMakeRoute("any", (0,), None, None)
# Directories of an installation prefix, never a Python package's name.
_PREFIX_DIRS = frozenset({"lib", "lib64", "lib32", "bin", "include", "share", "src", "libexec"})
# A config's .cmake files are small; a bigger member is not read for variable names.
_TEXT_LIMIT = 4 * 1024 * 1024


def _collect(
    artifacts: Sequence[Path],
    manifest: Manifest,
    cmakes: Sequence[str],
    areas: tuple[Area, ...],
    reader: Reader | None,
    progress: Progress,
    timeout: float | None,
) -> list[object]:
    from shiplint.pipeline import area_models

    request = RunRequest(
        root=Path("."),
        check_sources=False,
        artifacts=tuple(artifacts),
        cmake=tuple(cmakes),
        cmake_timeout=timeout,
    )
    return list(area_models(request, manifest, areas, progress, reader))


def gather(
    artifacts: Sequence[Path],
    cmakes: Sequence[str],
    reader: Reader,
    progress: Progress,
    timeout: float | None = None,
) -> Facts:
    """Every fact init decides from. Raises InitError for input it cannot start from,
    ArtifactError for an artifact that cannot be opened."""
    models = _collect(artifacts, bare_manifest(), (), (ARTIFACTS,), reader, progress, timeout)
    inventories = [m for m in models if isinstance(m, Inventory)]
    read = tuple(_artifact(inventory) for inventory in inventories)
    for given, facts in zip(artifacts, read, strict=True):
        # A config with no library beside it is a header-only package: its INTERFACE
        # targets are its components.
        if not facts.shipped and not any(config_package(m) for m in facts.inventory.members):
            raise InitError(no_library(str(given), False))
    versions = tuple((path, identify(path).version) for path in cmakes)
    config = _config(artifacts, read)
    if config is None or not cmakes:
        return Facts(read, config, versions)
    probing = probing_manifest(read, config)
    plain = _evaluations(artifacts, probing, cmakes, reader, progress, timeout)
    read = tuple(replace(a, evaluations=plain.get(a.label, ())) for a in read)
    trials = candidate_requests(read, config)
    if trials:
        asking = asking_manifest(probing, trials)
        tried = _evaluations(artifacts, asking, cmakes, reader, progress, timeout)
        read = tuple(replace(a, trials=tried.get(a.label, ())) for a in read)
    return Facts(read, config, versions, trials)


def _evaluations(
    artifacts: Sequence[Path],
    manifest: Manifest,
    cmakes: Sequence[str],
    reader: Reader,
    progress: Progress,
    timeout: float | None,
) -> dict[str, tuple[ConfigEvaluation, ...]]:
    models = _collect(artifacts, manifest, cmakes, (CONFIG_ARTIFACT,), reader, progress, timeout)
    out: dict[str, list[ConfigEvaluation]] = {}
    for model in models:
        if isinstance(model, ConfigEvaluation):
            out.setdefault(model.label, []).append(model)
    return {label: tuple(found) for label, found in out.items()}


def _artifact(inventory: Inventory) -> ArtifactFacts:
    platform = inventory.platform
    if platform is None:
        if inventory.binaries:
            raise InitError(
                f"{inventory.path}: no wheel tag and no binary header says which platform it is for"
            )
        # Nothing binary (a py3-none-any header-only wheel): evaluated as check
        # evaluates it, on Linux, the platform a config's default branches assume.
        platform = Platform("linux")
    names = _names(inventory.binaries)
    tops = {m.split("/", 1)[0] for m in inventory.members}
    shipped: dict[str, Shipped] = {}
    for record in inventory.binaries:
        links = inventory.links.of(record.name)
        shipped[names[record.name]] = Shipped(
            name=names[record.name],
            member=record.name,
            record=record,
            depends_on=tuple(
                dict.fromkeys(
                    names[r.member]
                    for r in links.resolved
                    if r.how is Resolution.PACKAGE and r.member in names
                )
            ),
            # What the loader finds outside the artifact: a Mach-O install name under the
            # OS's own directories always resolves; the rest are matched by file name.
            externals=tuple(
                posixpath.basename(r.needed) if record.format is BinaryFormat.MACHO else r.needed
                for r in links.resolved
                if r.how is Resolution.UNRESOLVED
            ),
            foreign_dirs=_foreign_dirs(links.entries, tops)
            if inventory.kind is ArtifactKind.WHEEL
            else (),
        )
    return ArtifactFacts(inventory.label, platform, inventory, shipped)


def _foreign_dirs(entries: Iterable[SearchEntry], tops: set[str]) -> tuple[str, ...]:
    """Search-path directories under a top-level directory the wheel does not ship: a
    wheel's root is site-packages, so `$ORIGIN/../../torch/lib` names torch's own
    package directory, which the loader searches for the libraries torch provides."""
    out = []
    for entry in entries:
        if entry.kind is not EntryKind.INSIDE or not entry.directory:
            continue
        parts = entry.directory.split("/")
        # A package's directory, not the environment's own `lib`/`lib64` (a build
        # machine's prefix that a RUNPATH left behind).
        if len(parts) < 2 or parts[0] in tops or parts[0] in _PREFIX_DIRS:
            continue
        if parts[0].isidentifier():
            out.append(entry.directory)
    return tuple(dict.fromkeys(out))


def _names(records: Iterable[BinaryRecord]) -> dict[str, str]:
    """Each binary's library name; two files of one artifact that would share a name
    are told apart by their directory's name."""
    by_name: dict[str, list[str]] = {}
    for record in records:
        by_name.setdefault(library_name(posixpath.basename(record.name)), []).append(record.name)
    out: dict[str, str] = {}
    for name, members in by_name.items():
        if len(members) == 1:
            out[members[0]] = name
            continue
        for member in members:
            parent = posixpath.basename(posixpath.dirname(member)) or "root"
            out[member] = library_name(f"{parent}_{name}")
    return out


def _config(artifacts: Sequence[Path], read: Sequence[ArtifactFacts]) -> ConfigFacts | None:
    """The package config the artifacts install: the one named like the distribution
    when several packages' configs ship (OpenVINO's wheel carries TBB's too)."""
    found: dict[str, set[str]] = {}
    for facts in read:
        for member in facts.inventory.members:
            package = config_package(member)
            if package is not None:
                found.setdefault(package, set()).add(posixpath.dirname(member))
    if not found:
        return None
    wanted_name = distribution(read)

    def rank(package: str) -> tuple[int, int, str]:
        plain = re.sub(r"[^a-z0-9]", "", package.lower())
        wanted = re.sub(r"[^a-z0-9]", "", wanted_name.lower())
        return (
            0 if plain == wanted else 1 if wanted.startswith(plain) or plain in wanted else 2,
            -len(found[package]),
            package,
        )

    package = min(found, key=rank)
    # A config under share/ (the architecture-independent tree, its conventional home)
    # first: the first directory is the copy checks evaluate as the one consumers find.
    directories = tuple(sorted(found[package], key=lambda d: ("share/" not in f"{d}/", d)))
    roots = sorted({install_prefix(d) for d in directories}, key=lambda r: (len(r), r))
    texts = _config_texts(artifacts, read, directories)
    return ConfigFacts(
        package=package,
        directories=directories,
        package_root=roots[0],
        variables=_variables(package, texts),
        spellings=_spellings(package, texts),
        boundaries=_boundaries(texts),
    )


def distribution(read: Sequence[ArtifactFacts]) -> str:
    """The distribution's name, as a wheel's file name spells it (`mlx_metal` is
    `mlx-metal`); an install tree's directory name otherwise."""
    label = read[0].label if read else "package"
    name = label.split("-", 1)[0].replace("_", "-") or "package"
    return library_name(name).replace("_", "-") if not re.match(r"[A-Za-z_]", name) else name


def _config_texts(
    artifacts: Sequence[Path], read: Sequence[ArtifactFacts], directories: tuple[str, ...]
) -> str:
    """The `.cmake` files of the config directories, from the first artifact holding them."""
    from shiplint.artifacts.archive import MemberError, open_artifact

    for path, facts in zip(artifacts, read, strict=True):
        members = [
            m
            for m in facts.inventory.members
            if m.endswith(".cmake") and posixpath.dirname(m) in directories
        ]
        if not members:
            continue
        parts = []
        with open_artifact(path) as tree:
            for member in sorted(members):
                try:
                    parts.append(tree.read(member, _TEXT_LIMIT).decode("utf-8", "replace"))
                except MemberError:
                    continue  # the evaluation reports an unreadable config
        return "\n".join(parts)
    return ""


def _variables(package: str, text: str) -> tuple[str, ...]:
    """Variables the config sets for its package that a consumer links with."""
    text = text.replace("${CMAKE_FIND_PACKAGE_NAME}", package)
    prefix = re.escape(package)
    pattern = re.compile(
        rf"\b(?:set|list\s*\(\s*APPEND)\s*\(?\s*({prefix}_[A-Za-z0-9_]*(?:LIBRARIES|LIBRARY|TARGETS))\b",
        re.IGNORECASE,
    )
    return tuple(sorted({m.group(1) for m in pattern.finditer(text)}))


def _spellings(package: str, text: str) -> tuple[str, ...]:
    text = text.replace("${CMAKE_FIND_PACKAGE_NAME}", package)
    pattern = re.compile(rf"\b{re.escape(package)}_([A-Za-z0-9_]+)_FOUND\b")
    return tuple(sorted({m.group(1) for m in pattern.finditer(text)}))


def _boundaries(text: str) -> tuple[tuple[int, ...], ...]:
    pattern = re.compile(
        r"CMAKE_VERSION\s+VERSION_(?:LESS|GREATER|LESS_EQUAL|GREATER_EQUAL|EQUAL)\s+\"?(\d+(?:\.\d+)+)"
    )
    return tuple(
        sorted({tuple(int(p) for p in m.group(1).split(".")) for m in pattern.finditer(text)})
    )


def _selector(platform: Platform) -> PlatformSelector:
    return PlatformSelector(platform.os, platform.arch)


def probing_manifest(read: Sequence[ArtifactFacts], config: ConfigFacts) -> Manifest:
    """Every shipped object placed by its exact file on its artifact's platform, no
    component, and every candidate variable asked for (as an aggregate of nothing)."""
    placements: dict[str, list[Placement]] = {}
    for facts in read:
        for shipped in facts.shipped.values():
            placements.setdefault(shipped.name, []).append(
                Placement(_selector(facts.platform), shipped.directory, shipped.file_name, True)
            )
    libraries = tuple(
        Library(
            name=name,
            kind=LibraryKind.COMPONENT,
            build_target=None,
            output_name=name,
            placements=tuple(found),
            registers_statically=False,
            owns=Ownership(),
            depends_on=(),
            must_not_depend_on=(),
        )
        for name, found in sorted(placements.items())
    )
    return replace(
        bare_manifest(config.package),
        cmake=CMakePackage(
            package=config.package,
            namespace="",
            installed_config_dirs=config.directories,
            config_source=None,
            config_source_extras=(),
            routes=(_ANY_ROUTE,),
            package_root=config.package_root,
            required_dirs=(),
        ),
        libraries=libraries,
        aggregates=tuple(Aggregate(v, Carries(only=()), ("any",)) for v in config.variables),
    )


def asking_manifest(probing: Manifest, trials: Sequence[Trial]) -> Manifest:
    """The probing manifest with one component per spelling to try, each owned by the
    library it is tried for (so it is asked for with the shipped ones)."""
    owned: dict[str, list[str]] = {}
    for trial in trials:
        if trial.library is not None:
            owned.setdefault(trial.library, []).append(trial.key)
    libraries = tuple(
        replace(lib, owns=Ownership(components=tuple(owned.get(lib.name, ()))))
        for lib in probing.libraries
    )
    components = tuple(
        Component(trial.key, False, None, request=trial.spelling) for trial in trials
    )
    return replace(probing, libraries=libraries, components=components)
