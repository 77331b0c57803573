"""The sources half of a run: walk the CMake project, read the build declarations, join them."""

from __future__ import annotations

from pathlib import Path

from shiplint.manifest.model import Manifest, Sources
from shiplint.sources import model_cache
from shiplint.sources.files import FileQueries
from shiplint.sources.model import SourceModel


def read_sources(root: Path, manifest: Manifest) -> SourceModel:
    """The model of the sources under `root`: the stored one while every file the last
    walk read is unchanged (the pre-commit hook's usual case), else walked again."""
    sources = manifest.sources
    model = model_cache.stored(root, sources)
    if model is None:
        files = FileQueries()
        model = _walk(root, sources, files)
        model_cache.store(root, sources, files, model)
    return model


def _walk(root: Path, sources: Sources, files: FileQueries) -> SourceModel:
    # Imported here: a run that finds its model stored loads neither the walk nor the
    # declaration readers (ast, tomllib, the parser and its cache).
    from shiplint.sources.declarations import read_build_plan
    from shiplint.sources.graph import built_targets
    from shiplint.sources.interpret import walk_project

    project = walk_project(root, sources.cmake_roots, sources.exclude, files)
    plan = read_build_plan(root, sources.build_declarations, files)
    built = built_targets(project, plan)
    return SourceModel(
        root=root.as_posix(),
        project=project,
        plan=plan,
        built=tuple(sorted(built.items())),
    )
