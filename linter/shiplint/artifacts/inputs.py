"""What the ARTIFACT arguments name: a directory of artifacts stands for the artifacts in it.

A directory given as an ARTIFACT is one of two things:

- an **install tree**, checked as one artifact, when a CMake package config
  (`<Name>Config.cmake` or `<name>-config.cmake`, what `find_package` looks for) or a
  shared library (`.so`, `.so.<version>`, `.dylib`, `.dll`) lies anywhere below it:
  what an SDK installs, and what every check of an install tree reads;
- otherwise, a **directory of artifacts** (`dist/`, a wheelhouse) when files directly
  in it are wheels, zip or tar archives (by name): each is checked as its own
  artifact, in name order. Only direct children count, so an archive deep inside an
  install tree (a test fixture, a documentation bundle) never turns it into one.

A directory that is both (wheels beside a `lib/` of shared libraries) is a usage
error naming what made it ambiguous, rather than silently checking one and not the
other. A directory with neither stays an install tree, and the artifact rules say
what it lacks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from shiplint.artifacts.archive import ARCHIVE_SUFFIXES, ArtifactError

_SHARED_LIBRARY = re.compile(r".+\.(so(\.\d+)*|dylib|dll)$", re.IGNORECASE)


def artifact_inputs(paths: Iterable[Path]) -> tuple[Path, ...]:
    """The artifacts to check: each path as given, a directory of artifacts as its archives.

    Raises ArtifactError for a directory that holds archives and an install tree's content.
    """
    out: list[Path] = []
    for path in paths:
        archives = _archives_in(path) if path.is_dir() else []
        if not archives:
            out.append(path)
            continue
        marker = next(_install_tree_markers(path), None)
        if marker is not None:
            raise ArtifactError(
                path,
                f"ambiguous: it holds artifacts ({_names(archives)}) and an install tree's "
                f"{marker}; give the artifacts by name, or the install tree without them",
            )
        out.extend(archives)
    return tuple(out)


def is_archive_name(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _archives_in(directory: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        raise ArtifactError(directory, f"cannot list ({exc.strerror})") from None
    return [
        directory / e.name
        for e in entries
        if is_archive_name(e.name) and e.is_file(follow_symlinks=True)
    ]


def _install_tree_markers(directory: Path) -> Iterator[str]:
    """What makes the directory an install tree, nearest the top first (lazily: the first
    one decides)."""
    for top, dirs, files in os.walk(directory):
        dirs.sort()
        relative = Path(top).relative_to(directory)
        for name in sorted(files):
            shown = (relative / name).as_posix()
            if name.endswith(("Config.cmake", "-config.cmake")):
                yield f"CMake package config {shown}"
            elif _SHARED_LIBRARY.fullmatch(name):
                yield f"shared library {shown}"


def _names(archives: list[Path], shown: int = 3) -> str:
    names = [a.name for a in archives[:shown]]
    more = f" and {len(archives) - shown} more" if len(archives) > shown else ""
    return ", ".join(names) + more
