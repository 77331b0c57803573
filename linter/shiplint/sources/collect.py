"""The sources half of a run: walk the CMake project, read the build declarations, join them."""

from __future__ import annotations

from pathlib import Path

from shiplint.manifest.model import Manifest
from shiplint.sources.declarations import read_build_plan
from shiplint.sources.graph import built_targets
from shiplint.sources.interpret import walk_project
from shiplint.sources.model import SourceModel


def read_sources(root: Path, manifest: Manifest) -> SourceModel:
    sources = manifest.sources
    project = walk_project(root, sources.cmake_roots, sources.exclude)
    plan = read_build_plan(root, sources.build_declarations)
    built = built_targets(project, plan)
    return SourceModel(
        root=root.as_posix(),
        project=project,
        plan=plan,
        built=tuple(sorted(built.items())),
    )
