"""With --root: the repository's build declarations and each library's build target.

The targets come from the sources walk `check` runs (`sources.interpret.walk_project`):
a library's target is the one SHARED or MODULE library target whose output name (its
OUTPUT_NAME, else its name) is the library's name. Two candidates are named in a
comment, not chosen. The declarations are the files the build reads its target
list from (`setup.py`, scikit-build's `pyproject.toml`), kept when they name a
target; with none, the build is a plain build of ALL.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from shiplint.init.draft import BuildDeclaration, Draft, DraftLibrary
from shiplint.init.model import InitError
from shiplint.manifest.model import BuildDeclaration as ManifestDeclaration
from shiplint.sources.model import CMakeProject

_LINKED = ("SHARED", "MODULE")
# (kind, file) the build can read its target list from, in the order written.
_DECLARATION_FILES = (("setup-py", "setup.py"), ("scikit-build", "pyproject.toml"))


def with_build(draft: Draft, root: Path) -> Draft:
    from shiplint.sources.interpret import walk_project

    if not (root / "CMakeLists.txt").is_file():
        raise InitError(f"--root {root}: no CMakeLists.txt to read the build targets from")
    project = walk_project(root, (".",), ())
    outputs = _outputs(project)
    libraries = tuple(_with_target(library, outputs) for library in draft.libraries)
    return replace(draft, libraries=libraries, build_declarations=declarations(root))


def _outputs(project: CMakeProject) -> dict[str, set[str]]:
    """Output name -> the linkable library targets that may produce it."""
    renamed: dict[str, set[str]] = {}
    for output in project.output_names:
        renamed.setdefault(output.target, set()).add(output.value)
    out: dict[str, set[str]] = {}
    for target in project.targets:
        if target.kind != "library" or target.library_type not in _LINKED:
            continue
        for name in renamed.get(target.name, {target.name}):
            out.setdefault(name, set()).add(target.name)
    return out


def _with_target(library: DraftLibrary, outputs: dict[str, set[str]]) -> DraftLibrary:
    found = sorted(outputs.get(library.name, ()))
    if len(found) == 1:
        return replace(library, build_target=found[0])
    if found:
        note = f"Built by one of the targets {', '.join(found)}: set build.target to it."
        return replace(library, notes=(*library.notes, note))
    return library


def declarations(root: Path) -> tuple[BuildDeclaration, ...]:
    from shiplint.sources.declarations import read_build_plan

    out = []
    for kind, file_name in _DECLARATION_FILES:
        if not (root / file_name).is_file():
            continue
        plan = read_build_plan(root, (ManifestDeclaration(kind, file_name),))
        if plan.requests:
            out.append(BuildDeclaration(kind, file_name))
    if out:
        return tuple(out)
    note = (
        "No setup.py or scikit-build target list names a target: the build is taken to build ALL."
    )
    if (root / "CMakePresets.json").is_file():
        note += (
            " CMakePresets.json is not read as the wheel's build unless you say so "
            "(kind: cmake-presets)."
        )
    return (BuildDeclaration("all", None, (note,)),)
