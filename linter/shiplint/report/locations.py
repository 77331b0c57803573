"""How the machine-read reporters (SARIF, GitHub annotations) name a diagnostic's place.

Code scanning and annotations can only point at files of the repository. A
`Location` already says which file is on disk (`path`) and which member inside
an artifact it is (`member`); this decides whether that file is one of the
checked tree, relative to the root.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from shiplint.diagnostics import MEMBER_SEPARATOR, Location
from shiplint.fastclass import dataclass

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
    # The file is a checked artifact (built, not committed), not a file of the checked tree.
    artifact: bool


def place(location: Location, root: Path, artifact: str | None = None) -> Place:
    """Where `location` is; `artifact` is the diagnostic's subject artifact (a file name)."""
    file, relative = _relative(location.path, root)
    return Place(
        file=file,
        member=location.member,
        relative=relative,
        artifact=location.member is not None
        or (artifact is not None and PurePosixPath(file).name == artifact),
    )


def _relative(path: str, root: Path) -> tuple[str, bool]:
    pure = PurePosixPath(path.replace("\\", "/"))
    if not pure.is_absolute():
        return str(pure), True
    try:
        return str(PurePosixPath(Path(path).relative_to(root.resolve()).as_posix())), True
    except ValueError:
        return str(pure), False


def identity(location: Location, artifact: str | None = None) -> str:
    """The location as a finding's identity: an artifact by its versionless file name
    (wherever it was built, whichever release), with the member; a file of the tree
    by its path."""
    where = place(location, Path("."), artifact)
    if not where.artifact:
        return location.path
    name = versionless(PurePosixPath(where.file).name)
    return name if location.member is None else f"{name}{MEMBER_SEPARATOR}{location.member}"


def versionless(name: str) -> str:
    """A wheel file name (or a path ending in one) with its version replaced by `*`, so
    a finding keeps its identity from one release of the wheel to the next; other
    names unchanged."""
    base = PurePosixPath(name).name
    match = _WHEEL.match(base)
    if match is None:
        return name
    return name[: len(name) - len(base)] + f"{match['name']}-*{match['rest']}"
