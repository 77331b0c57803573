"""How the machine-read reporters (SARIF, GitHub annotations) name a diagnostic's place.

A `Location.path` is repo-relative for sources and `<artifact>!/<member>` inside an
archive (docs/architecture.md). Code scanning and annotations can only point at
files of the repository, so an archive member is split into the archive file (the
thing that exists on disk) and the member inside it (a logical name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from shiplint.diagnostics import Location

ARCHIVE_SEPARATOR = "!/"

# A wheel file name: {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl (PEP 427).
_WHEEL = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?P<rest>(-[^-]+)?-[^-]+-[^-]+-[^-]+\.whl)$"
)


@dataclass(frozen=True)
class Place:
    # The file on disk: repo-relative (posix) when it lies under the root, else absolute.
    file: str
    # The member inside an archive, when the location is one.
    member: str | None
    relative: bool
    # The file is a checked artifact (named by its file name, wherever it was
    # given), not a file of the checked tree.
    artifact: bool


def place(location: Location, root: Path, artifact: str | None = None) -> Place:
    """Where `location` is; `artifact` is the diagnostic's subject artifact, if any."""
    path, sep, member = location.path.partition(ARCHIVE_SEPARATOR)
    file, relative = _relative(path, root)
    return Place(
        file=file,
        member=member if sep else None,
        relative=relative,
        artifact=bool(sep) or (artifact is not None and path == artifact),
    )


def _relative(path: str, root: Path) -> tuple[str, bool]:
    pure = PurePosixPath(path.replace("\\", "/"))
    if not pure.is_absolute():
        return str(pure), True
    try:
        return str(PurePosixPath(Path(path).relative_to(root.resolve()).as_posix())), True
    except ValueError:
        return str(pure), False


def versionless(name: str) -> str:
    """A wheel file name (alone or as the archive of `<wheel>!/<member>`) with its
    version replaced by `*`, so a finding keeps its identity from one release of
    the wheel to the next; other names unchanged."""
    archive, sep, member = name.partition(ARCHIVE_SEPARATOR)
    if sep:
        return versionless(archive) + sep + member
    base = PurePosixPath(name).name
    match = _WHEEL.match(base)
    if match is None:
        return name
    return name[: len(name) - len(base)] + f"{match['name']}-*{match['rest']}"
