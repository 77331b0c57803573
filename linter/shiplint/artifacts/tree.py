"""The one view of an open artifact that every area reads through.

`shiplint.artifacts.archive.ArtifactTree` (wheel, zip, tar, directory) is the
implementation; this protocol is what the inventory builder, the CMake layout and
the link probe's layout rely on, so a test can hand them any tree of that shape.
"""

from __future__ import annotations

from typing import IO, Protocol

from shiplint.artifacts.archive import ArtifactKind, Rejected
from shiplint.diagnostics import Location
from shiplint.platforms import Platform


class Tree(Protocol):
    # The artifact's file name: how messages name it.
    label: str
    # Its path as locations name it.
    shown: str
    kind: ArtifactKind
    # The wheel tag's platform, and the tag as written; None for every other artifact.
    platform: Platform | None
    platform_tag: str | None

    @property
    def rejected(self) -> tuple[Rejected, ...]: ...

    def names(self) -> tuple[str, ...]: ...

    def read(self, name: str, limit: int = ...) -> bytes: ...

    def head(self, name: str, count: int) -> bytes: ...

    def size(self, name: str) -> int: ...

    def copy_to(self, name: str, target: IO[bytes]) -> int: ...

    def location(self, name: str | None = None) -> Location: ...
