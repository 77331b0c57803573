"""An SDK split across wheels, checked as the one prefix they install into.

A runtime wheel and its -devel wheel (oneTBB's `tbb` and `tbb-devel`) each install
their `<name>-<version>.data/data/` directory into the same environment prefix, so
the devel wheel's CMake config finds libraries the runtime wheel ships. Checked one
by one, neither is what a consumer gets. The manifest names the distributions that
install beside its own (`package.companions`); wheels of those given in the same
run, for the same platform, are read as one `PrefixTree`:

- the manifest's own wheel is the primary: its members keep their names, its file
  names the artifact in messages;
- a companion's `<name>-<version>.data/<scheme>/...` members are renamed into the
  primary's `.data/<scheme>/` directory, where the installer puts them; its other
  members (the site-packages part) keep their names, which is where they go too;
- a companion's `.dist-info/` is installer metadata about that wheel, not the SDK:
  left out, so the wheel metadata read is the primary's;
- a member both wheels install is the primary's; the companion's copy is rejected
  (listed as such), as an installer would overwrite one with the other.

A finding about a companion's member points at the companion's file and its own
member name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from shiplint.artifacts.archive import DEFAULT_READ_LIMIT, ArtifactKind, ArtifactTree, Rejected
from shiplint.artifacts.tree import Tree
from shiplint.diagnostics import Location
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


def distribution_name(name: str) -> str:
    """A distribution name as PEP 503 compares them (`tbb_devel` is `tbb-devel`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _wheel_fields(path: Path) -> tuple[str, str, str] | None:
    """(distribution, `<name>-<version>` as written, platform tag) of a wheel's file name."""
    if path.suffix.lower() != ".whl":
        return None
    parts = path.name[: -len(".whl")].split("-")
    if len(parts) not in (5, 6):
        return None
    return distribution_name(parts[0]), f"{parts[0]}-{parts[1]}", parts[-1]


def group_artifacts(paths: Sequence[Path], manifest: Manifest) -> tuple[tuple[Path, ...], ...]:
    """The artifacts to check, each a tuple of the paths read as one: the manifest's own
    wheel with the companion wheels of the same platform tag, else a path alone."""
    companions = {distribution_name(c) for c in manifest.companions}
    if not companions:
        return tuple((path,) for path in paths)
    own = distribution_name(manifest.name)
    fields = {path: _wheel_fields(path) for path in paths}
    joined: dict[Path, list[Path]] = {}
    taken: set[Path] = set()
    for path in paths:
        primary = fields[path]
        if primary is None or primary[0] != own:
            continue
        joined[path] = [path]
        for other in paths:
            candidate = fields[other]
            if (
                other not in taken
                and candidate is not None
                and candidate[0] in companions
                and candidate[2] == primary[2]
            ):
                joined[path].append(other)
                taken.add(other)
    return tuple(
        tuple(joined[path]) if path in joined else (path,) for path in paths if path not in taken
    )


class PrefixTree:
    """Several open wheels seen as the one prefix they install into (see the module)."""

    def __init__(self, primary: Tree, companions: Sequence[Tree]) -> None:
        self._primary = primary
        self.label = primary.label
        self.shown = primary.shown
        self.kind: ArtifactKind = primary.kind
        self.platform: Platform | None = primary.platform
        self.platform_tag: str | None = primary.platform_tag
        self.companions = tuple(companions)
        data_dir = _data_dir(primary)
        # merged name -> (tree, member name in that tree)
        self._members: dict[str, tuple[Tree, str]] = {n: (primary, n) for n in primary.names()}
        self._rejected: list[Rejected] = list(primary.rejected)
        for tree in companions:
            self._rejected.extend(
                Rejected(f"{tree.label}!/{r.member}", r.reason) for r in tree.rejected
            )
            own_data = _data_dir(tree)
            for name in tree.names():
                top, _, rest = name.partition("/")
                if top.endswith(".dist-info"):
                    continue  # the companion wheel's installer metadata, not the SDK's
                merged = f"{data_dir}/{rest}" if top == own_data and data_dir else name
                if merged in self._members:
                    first = self._members[merged][0].label
                    self._rejected.append(
                        Rejected(
                            f"{tree.label}!/{name}",
                            f"installs {merged}, which {first} installs too",
                        )
                    )
                    continue
                self._members[merged] = (tree, name)
        self._names = tuple(sorted(self._members))

    def origins(self) -> tuple[tuple[str, str, str], ...]:
        """(member, artifact path, its name there) of each member a companion installs."""
        return tuple(
            (merged, tree.shown, member)
            for merged, (tree, member) in sorted(self._members.items())
            if tree is not self._primary
        )

    @property
    def rejected(self) -> tuple[Rejected, ...]:
        return tuple(self._rejected)

    def names(self) -> tuple[str, ...]:
        return self._names

    def read(self, name: str, limit: int = DEFAULT_READ_LIMIT) -> bytes:
        tree, member = self._where(name)
        return tree.read(member, limit)

    def head(self, name: str, count: int) -> bytes:
        tree, member = self._where(name)
        return tree.head(member, count)

    def size(self, name: str) -> int:
        tree, member = self._where(name)
        return tree.size(member)

    def copy_to(self, name: str, target: IO[bytes]) -> int:
        tree, member = self._where(name)
        return tree.copy_to(member, target)

    @property
    def archives(self) -> tuple[Tree, ...]:
        """The package's wheel, then its companions'."""
        return (self._primary, *self.companions)

    def fingerprint(self, name: str) -> bytes | None:
        """The member's fingerprint in the archive it comes from (`ArtifactTree.fingerprint`)."""
        tree, member = self._where(name)
        return tree.fingerprint(member) if isinstance(tree, ArtifactTree) else None

    def location(self, name: str | None = None) -> Location:
        if name is None:
            return self._primary.location()
        tree, member = self._members.get(name, (self._primary, name))
        return tree.location(member)

    def _where(self, name: str) -> tuple[Tree, str]:
        # An unknown name is the primary's to refuse, with its own error.
        return self._members.get(name, (self._primary, name))


def member_fingerprint(tree: Tree, member: str) -> bytes | None:
    """The member's fingerprint (`ArtifactTree.fingerprint`), or None when its tree has
    none (a tar, a directory, a tree of another kind). Raises MemberError."""
    if isinstance(tree, (ArtifactTree, PrefixTree)):
        return tree.fingerprint(member)
    return None


def _data_dir(tree: Tree) -> str | None:
    """The wheel's `<name>-<version>.data` directory, named from its file name."""
    fields = _wheel_fields(Path(tree.label))
    return f"{fields[1]}.data" if fields is not None else None
