"""How the loader would resolve a binary's dependencies inside an artifact, each on its own OS.

`link_graph` works it out once per artifact, for the inventory (`Inventory.links`):
every RUNPATH / RPATH / LC_RPATH entry expanded (`$ORIGIN`, `@loader_path`), every
NEEDED / LC_LOAD_DYLIB / PE import resolved to a member of the artifact or to an
allowed external, and the members each binary loads (its NEEDED closure inside the
package, with the chain to each). Every area reads that graph; none walks it again.

Paths are artifact-relative posix paths. For a wheel the artifact root is
site-packages, so a directory outside it named after a provider of the
manifest's `externals.provided` (`torch/lib`) is another wheel's, not a hole.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Mapping
from fnmatch import fnmatchcase

from shiplint.artifacts.archive import ArtifactKind
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.model import (
    BinaryLinks,
    EntryKind,
    LinkGraph,
    Resolution,
    Resolved,
    SearchEntry,
)
from shiplint.artifacts.paths import join_within
from shiplint.artifacts.records import BinaryFormat, BinaryRecord
from shiplint.artifacts.system_policy import allowed_by
from shiplint.manifest.model import Externals

_ORIGIN_TOKENS = ("${ORIGIN}", "$ORIGIN", "@loader_path")
# macOS install names the OS provides (the dyld shared cache): never shipped, never missing.
_MACOS_SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")


def _origin(binary: BinaryRecord) -> str:
    return binary.name.rpartition("/")[0]


def expand_entry(raw: str, binary: BinaryRecord, externals: Externals, wheel: bool) -> SearchEntry:
    """One RUNPATH / RPATH / LC_RPATH entry of `binary`, expanded against its own directory."""
    text = raw
    for token in _ORIGIN_TOKENS:
        if text.startswith(token):
            text = "." + text[len(token) :]
            break
    else:
        if text.startswith("/"):
            return SearchEntry(raw, EntryKind.ABSOLUTE, None)
        # A relative entry without $ORIGIN is relative to the process's working directory.
        return SearchEntry(raw, EntryKind.UNEXPANDABLE, None)
    if "$" in text or "@" in text:
        return SearchEntry(raw, EntryKind.UNEXPANDABLE, None)
    directory = join_within(_origin(binary), text)
    if directory is None:
        return SearchEntry(raw, EntryKind.ESCAPES, None)
    providers = {p.provider for p in externals.provided}
    first = directory.split("/", 1)[0]
    if wheel and first in providers:
        return SearchEntry(raw, EntryKind.PROVIDER, directory)
    return SearchEntry(raw, EntryKind.INSIDE, directory)


def search_path(binary: BinaryRecord, externals: Externals, wheel: bool) -> tuple[SearchEntry, ...]:
    """The directories the loader searches for `binary`'s dependencies, in order.

    ELF: DT_RPATH only when there is no DT_RUNPATH (the loader ignores it then).
    """
    raw = binary.runpath or binary.rpath
    return tuple(expand_entry(entry, binary, externals, wheel) for entry in raw)


def allowed_external(
    model: Listing, name: str, externals: Externals, case_insensitive: bool = False
) -> bool:
    """Whether `name` is a system library (listed, or allowed by a named policy) or provided."""
    os_name = model.platform.os if model.platform is not None else None
    policy = (
        allowed_by(externals.policies, model.platform_tag, os_name) if externals.policies else ()
    )
    patterns = (
        *externals.system,
        *policy,
        *(p for pr in externals.provided for p in pr.patterns),
    )
    return matches_any(name.lower() if case_insensitive else name, patterns, case_insensitive)


def matches_any(name: str, patterns: tuple[str, ...], lower: bool = False) -> bool:
    """Whether `name` matches one of the globs `patterns` (lower-cased first when `lower`)."""
    exact, globs = _split_globs(patterns, lower)
    return name in exact or any(fnmatchcase(name, p) for p in globs)


@functools.lru_cache(maxsize=256)
def _split_globs(patterns: tuple[str, ...], lower: bool) -> tuple[frozenset[str], tuple[str, ...]]:
    """The patterns without a wildcard (most system-library names), which match only
    themselves, apart from the globs: a set lookup, not a glob compiled and tried each."""
    if lower:
        patterns = tuple(p.lower() for p in patterns)
    globs = tuple(p for p in patterns if any(c in p for c in "*?["))
    return frozenset(patterns) - frozenset(globs), globs


def resolve_needed(
    model: Listing, binary: BinaryRecord, needed: str, externals: Externals
) -> Resolved:
    """Where the loader of `binary`'s own OS would find the dependency `needed`."""
    wheel = model.kind is ArtifactKind.WHEEL
    members = model.member_set
    if binary.format is BinaryFormat.PE:
        # Windows: the DLL's own directory first (case-insensitive), then the system.
        directory = _origin(binary)
        wanted = f"{directory}/{needed}".lower() if directory else needed.lower()
        member = model.members_by_lower_name.get(wanted)
        if member is not None:
            return Resolved(needed, Resolution.PACKAGE, member)
        if allowed_external(model, needed, externals, case_insensitive=True):
            return Resolved(needed, Resolution.EXTERNAL)
        return Resolved(needed, Resolution.UNRESOLVED)
    if binary.format is BinaryFormat.MACHO:
        return _resolve_macho(model, binary, needed, externals, members, wheel)
    # ELF: a name with a slash is a path (relative to the working directory): never portable.
    if "/" not in needed:
        for entry in search_path(binary, externals, wheel):
            if entry.kind is EntryKind.INSIDE and entry.directory is not None:
                candidate = f"{entry.directory}/{needed}" if entry.directory else needed
                if candidate in members:
                    return Resolved(needed, Resolution.PACKAGE, candidate)
        if allowed_external(model, needed, externals):
            return Resolved(needed, Resolution.EXTERNAL)
    return Resolved(needed, Resolution.UNRESOLVED)


def _resolve_macho(
    model: Listing,
    binary: BinaryRecord,
    needed: str,
    externals: Externals,
    members: frozenset[str],
    wheel: bool,
) -> Resolved:
    base = needed.rsplit("/", 1)[-1]
    if needed.startswith("@rpath/"):
        rest = needed[len("@rpath/") :]
        for entry in search_path(binary, externals, wheel):
            if entry.kind is EntryKind.INSIDE and entry.directory is not None:
                candidate = join_within(entry.directory, rest)
                if candidate is not None and candidate in members:
                    return Resolved(needed, Resolution.PACKAGE, candidate)
    elif needed.startswith("@loader_path/"):
        candidate = join_within(_origin(binary), needed[len("@loader_path/") :])
        if candidate is not None and candidate in members:
            return Resolved(needed, Resolution.PACKAGE, candidate)
    elif needed.startswith(_MACOS_SYSTEM_PREFIXES):
        return Resolved(needed, Resolution.EXTERNAL)
    if not needed.startswith("/") and allowed_external(model, base, externals):
        return Resolved(needed, Resolution.EXTERNAL)
    return Resolved(needed, Resolution.UNRESOLVED)


def link_graph(
    listing: Listing, binaries: tuple[BinaryRecord, ...], externals: Externals
) -> LinkGraph:
    """Resolve every binary's entries and NEEDED once, then walk each closure once."""
    wheel = listing.kind is ArtifactKind.WHEEL
    resolved = {
        b.name: tuple(resolve_needed(listing, b, needed, externals) for needed in b.needed)
        for b in binaries
    }
    links = {
        b.name: BinaryLinks(
            member=b.name,
            entries=tuple(expand_entry(raw, b, externals, wheel) for raw in (*b.runpath, *b.rpath)),
            resolved=resolved[b.name],
            closure=_closure(b.name, resolved),
        )
        for b in binaries
    }
    return LinkGraph(links)


def _closure(
    start: str, resolved: Mapping[str, tuple[Resolved, ...]]
) -> dict[str, tuple[str, ...]]:
    chains: dict[str, tuple[str, ...]] = {start: (start,)}
    queue: deque[str] = deque([start])
    while queue:
        current = queue.popleft()
        for entry in resolved.get(current, ()):
            member = entry.member
            if member is None or member in chains:
                continue
            chains[member] = (*chains[current], member)
            if member in resolved:
                queue.append(member)
    return chains
