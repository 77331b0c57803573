"""Lay out the part of an artifact a consumer links against, in a temporary directory.

Extracted afresh on every run (never cached), so the probe always links the
libraries this artifact really carries: the installed config, every file next
to a library the manifest places on this platform, and the directories the
config requires (extracted too: a config may test for a file inside them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from shiplint.artifacts.archive import ArtifactError
from shiplint.diagnostics import Location
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


class Tree(Protocol):
    """What the probe reads of an artifact (see artifacts/archive.py)."""

    label: str

    def names(self) -> tuple[str, ...]: ...

    def read(self, name: str, limit: int = ...) -> bytes: ...

    def location(self, name: str | None = None) -> Location: ...


class LayoutError(Exception):
    """A member the consumer needs could not be extracted."""


@dataclass(frozen=True)
class Layout:
    root: Path
    # The directory holding the config, on disk, and the config's member path.
    config_dir: Path
    config_member: str
    # Manifest library -> its member paths in the artifact (only shipped libraries).
    shipped: tuple[tuple[str, tuple[str, ...]], ...]

    def path_of(self, member: str) -> Path:
        return self.root / member

    @property
    def shipped_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.shipped)


def config_file_names(package: str) -> tuple[str, ...]:
    # The two spellings find_package(CONFIG) accepts.
    return (f"{package}-config.cmake", f"{package.lower()}-config.cmake", f"{package}Config.cmake")


def find_config(manifest: Manifest, names: Iterable[str]) -> str | None:
    """The member path of the first installed config found, in the manifest's order."""
    present = set(names)
    for directory in manifest.cmake.installed_config_dirs:
        for file_name in config_file_names(manifest.cmake.package):
            member = f"{directory.rstrip('/')}/{file_name}"
            if member in present:
                return member
    return None


def shipped_libraries(
    manifest: Manifest, platform: Platform, names: Iterable[str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each manifest library placed on `platform` with the members that match it."""
    members = tuple(names)
    found = ((library.name, library.members(platform, members)) for library in manifest.libraries)
    return tuple((name, hits) for name, hits in found if hits)


def _wanted(
    manifest: Manifest, platform: Platform, config_member: str, names: tuple[str, ...]
) -> list[str]:
    config_dir = str(PurePosixPath(config_member).parent)
    library_dirs = {
        p.directory.strip("/")
        for lib in manifest.libraries
        if (p := lib.placement_for(platform)) is not None
    }
    root = manifest.cmake.package_root.strip("/")
    required = tuple(f"{root}/{d.strip('/')}".lstrip("/") for d in manifest.cmake.required_dirs)
    wanted: list[str] = []
    for name in names:
        parent = str(PurePosixPath(name).parent)
        if (
            parent == config_dir
            or parent in library_dirs
            or any(name.startswith(d + "/") for d in required)
        ):
            wanted.append(name)
    return wanted


def lay_out(tree: Tree, manifest: Manifest, platform: Platform, dest: Path) -> Layout:
    """Extract what a consumer links against under `dest`. Raises LayoutError."""
    names = tree.names()
    config_member = find_config(manifest, names)
    if config_member is None:
        searched = ", ".join(manifest.cmake.installed_config_dirs) or "(none declared)"
        raise LayoutError(f"no {manifest.cmake.package} config in {searched}")
    for member in _wanted(manifest, platform, config_member, names):
        target = dest / member
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_bytes(tree.read(member))
        except (ArtifactError, OSError) as exc:
            raise LayoutError(f"cannot extract {tree.location(member).file}: {exc}") from exc
    root = manifest.cmake.package_root.strip("/")
    for directory in manifest.cmake.required_dirs:
        (dest / root / directory.strip("/")).mkdir(parents=True, exist_ok=True)
    return Layout(
        root=dest,
        config_dir=dest / PurePosixPath(config_member).parent,
        config_member=config_member,
        shipped=shipped_libraries(manifest, platform, names),
    )
