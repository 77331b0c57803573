"""The export files an install would put beside a config, for evaluating its source.

A hand-written config commonly includes `include(${CMAKE_CURRENT_LIST_DIR}/<Set>.cmake)`:
the file `install(EXPORT <Set>)` writes, defining an imported target for every
`install(TARGETS ... EXPORT <Set>)`. The repository has no such file; only an install
makes it. Source mode lays out what an install would give the config, so it writes
one per install(EXPORT) the sources walk found: the `FILE` name, placed where the
install puts it relative to the config, each target with its `NAMESPACE` and its
EXPORT_NAME (the target name unless set), its type from the walk, and
`IMPORTED_LOCATION` at a placeholder of the file it would be on the platform.

A target that is a manifest library's `build.target` is defined only where the manifest
places the library, at that library's placeholder: the manifest says what ships.
Any other exported target gets a placeholder named as CMake would name its file
(OUTPUT_NAME, or the target name; the platform's prefix and suffix) under its
install(TARGETS) DESTINATION. What the walk cannot know is not invented: link
interfaces (the walk does not tell PUBLIC from PRIVATE) are left out, and a target the
walk never saw defined (fetched at configure time) is an UNKNOWN library with no file.
A target whose name only a configure run knows (`${name}`) cannot be defined at all.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING

from shiplint.cmake_eval.layout import placed_member
from shiplint.cmake_eval.probe import bracket
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Library, LibraryKind, Manifest
from shiplint.platforms import Platform

# The sources model types only annotate here: an artifact run, which imports the evaluator
# and never lays out exports, does not pay for creating them.
if TYPE_CHECKING:
    from shiplint.sources.model import CMakeProject, ExportInstall, Install, OutputName, TargetDef

# GNUInstallDirs' defaults: what `${CMAKE_INSTALL_LIBDIR}` and its kin mean in a
# DESTINATION when the project does not override them.
_INSTALL_DIRS = {
    "CMAKE_INSTALL_BINDIR": "bin",
    "CMAKE_INSTALL_SBINDIR": "sbin",
    "CMAKE_INSTALL_LIBDIR": "lib",
    "CMAKE_INSTALL_LIBEXECDIR": "libexec",
    "CMAKE_INSTALL_INCLUDEDIR": "include",
    "CMAKE_INSTALL_DATAROOTDIR": "share",
    "CMAKE_INSTALL_DATADIR": "share",
}
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
# What install(EXPORT ... FILE) accepts: a file name ending in .cmake, no directory.
_EXPORT_FILE = re.compile(r"^[^/\\]+\.cmake$")
# A name CMake accepts for an imported target; `${name}` left by the walk is not one.
_TARGET_NAME = re.compile(r"^[A-Za-z0-9_.+\-:]+$")
# Manifest library kinds that are loaded, never linked: CMake builds them as MODULE.
_MODULE_KINDS = {LibraryKind.PLUGIN, LibraryKind.PYTHON_EXTENSION}
# Among a target's definitions (one per if() branch), the type a shipped shared library has.
_SHIPPED_TYPES = ("SHARED", "MODULE")


@dataclass(frozen=True)
class ExportedTarget:
    """One imported target of an export file."""

    name: str  # with the namespace
    # SHARED, MODULE, STATIC, OBJECT, INTERFACE, UNKNOWN (libraries) or EXECUTABLE.
    type: str
    # The placeholder file IMPORTED_LOCATION names, as a member path of the tree.
    member: str | None
    # The placeholder exists already (a manifest library the layout placed).
    placed: bool


@dataclass(frozen=True)
class ExportFile:
    """The file one install(EXPORT) writes, as a member path of the tree."""

    member: str
    export: ExportInstall
    targets: tuple[ExportedTarget, ...]


def install_dir(destination: str | None) -> str | None:
    """A DESTINATION relative to the install prefix, or None when it cannot be known."""
    if destination is None:
        return None

    def default(match: re.Match[str]) -> str:
        return _INSTALL_DIRS.get(match.group(1), match.group(0))

    text = _VARIABLE.sub(default, destination).replace("\\", "/")
    if text.startswith("/"):
        return None  # an absolute directory is outside the install prefix, so the package
    text = text.removeprefix("${CMAKE_INSTALL_PREFIX}").lstrip("/") or "."
    if "${" in text or "$<" in text or text.startswith("<build>"):
        return None
    normal = posixpath.normpath(text)
    return None if normal.startswith("..") else normal


def _config_destination(project: CMakeProject, config_source: str) -> str | None:
    """Where the sources install the config: install(FILES) of it (or of what its
    `.in` template is configured into, by file name)."""
    installed_name = posixpath.basename(config_source).removesuffix(".in")
    for item in project.installed_files:
        if item.path == config_source or posixpath.basename(item.path) == installed_name:
            return install_dir(item.destination)
    return None


def _inside(member: str) -> str | None:
    """`member` normalised, or None when it would leave the tree (the sources are input)."""
    normal = posixpath.normpath(member)
    if normal.startswith(("/", "..")) or "\x00" in normal:
        return None
    return normal


def export_member(
    export: ExportInstall, config_dir: str, config_destination: str | None
) -> str | None:
    """Where the export file lands in the tree: relative to the config as the install
    puts them; beside the config when either place is unknown (the usual layout). None
    for a FILE that is no plain `<name>.cmake`, which CMake itself refuses."""
    if not _EXPORT_FILE.match(export.file):
        return None
    beside = posixpath.join(config_dir, export.file)
    destination = install_dir(export.destination)
    if destination is None or config_destination is None:
        return _inside(beside)
    relative = posixpath.relpath(destination, config_destination)
    return _inside(posixpath.join(config_dir, relative, export.file)) or _inside(beside)


def plan_exports(
    project: CMakeProject, manifest: Manifest, platform: Platform, config_dir: str
) -> tuple[ExportFile, ...]:
    """Every install(EXPORT) of the walk, as the file an install for `platform` would hold."""
    config_source = manifest.cmake.config_source or ""
    config_destination = _config_destination(project, config_source)
    by_target = {lib.build_target: lib for lib in manifest.libraries if lib.build_target}
    files: dict[str, ExportFile] = {}
    for export in project.exported_sets:
        member = export_member(export, config_dir, config_destination)
        if member is None or member in files:
            # A FILE CMake refuses, or the same install(EXPORT) reached twice.
            continue
        targets: list[ExportedTarget] = []
        seen: set[str] = set()
        for install in project.installs:
            if install.export != export.name or install.target in seen:
                continue
            seen.add(install.target)
            target = _exported(
                install, project, by_target.get(install.target), manifest, platform, export
            )
            if target is not None:
                targets.append(target)
        files[member] = ExportFile(member, export, tuple(targets))
    return tuple(files.values())


def _exported(
    install: Install,
    project: CMakeProject,
    library: Library | None,
    manifest: Manifest,
    platform: Platform,
    export: ExportInstall,
) -> ExportedTarget | None:
    name = export.namespace + _chosen_name(project.export_names, install.target)
    if not _TARGET_NAME.match(name):
        return None  # named by a variable only a configure run knows: nothing to define
    definitions = tuple(
        d for d in project.definitions(install.target) if d.kind in ("library", "executable")
    )
    if library is not None:
        member = placed_member(library, platform)
        if member is None:
            return None  # not shipped on this platform: an install for it has no such target
        return ExportedTarget(name, _shipped_type(library, definitions), member, placed=True)
    if not definitions:
        if any(d.kind in ("alias", "imported") for d in project.definitions(install.target)):
            return None  # CMake refuses to install these; nothing to export
        return ExportedTarget(name, "UNKNOWN", None, placed=False)
    chosen = next((d for d in definitions if not d.conditions), definitions[0])
    kind = "EXECUTABLE" if chosen.kind == "executable" else chosen.library_type or "STATIC"
    file_name = _file_name(_chosen_name(project.output_names, install.target), kind, platform)
    if file_name is None:
        return ExportedTarget(name, kind, None, placed=False)
    artifact, default = _artifact_kind(kind, platform)
    directory = install_dir(install.destination(artifact)) or default
    member = _inside(posixpath.join(manifest.cmake.package_root, directory, file_name))
    return ExportedTarget(name, kind, member, placed=False)


def _shipped_type(library: Library, definitions: tuple[TargetDef, ...]) -> str:
    types = [d.library_type for d in definitions if d.library_type]
    for wanted in _SHIPPED_TYPES:
        if wanted in types:
            return wanted
    return "MODULE" if library.kind in _MODULE_KINDS else "SHARED"


def _chosen_name(settings: tuple[OutputName, ...], target: str) -> str:
    """The name a property (OUTPUT_NAME, EXPORT_NAME) gives `target`: the one set
    unconditionally, else the first, else the target's own name."""
    names = [o for o in settings if o.target == target and "${" not in o.value]
    chosen = next((o for o in names if not o.conditions), names[0] if names else None)
    return chosen.value if chosen is not None else target


def _file_name(base: str, kind: str, platform: Platform) -> str | None:
    """The file CMake makes for a target of `kind` on `platform` (default prefix and suffix)."""
    windows, macos = platform.os == "windows", platform.os == "macos"
    if kind == "EXECUTABLE":
        return f"{base}.exe" if windows else base
    if kind == "STATIC":
        return f"{base}.lib" if windows else f"lib{base}.a"
    if kind == "SHARED":
        return f"{base}.dll" if windows else f"lib{base}.dylib" if macos else f"lib{base}.so"
    if kind == "MODULE":
        return f"{base}.dll" if windows else f"lib{base}.so"
    return None  # INTERFACE and OBJECT libraries have no file of their own


def _artifact_kind(kind: str, platform: Platform) -> tuple[str, str]:
    """The install(TARGETS) artifact kind a file of `kind` is, and CMake's default directory."""
    if kind == "EXECUTABLE" or (kind in _SHIPPED_TYPES and platform.os == "windows"):
        return "RUNTIME", "bin"
    if kind == "STATIC":
        return "ARCHIVE", "lib"
    return "LIBRARY", "lib"


def render(export: ExportFile, root: str) -> str:
    """The export file's text: what CMake's install(EXPORT) writes, reduced to what a
    config can observe (the targets, their types and locations) and the guard against
    being included into a directory that already has some of its targets."""
    names = " ".join(bracket(t.name) for t in export.targets)
    lines = [
        f"# Written by shiplint for install(EXPORT {export.export.name}) at "
        f"{export.export.location.render()}: the file an install would put here.\n",
        "set(_shiplint_defined)\nset(_shiplint_missing)\n",
        f"foreach(_shiplint_target IN ITEMS {names})\n",
        '  if(TARGET "${_shiplint_target}")\n',
        '    list(APPEND _shiplint_defined "${_shiplint_target}")\n',
        "  else()\n",
        '    list(APPEND _shiplint_missing "${_shiplint_target}")\n',
        "  endif()\nendforeach()\n",
        "unset(_shiplint_target)\n",
        "if(NOT _shiplint_missing)\n  unset(_shiplint_defined)\n  return()\nendif()\n",
        "if(_shiplint_defined)\n",
        '  message(FATAL_ERROR "Some (but not all) targets in this export set were already '
        "defined.\\nTargets Defined: ${_shiplint_defined}\\n"
        'Targets not yet defined: ${_shiplint_missing}\\n")\n',
        "endif()\n",
        "unset(_shiplint_defined)\nunset(_shiplint_missing)\n",
    ]
    for target in export.targets:
        quoted = bracket(target.name)
        if target.type == "EXECUTABLE":
            lines.append(f"add_executable({quoted} IMPORTED)\n")
        else:
            lines.append(f"add_library({quoted} {target.type} IMPORTED)\n")
        if target.member is not None:
            location = bracket(posixpath.join(root, target.member))
            lines.append(
                f"set_target_properties({quoted} PROPERTIES IMPORTED_LOCATION {location})\n"
            )
    return "".join(lines)


def write_exports(exports: tuple[ExportFile, ...], root: Path) -> None:
    """Write each export file and the placeholders its targets name into the tree at `root`.

    A file the tree already holds is left alone: a manifest that installs its own
    stand-in (`config_source_extras`) has said what the config sees there.
    """
    for export in exports:
        for target in export.targets:
            if target.member is not None and not target.placed:
                path = root / target.member
                path.parent.mkdir(parents=True, exist_ok=True)
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
        path = root / export.member
        if path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(export, root.as_posix()), encoding="utf-8")
