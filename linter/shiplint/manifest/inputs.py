"""Files the manifest names as inputs of a run: each must exist under the checked root.

A missing one is a mistake in the manifest (or the wrong --root), reported once at
the key that names it, before anything reads it: not one failed CMake run per
platform and CMake that never started.
"""

from __future__ import annotations

from pathlib import Path

from shiplint.manifest.errors import Problem
from shiplint.manifest.model import NO_MARK, Manifest


def missing_config_sources(manifest: Manifest, root: Path) -> list[Problem]:
    """A problem for each file of the config source (cmake.config_source and
    cmake.config_source_extras) that is not a file under `root`."""
    cmake = manifest.cmake
    named = [("cmake.config_source", cmake.config_source)] if cmake.config_source else []
    named += [
        (f"cmake.config_source_extras[{i}]", p) for i, p in enumerate(cmake.config_source_extras)
    ]
    marks = cmake.config_source_marks or (NO_MARK,) * len(named)
    problems = []
    for (where, path), mark in zip(named, marks, strict=True):
        candidate = root / path
        if candidate.is_file():
            continue
        under = f"under the root {root.resolve()}"
        if candidate.is_dir():
            message = f"the config source {path} is a directory {under}, not a file"
        else:
            message = f"the config source {path} does not exist {under}"
        problems.append(Problem(mark, where, message))
    return problems
