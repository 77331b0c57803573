"""What kind an artifact is, an entry its listing refused, and the errors of reading one.

Apart from the archive readers, so the models (and every rule module that reads
them) and the CLI import no archive format: a sources-only run stays fast to start.
"""

from __future__ import annotations

import enum
from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass


class ArtifactKind(enum.Enum):
    WHEEL = "wheel"
    ZIP = "zip"
    TAR = "tar"
    # An install tree: a directory holding the package as it would be installed.
    DIRECTORY = "directory"


@dataclass(frozen=True)
class Rejected:
    """An entry not listed as a file, and why (a hostile path, an escaping link...)."""

    member: str
    reason: str


class ArtifactError(Exception):
    """The artifact as a whole cannot be read. `path` is the artifact's path."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


class MemberError(ArtifactError):
    """One member cannot be read (too large, corrupt, encrypted). `member` names it."""

    def __init__(self, path: Path | str, member: str, reason: str) -> None:
        super().__init__(Location(str(path), member=member).file, reason)
        self.artifact = str(path)
        self.member = member
