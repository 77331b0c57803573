"""Lay out the part of an artifact a consumer builds against, in a temporary directory.

Extracted afresh on every run (never cached), so a probe always builds against the
libraries this artifact really carries: the installed config, every file next
to a library the manifest places on this platform, and the directories the
config requires (extracted too: a config may test for a file inside them).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from shiplint.artifacts.archive import ArtifactError
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.placement import LibraryFile
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


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


def lay_out(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    platform: Platform,
    libraries: tuple[LibraryFile, ...],
    dest: Path,
) -> Layout:
    """Extract what a consumer links against under `dest` (`libraries`: the manifest's
    libraries placed on `platform`). Raises LayoutError."""
    names = listing.members
    config_member = listing.config
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
        shipped=tuple((f.library, f.files) for f in libraries if f.files),
    )
