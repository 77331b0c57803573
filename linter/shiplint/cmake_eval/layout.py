"""Lay out the tree a config is evaluated against, in a temporary directory.

From an artifact: the config files themselves (read from the archive) and an
EMPTY placeholder for every other file under the package root, so globs, EXISTS
tests and directory checks see what a consumer's machine would, without ever
inflating a library. That tree is planned in memory and written only when CMake
is about to read it: a replayed evaluation (replay.py) is keyed by the plan and
reads nothing from it, so thousands of placeholders are never made nor removed.
From the repository: the config source (configured by the
probe when it is a `.cmake.in`) and placeholders synthesised from the manifest's
placements and required directories for one platform.
"""

from __future__ import annotations

import errno
import functools
import os
import posixpath
import re
import shutil
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from pathlib import Path, PurePosixPath

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.configs import config_file_names
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.placement import LibraryFile, place_libraries
from shiplint.artifacts.tree import Tree
from shiplint.cmake_eval.model import Failure, FailureKind, Mode, ShippedLibrary
from shiplint.cmake_eval.target_host import wheel_python
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Library, Manifest
from shiplint.platforms import Platform

# A config and the files beside it are small; anything bigger is not a config.
CONFIG_READ_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class ConfigureIn:
    """A `.cmake.in` source the probe configures (configure_package_config_file) before use."""

    template: Path
    output: Path
    install_prefix: Path
    install_destination: str


class TreeNotWritten(Exception):
    """The planned tree could not be written (the file system refused a path)."""


class PlannedTree:
    """Files to lay out under `root`: each member's path, with its bytes, or None for an
    empty placeholder. Written once, by the first run that needs it on disk (runs of
    several CMakes share one tree, side by side in threads)."""

    def __init__(self, root: Path, files: dict[str, bytes | None]) -> None:
        self.root = root
        self.files = files
        self._lock = threading.Lock()
        self._written = False

    def directories(self) -> list[str]:
        """Every directory the tree holds, `root` ("") and each member's ancestors."""
        out = {""}
        for name in self.files:
            if name.startswith("/") or "//" in name or name.endswith("/"):
                directory = posixpath.dirname(name)
                while directory not in out:
                    out.add(directory)
                    directory = posixpath.dirname(directory)
                continue
            # A normal relative name (nearly all, and a wheel has thousands): each
            # ancestor, nearest first, by string search, as posixpath.dirname gives them.
            end = name.rfind("/")
            while end > 0 and name[:end] not in out:
                out.add(name[:end])
                end = name.rfind("/", 0, end)
        return sorted(out)

    def write(self) -> None:
        """Raises TreeNotWritten, saying which path the file system refused and why."""
        with self._lock:
            if self._written:
                return
            try:
                self._write()
            except OSError as exc:
                where = f" ({exc.filename})" if exc.filename else ""
                raise TreeNotWritten(
                    f"cannot lay out the package to evaluate its config: {exc.strerror}{where}"
                ) from exc
            self._written = True

    def _write(self) -> None:
        base = str(self.root)
        # Thousands of placeholders (a wheel's headers): plain os calls, each directory
        # made once.
        for directory in sorted({posixpath.dirname(name) for name in self.files}):
            os.makedirs(os.path.join(base, directory), exist_ok=True)
        # An empty placeholder in one system call where the system lets a user make a
        # regular file with mknod (Linux): each call gives the GIL up, and taking it back
        # while the binaries are read in another thread is what writing the tree costs.
        make: Callable[[str], bool] | None = _made_by_mknod
        for name, data in self.files.items():
            target = os.path.join(base, name)
            if data is None:
                if make is None or not make(target):
                    make = None
                    os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
            else:
                with open(target, "wb") as stream:
                    stream.write(data)

    def cmake_files(self, directory: Path) -> Iterator[tuple[Path, bytes]]:
        """The `.cmake` files under `directory` with their bytes, as sorted Paths
        (what `sorted(directory.rglob("*.cmake"))` reads once the tree is written)."""
        inside = str(PurePosixPath(directory).relative_to(self.root))
        prefix = "" if inside == "." else inside + "/"
        found = [
            (self.root / name, data)
            for name, data in self.files.items()
            if name.startswith(prefix) and name.endswith(".cmake")
        ]
        for path, data in sorted(found, key=lambda item: item[0]):
            yield path, data or b""


def _made_by_mknod(target: str) -> bool:
    """Make `target` an empty regular file with mknod; False when the system refuses
    mknod for regular files (then open makes them: macOS asks for root)."""
    try:
        os.mknod(target, 0o644 | stat.S_IFREG)
    except FileExistsError:
        # Opened with O_CREAT, as before mknod: a file is found, anything else refused.
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError as exc:
        if exc.errno in (errno.EPERM, errno.EACCES, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            return False
        raise
    return True


@dataclass(frozen=True)
class Layout:
    mode: Mode
    label: str
    platform: Platform
    root: Path
    config_dir: Path
    # How findings name the config, and how a tree path maps back to what the user has.
    config_location: Location
    shipped: tuple[ShippedLibrary, ...]
    configure: tuple[ConfigureIn, ...] = ()
    # Other installed copies of the config: (member of the config file, its directory).
    alternates: tuple[tuple[str, Path], ...] = ()
    # Tree members that stand for a repository file (source mode): member -> repo path.
    sources: tuple[tuple[str, str], ...] = ()
    # The tree still to write (artifact mode); None: `root` is already laid out.
    planned: PlannedTree | None = field(default=None, compare=False)
    # The CPython its wheel is tagged for ((3, 11)), and the wheel's platform tag: what
    # the programs a config asks answer for (target_host.py). None: not a wheel.
    python: tuple[int, int] | None = None
    platform_tag: str | None = None

    def write(self) -> None:
        """Lay the tree out on disk, for a run of CMake that reads it (TreeNotWritten)."""
        if self.planned is not None:
            self.planned.write()

    def cmake_files(self) -> Iterator[tuple[Path, bytes]]:
        """The `.cmake` files under the config's directory and their bytes, sorted."""
        if self.planned is not None:
            yield from self.planned.cmake_files(self.config_dir)
            return
        yield from _read_all(sorted(self.config_dir.rglob("*.cmake")))

    @functools.cached_property
    def _tree_cmake(self) -> tuple[tuple[Path, bytes | None], ...]:
        """The `.cmake` files of the tree, sorted, with their bytes (None: unreadable
        here), read once: from the plan when there is one (the same files once written),
        else from disk."""
        if self.planned is not None:
            return tuple(self.planned.cmake_files(self.root))
        out: list[tuple[Path, bytes | None]] = []
        for path in sorted(self.root.rglob("*.cmake")):
            try:
                out.append((path, path.read_bytes()))
            except OSError:
                out.append((path, None))  # traced all the same; the evaluation reports it
        return tuple(out)

    @property
    def traced_files(self) -> tuple[Path, ...]:
        """The `.cmake` files of the tree, which a run traces (sorted)."""
        return tuple(path for path, _ in self._tree_cmake)

    def tree_cmake_files(self) -> Iterator[tuple[str, bytes]]:
        """Every `.cmake` file of the tree (what a run traces) and each `.cmake.in` source
        the probe configures into it, named by path, with their bytes."""
        for path, data in self._tree_cmake:
            if data is not None:
                yield str(path), data
        for path, data in _read_all([item.template for item in self.configure]):
            yield str(path), data

    def location(self, member: str) -> Location:
        """Where a finding about a file of the tree points."""
        for tree_member, repo_path in self.sources:
            if tree_member == member:
                return Location(repo_path)
        if self.mode is Mode.ARTIFACT:
            return self.config_location.within(member)
        return Location(member)


def _read_all(paths: Iterable[Path]) -> Iterator[tuple[Path, bytes]]:
    for path in paths:
        try:
            yield path, path.read_bytes()
        except OSError:
            continue  # unreadable here means the evaluation reports it


def shipped_libraries(
    manifest: Manifest, libraries: tuple[LibraryFile, ...]
) -> tuple[ShippedLibrary, ...]:
    """Every member of every placed library, with the components its library owns."""
    owned = {lib.name: lib.owns.components for lib in manifest.libraries}
    return tuple(
        ShippedLibrary(placed.library, member, owned[placed.library])
        for placed in libraries
        for member in placed.files
    )


def _under(name: str, directory: str) -> bool:
    return directory in ("", ".") or name.startswith(directory.rstrip("/") + "/")


def layout_artifact(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    platform: Platform,
    libraries: tuple[LibraryFile, ...],
    dest: Path,
) -> Layout | Failure:
    """The artifact's package as placeholders; its `.cmake` files (the config, its version
    file, and any module it includes from elsewhere in the package) are real. `libraries`
    are the manifest's libraries placed on `platform`, the one it is evaluated as. The
    tree is planned under `dest`, not written: `Layout.write` writes it."""
    names = listing.members
    config_member = listing.configs[0]
    config_dir = posixpath.dirname(config_member)
    root_dir = manifest.cmake.package_root
    files: dict[str, bytes | None] = {}
    for name in names:
        if not (_under(name, root_dir) or name.startswith(config_dir + "/")):
            continue
        if name.endswith(".cmake"):
            try:
                files[name] = tree.read(name, CONFIG_READ_LIMIT)
            except MemberError as exc:
                return Failure(FailureKind.ERROR, f"cannot read {name}: {exc}", tree.location(name))
        else:
            files[name] = None
    return Layout(
        mode=Mode.ARTIFACT,
        label=tree.label,
        platform=platform,
        root=dest,
        config_dir=dest / config_dir,
        config_location=tree.location(config_member),
        shipped=shipped_libraries(manifest, libraries),
        alternates=tuple(
            (member, dest / posixpath.dirname(member)) for member in listing.configs[1:]
        ),
        planned=PlannedTree(dest, files),
        python=wheel_python(tree.label),
        platform_tag=listing.platform_tag,
    )


def placeholder_name(pattern: str) -> str:
    """A file name that matches the glob `pattern` (`_C.*.so` -> `_C.shiplint.so`)."""
    name = re.sub(r"\[!?([^\]])[^\]]*\]", r"\1", pattern)
    return name.replace("*", "shiplint").replace("?", "x")


def placed_member(lib: Library, platform: Platform) -> str | None:
    """The placeholder of `lib` in a tree synthesised for `platform`; None where it is not placed."""
    placement = lib.placement_for(platform)
    pattern = lib.file_pattern(platform)
    if placement is None or pattern is None:
        return None
    return posixpath.join(placement.directory, placeholder_name(pattern))


def layout_source(
    repo: Path, manifest: Manifest, platform: Platform, dest: Path
) -> Layout | Failure:
    """The config source installed into a tree synthesised from the manifest for `platform`."""
    cmake = manifest.cmake
    if cmake.config_source is None:
        return Failure(
            FailureKind.ERROR, "the manifest names no cmake.config_source", Location(manifest.path)
        )
    config_dir = cmake.installed_config_dirs[0]
    members: list[str] = []
    for lib in manifest.libraries:
        member = placed_member(lib, platform)
        if member is not None:
            members.append(member)
            (dest / member).parent.mkdir(parents=True, exist_ok=True)
            (dest / member).touch()
    for required in cmake.required_dirs:
        (dest / cmake.package_root / required).mkdir(parents=True, exist_ok=True)
    (dest / config_dir).mkdir(parents=True, exist_ok=True)

    configure: list[ConfigureIn] = []
    sources: list[tuple[str, str]] = []
    templates = dest.parent / "templates"
    templates.mkdir(parents=True, exist_ok=True)
    for repo_path in (cmake.config_source, *cmake.config_source_extras):
        source = repo / repo_path
        if not source.is_file():
            return Failure(
                FailureKind.ERROR,
                f"the config source {repo_path} named by the manifest does not exist",
                Location(manifest.path),
            )
        installed = posixpath.basename(repo_path).removesuffix(".in")
        names = config_file_names(cmake.package)
        if repo_path == cmake.config_source and installed not in names:
            # Installed under the name find_package looks for, whatever the source is
            # called (ExecuTorch copies executorch-wheel-config.cmake to executorch-config.cmake).
            installed = names[1]
        member = posixpath.join(config_dir, installed)
        sources.append((member, repo_path))
        if repo_path.endswith(".in"):
            template = templates / posixpath.basename(repo_path)
            shutil.copyfile(source, template)
            configure.append(
                ConfigureIn(
                    template=template,
                    output=dest / member,
                    install_prefix=dest / cmake.package_root,
                    install_destination=posixpath.relpath(config_dir, cmake.package_root),
                )
            )
        else:
            shutil.copyfile(source, dest / member)
    return Layout(
        mode=Mode.SOURCE,
        label="source",
        platform=platform,
        root=dest,
        config_dir=dest / config_dir,
        config_location=Location(cmake.config_source),
        shipped=shipped_libraries(manifest, place_libraries(manifest, platform, tuple(members))),
        configure=tuple(configure),
        sources=tuple(sources),
    )
