"""Build the `ArtifactModel` of one open artifact: list it, place the manifest's libraries, read
the binaries the rules need.

Read: every member the manifest names on this platform, and every other member
named like a shared object (to report undeclared ones and check their linkage).
Not read: Python files, data, configs; the CMake-evaluation area reads those.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from fnmatch import fnmatchcase

from shiplint.artifacts.archive import ArtifactTree, MemberError
from shiplint.artifacts.import_library import import_libraries
from shiplint.artifacts.metadata import read_metadata
from shiplint.artifacts.model import ArtifactModel, LibraryFile, Unreadable
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.artifacts.worker import IN_PROCESS, BinaryReader
from shiplint.manifest.model import Library, Manifest
from shiplint.platforms import Platform

# Shared objects by name on every platform (a Linux `.so` may carry a version suffix).
_SHARED_OBJECT = re.compile(r".+\.(so(\.\d+)*|dylib|dll|pyd)$", re.IGNORECASE)
# What a library's file looks like in another form: static or import library, versioned name.
_LOOKALIKE_SUFFIXES = (".a", ".lib", ".so.", ".dylib", ".dll", ".so")


def is_shared_object_name(member: str) -> bool:
    return _SHARED_OBJECT.fullmatch(member.rsplit("/", 1)[-1]) is not None


def collect_artifact(
    tree: ArtifactTree, manifest: Manifest, reader: BinaryReader = IN_PROCESS
) -> ArtifactModel:
    members = tree.names()
    records: dict[str, BinaryRecord] = {}
    unreadable: list[Unreadable] = []
    digests: dict[str, bytes] = {}

    def read(member: str) -> None:
        if member in records or any(u.member == member for u in unreadable):
            return
        try:
            data = tree.read(member)
        except MemberError as exc:
            unreadable.append(Unreadable(member, exc.reason))
            return
        digests[member] = hashlib.blake2b(data, digest_size=16).digest()
        result = reader.binary(data, member)
        if isinstance(result, BinaryError):
            unreadable.append(Unreadable(member, result.reason))
        else:
            records[member] = result

    for member in members:
        if is_shared_object_name(member):
            read(member)
    platform, source = _platform(tree, records.values())
    libraries = place_libraries(manifest, platform, members) if platform is not None else ()
    for placed in libraries:
        if placed.member is not None:
            read(placed.member)
    copies = _copies(digests, records, {p.member for p in libraries if p.member is not None})
    copied = {copy for copy, _ in copies}
    return ArtifactModel(
        label=tree.label,
        path=tree.shown,
        kind=tree.kind,
        platform=platform,
        platform_source=source,
        members=members,
        libraries=libraries,
        binaries=tuple(records[m] for m in sorted(records) if m not in copied),
        copies=copies,
        unreadable=tuple(sorted(unreadable, key=lambda u: u.member)),
        rejected=tree.rejected,
        platform_tag=tree.platform_tag,
        metadata=read_metadata(tree, members),
        import_libraries=(
            import_libraries(tree, members)
            if platform is not None and platform.os == "windows"
            else ()
        ),
    )


def _stem(name: str) -> str:
    """`libx` of `libx.so`, `libx.so.12`, `libx.12.dylib`: the name before its versions."""
    base = name.split(".so", 1)[0] if ".so" in name else name.rsplit(".", 1)[0]
    return re.sub(r"(\.\d+)+$", "", base)


def _copies(
    digests: dict[str, bytes], records: dict[str, BinaryRecord], placed: set[str]
) -> tuple[tuple[str, str], ...]:
    """Byte-identical shared objects under version-sibling names in one directory.

    The one kept is the manifest's placed file, else the file named as the SONAME,
    else the shortest name; the others are its copies.
    """
    groups: dict[tuple[str, str, bytes], list[str]] = {}
    for member, digest in digests.items():
        if member not in records:
            continue
        directory, _, name = member.rpartition("/")
        groups.setdefault((directory, _stem(name), digest), []).append(member)
    out: list[tuple[str, str]] = []
    for group in groups.values():
        if len(group) < 2:
            continue

        def rank(member: str) -> tuple[int, int, str]:
            soname = (records[member].soname or "").rsplit("/", 1)[-1]
            named = member.rsplit("/", 1)[-1] == soname
            return (member not in placed, not named, member)

        kept, *others = sorted(group, key=rank)
        out.extend((copy, kept) for copy in others)
    return tuple(sorted(out))


def _platform(tree: ArtifactTree, records: Iterable[BinaryRecord]) -> tuple[Platform | None, str]:
    """The wheel tag's platform, else the most common (OS, arch) of the shared objects."""
    if tree.platform is not None:
        return tree.platform, "wheel tag"
    seen: Counter[Platform] = Counter()
    for record in records:
        os_name = record.format.os
        if os_name is not None:
            seen[Platform(os_name, record.arch)] += 1
    if not seen:
        return None, "unknown"
    return seen.most_common(1)[0][0], "binaries"


def place_libraries(
    manifest: Manifest, platform: Platform, members: tuple[str, ...]
) -> tuple[LibraryFile, ...]:
    """Each manifest library placed on `platform`, matched to its file in its directory."""
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
        matches = [n for n in names if library.matches_file(platform, n)]
        # Prefer the exact default name over a versioned sibling the glob also matches.
        match = min(matches, key=len) if matches else None
        placed.append(
            LibraryFile(
                library=library.name,
                directory=directory,
                pattern=pattern,
                required=placement.required,
                member=f"{directory}/{match}" if match and directory else match,
                lookalikes=_lookalikes(library, names, matches),
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
