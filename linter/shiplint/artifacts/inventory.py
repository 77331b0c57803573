"""Build the inventory of one open artifact: list it, place the manifest's libraries, find
its installed configs, read the binaries the rules need, resolve their links.

`list_artifact` is the cheap part (names, the wheel tag or a header sniff, no
binary parsed): enough for the CMake evaluation. `read_inventory` adds the binary
records and the link graph. Read: every member the manifest names on this
platform, and every other member named like a shared object (to report undeclared
ones and check their linkage). Not read: Python files, data, configs.
"""

from __future__ import annotations

from shiplint.artifacts.archive import ZipTree
from shiplint.artifacts.configs import installed_configs
from shiplint.artifacts.copies import place_with_copies, sibling_key
from shiplint.artifacts.import_library import import_libraries
from shiplint.artifacts.integrity import Problem
from shiplint.artifacts.linkage import link_graph
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.metadata import read_metadata
from shiplint.artifacts.model import Inventory, Unreadable
from shiplint.artifacts.placement import is_shared_object_name
from shiplint.artifacts.platform import artifact_platform
from shiplint.artifacts.prefix import PrefixTree
from shiplint.artifacts.reading import IN_PROCESS, Reader
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.artifacts.tree import Tree
from shiplint.manifest.model import Manifest


def list_artifact(tree: Tree, manifest: Manifest) -> Listing:
    members = tree.names()
    platform, source = artifact_platform(tree, members)
    return Listing(
        label=tree.label,
        path=tree.shown,
        kind=tree.kind,
        platform=platform,
        platform_source=source,
        members=members,
        libraries=(
            place_with_copies(tree, manifest, platform, members) if platform is not None else ()
        ),
        configs=installed_configs(manifest, members),
        rejected=tree.rejected,
        platform_tag=tree.platform_tag,
        origins=tree.origins() if isinstance(tree, PrefixTree) else (),
    )


def read_inventory(
    tree: Tree,
    manifest: Manifest,
    reader: Reader = IN_PROCESS,
    listing: Listing | None = None,
) -> Inventory:
    """The whole inventory; `listing` when the caller already listed the tree."""
    listing = listing or list_artifact(tree, manifest)
    wanted = [m for m in listing.members if is_shared_object_name(m)]
    wanted += [p.member for p in listing.libraries if p.member is not None]
    # Only a member with a version sibling can be a copy of one: the others' bytes (most
    # of a wheel's) are not hashed.
    reads = reader.records(tree, wanted, digested=_with_siblings(wanted))
    records = {m: r.record for m, r in reads.items() if isinstance(r.record, BinaryRecord)}
    digests = {m: r.digest for m, r in reads.items() if r.digest is not None}
    placed = {p.member for p in listing.libraries if p.member is not None}
    copies = _copies(digests, records, placed)
    copied = {copy for copy, _ in copies}
    binaries = tuple(records[m] for m in sorted(records) if m not in copied)
    return Inventory(
        listing=listing,
        binaries=binaries,
        links=link_graph(listing, binaries, manifest.externals),
        unreadable=tuple(
            Unreadable(m, r.record.reason)
            for m, r in sorted(reads.items())
            if isinstance(r.record, BinaryError)
        ),
        copies=copies,
        metadata=read_metadata(tree, listing.members),
        import_libraries=(
            import_libraries(tree, listing.members)
            if listing.platform is not None and listing.platform.os == "windows"
            else ()
        ),
        integrity=_integrity(tree),
    )


def _integrity(tree: Tree) -> tuple[tuple[str, Problem], ...]:
    archives = tree.archives if isinstance(tree, PrefixTree) else (tree,)
    return tuple(
        (archive.shown, problem)
        for archive in archives
        if isinstance(archive, ZipTree)
        for problem in archive.integrity()
    )


def _with_siblings(members: list[str]) -> set[str]:
    """The members that share their directory and stem with another one."""
    groups: dict[tuple[str, str], list[str]] = {}
    for member in dict.fromkeys(members):
        groups.setdefault(sibling_key(member), []).append(member)
    return {m for group in groups.values() if len(group) > 1 for m in group}


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
        groups.setdefault((*sibling_key(member), digest), []).append(member)
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
