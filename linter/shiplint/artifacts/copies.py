"""Identical copies of a placed library under version-sibling names: one library.

A wheel cannot hold symlinks, so a library ships as `libx.so.6` with byte-identical
copies `libx.so` and `libx.so.6.0.0` (an install tree or a tarball may hold the
symlinks themselves). A CMake config imports whichever name its build tree had
(CMake's own export writes `libx.so.6.0.0`), an aggregate may carry another, and the
manifest names a third: all three are the one library, so whichever name the config
uses names it. Identity is decided by the bytes (a symlink reads as its target), never
by the name alone: a sibling with other bytes is another library.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from shiplint.artifacts.archive import IN_MEMORY_BYTES, MemberError
from shiplint.artifacts.placement import LibraryFile, is_shared_object_name, place_libraries
from shiplint.artifacts.tree import Tree
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


def version_stem(name: str) -> str:
    """`libx` of `libx.so`, `libx.so.12`, `libx.12.dylib`: the name before its versions."""
    base = name.split(".so", 1)[0] if ".so" in name else name.rsplit(".", 1)[0]
    return re.sub(r"(\.\d+)+$", "", base)


def sibling_key(member: str) -> tuple[str, str]:
    """The directory and version stem: members sharing it are version siblings."""
    directory, _, name = member.rpartition("/")
    return directory, version_stem(name)


def place_with_copies(
    tree: Tree, manifest: Manifest, platform: Platform, members: Sequence[str]
) -> tuple[LibraryFile, ...]:
    """The manifest's libraries placed on `platform` (`place_libraries`), each with the
    identical copies of its file."""
    return with_copies(tree, place_libraries(manifest, platform, tuple(members)), members)


def with_copies(
    tree: Tree, libraries: tuple[LibraryFile, ...], members: Sequence[str]
) -> tuple[LibraryFile, ...]:
    """`libraries` with `copies` set: the version siblings of each placed file that its
    pattern does not match and whose bytes are the file's."""
    siblings: dict[tuple[str, str], list[str]] = {}
    for member in members:
        if is_shared_object_name(member):
            siblings.setdefault(sibling_key(member), []).append(member)
    out = []
    for placed in libraries:
        if placed.member is None:
            out.append(placed)
            continue
        candidates = [
            m for m in siblings.get(sibling_key(placed.member), ()) if m not in placed.matches
        ]
        copies = tuple(m for m in candidates if _same_bytes(tree, placed.member, m))
        if not copies:
            out.append(placed)
            continue
        copied = {m.rpartition("/")[2] for m in copies}
        out.append(
            replace(
                placed,
                copies=copies,
                lookalikes=tuple(n for n in placed.lookalikes if n not in copied),
            )
        )
    return tuple(out)


def _same_bytes(tree: Tree, first: str, second: str) -> bool:
    # The archive keeps what it inflated while it is open (bounded): the inventory's own
    # read of these members afterwards costs nothing more.
    try:
        if tree.size(first) != tree.size(second):
            return False
        if tree.size(first) > IN_MEMORY_BYTES:
            # Compared piece by piece: two copies of a 368 MiB dylib are not held at once.
            return _streamed_digest(tree, first) == _streamed_digest(tree, second)
        return tree.read(first) == tree.read(second)
    except MemberError:
        return False  # unreadable: not known to be the same; the inventory says why


def _streamed_digest(tree: Tree, member: str) -> bytes:
    hasher = hashlib.blake2b(digest_size=16)

    class _Sink:
        def write(self, chunk: bytes) -> int:
            hasher.update(chunk)
            return len(chunk)

    tree.copy_to(member, _Sink())  # type: ignore[arg-type]
    return hasher.digest()
