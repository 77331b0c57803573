"""Where the manifest's libraries are in an artifact: one placement per library, per platform.

Pure functions over member paths: which file is each manifest library placed on a
platform, which files look like it in another form, which names are shared objects.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from shiplint.fastclass import dataclass
from shiplint.manifest.model import Library, Manifest
from shiplint.platforms import Platform

# Shared objects by name on every platform (a Linux `.so` may carry a version suffix).
_SHARED_OBJECT = re.compile(r".+\.(so(\.\d+)*|dylib|dll|pyd)$", re.IGNORECASE)
# What a library's file looks like in another form: static or import library, versioned name.
_LOOKALIKE_SUFFIXES = (".a", ".lib", ".so.", ".dylib", ".dll", ".so")


def is_shared_object_name(member: str) -> bool:
    return _SHARED_OBJECT.fullmatch(member.rsplit("/", 1)[-1]) is not None


@dataclass(frozen=True)
class LibraryFile:
    """Where a manifest library placed on this artifact's platform was found (or not)."""

    library: str
    # The placement directory and file-name glob it is looked for with.
    directory: str
    pattern: str
    required: bool
    # The member path of the file, None when the artifact does not ship it.
    member: str | None
    # Files in that directory that look like the library but do not match the
    # pattern (a static `.a` or `.lib` shipped in its place, a versioned name).
    lookalikes: tuple[str, ...] = ()
    # Every member the pattern matches in the directory (`member` is the preferred one:
    # the exact default name over a versioned sibling). The CMake layout and the link
    # probe lay all of them out.
    matches: tuple[str, ...] = ()
    # Version siblings of `member` the pattern does not match whose bytes are its own
    # (`libx.so.6.0.0` beside `libx.so.6`): the same library under another name, which a
    # config may import or an aggregate carry (`shiplint.artifacts.copies`).
    copies: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        """Every member that is this library: the pattern's matches, then the copies."""
        return (*self.matches, *self.copies)


def place_libraries(
    manifest: Manifest, platform: Platform, members: tuple[str, ...]
) -> tuple[LibraryFile, ...]:
    """Each manifest library placed on `platform`, matched to its file in its directory."""
    # Each library is looked for in its own directory's names, not in every member: an
    # artifact lists thousands of members in a few directories.
    by_directory: dict[str, list[str]] = {}
    for member in members:
        directory, _, name = member.rpartition("/")
        by_directory.setdefault(directory, []).append(name)
    placed: list[LibraryFile] = []
    for library in manifest.libraries:
        placement = library.placement_for(platform)
        pattern = library.file_pattern(platform)
        if placement is None or pattern is None:
            continue
        directory = placement.directory.strip("/")
        names = sorted(by_directory.get(directory, ()))
        matches = [n for n in names if fnmatchcase(n, pattern)]
        # Prefer the exact default name over a versioned sibling the glob also matches.
        match = min(matches, key=len) if matches else None
        # Every match as `Library.members` finds them: in member order, `.` the root.
        prefix = f"{directory}/" if directory not in ("", ".") else ""
        in_order = by_directory.get(prefix[:-1], ())
        placed.append(
            LibraryFile(
                library=library.name,
                directory=directory,
                pattern=pattern,
                required=placement.required,
                member=f"{directory}/{match}" if match and directory else match,
                lookalikes=_lookalikes(library, names, matches),
                matches=tuple(prefix + n for n in in_order if fnmatchcase(n, pattern)),
            )
        )
    return tuple(placed)


def _lookalikes(library: Library, names: list[str], matches: list[str]) -> tuple[str, ...]:
    stems = {f"lib{library.output_name}", library.output_name}
    found = []
    for name in names:
        if name in matches:
            continue
        for stem in stems:
            rest = name[len(stem) :] if name.startswith(stem) else None
            if rest is not None and rest.lower().startswith(_LOOKALIKE_SUFFIXES):
                found.append(name)
                break
    return tuple(found)


def matches_any_library(
    manifest: Manifest, platform: Platform, member: str
) -> tuple[Library, str] | None:
    """A manifest library whose file pattern `member`'s name matches, and its placement dir."""
    name = member.rsplit("/", 1)[-1]
    for library in manifest.libraries:
        placement = library.placement_for(platform)
        pattern = library.file_pattern(platform)
        if placement is not None and pattern is not None and fnmatchcase(name, pattern):
            return library, placement.directory.strip("/")
    return None
