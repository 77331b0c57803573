"""The include closure of one artifact, from its listing and its config's evaluation.

The public headers are the files under the include directories the config's
imported targets publish (INTERFACE_INCLUDE_DIRECTORIES, as CMake evaluated them for
the artifact's platform, on every route and package that has targets). Each header's
`#include` lines are read (`directives.includes`) and resolved as a consumer's
compiler would with those directories on its `-I` line: a quoted spelling beside the
including file first, then every published directory; then a declared external
package's headers (`headers.external`), then the system's (`system_headers`). No
compiler runs; each header is read once.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.tree import Tree
from shiplint.diagnostics import Location
from shiplint.include_closure.conditions import Evaluator, Truth, platform_macros
from shiplint.include_closure.directives import includes
from shiplint.include_closure.kept import Kept, closure_key, keep_closure, kept_closure
from shiplint.include_closure.model import (
    IncludeClosure,
    IncludeClosureNotChecked,
    IncludeModel,
    Missing,
    UnresolvedInclude,
)
from shiplint.include_closure.system_headers import is_system_header
from shiplint.manifest.model import Manifest

# What a header is called, and the fragments headers include (`.inl`, `.ipp`, `.tcc`).
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc")
# Names of headers a build writes (configure_file's `config.h`, a schema compiler's
# `*_generated.h`), which an install of the source tree's headers leaves behind.
_CONFIGURED = (
    "config.h",
    "*_config.h",
    "*-config.h",
    "*_macros.h",
    "*_export.h",
    "*version.h",
    "*_generated.h",
)
# A header larger than this is not read (a generated table, not a header's includes).
_MAX_HEADER_BYTES = 4 * 1024 * 1024


def include_closure(
    tree: Tree,
    listing: Listing,
    published: Iterable[str],
    manifest: Manifest,
    definitions: Iterable[str] = (),
    unevaluated: str | None = None,
) -> IncludeModel:
    """The closure of the headers under the `published` include directories, with the
    compile `definitions` (`NAME`, `NAME=VALUE`) every consumer of the targets gets;
    `unevaluated` says why no evaluation could publish any."""
    members = set(listing.members)
    published = [d for d in map(_consumer_side, published) if d is not None]
    directories = _directories(published, members)
    where = listing.location(listing.config)
    if not directories:
        return IncludeClosureNotChecked(
            listing.label,
            unevaluated
            or "no imported target of the config publishes an include directory inside the "
            "artifact, so no header is known to be public",
            where,
            headers_shipped=sum(1 for m in listing.members if m.endswith(HEADER_SUFFIXES)),
        )
    headers = _public_headers(listing.members, directories, manifest.headers.exclude)
    ones, undefined = platform_macros(listing.platform)
    given = {d.split("=", 1)[0].strip() for d in definitions if "$<" not in d}
    defined = ones | {name for name in given if name.isidentifier()}
    # Directories outside the artifact a target publishes (Python's headers, found by the
    # config on this machine): a consumer on this machine compiles with them.
    outside = tuple(
        d
        for d in dict.fromkeys(published)
        if os.path.isabs(d) and "$<" not in d and os.path.isdir(d)
    )
    resolver = _Resolver(members, directories, manifest.headers.external, listing, outside)
    decided_by = (str(listing.platform), directories, tuple(sorted(defined)), outside)
    # What the directories outside hold is not in the key: such a closure is never kept.
    key = None if outside else closure_key(tree, members, headers, decided_by, manifest.headers)
    kept = kept_closure(key) if key is not None else None
    if kept is None:
        kept = _read_headers(tree, headers, resolver, defined, undefined - defined, ones)
        kept = (
            kept[0],
            tuple(
                pattern
                for pattern in manifest.headers.required
                if not any(fnmatchcase(spelling, pattern) for spelling in headers.values())
            ),
        )
        if key is not None:
            keep_closure(key, kept)
    found, required = kept
    unresolved = tuple(
        UnresolvedInclude(
            header=header,
            line=line,
            spelling=spelling,
            angled=angled,
            missing=Missing(missing),
            conditional=conditional,
            shipped_at=shipped_at,
            location=where_in(header).at(line),
        )
        for header, entries in found.items()
        for where_in in (_location_of(listing),)
        for line, spelling, angled, missing, conditional, shipped_at in entries
    )
    return IncludeClosure(
        label=listing.label,
        platform=listing.platform,
        include_dirs=directories,
        headers_read=len(headers),
        unresolved=unresolved,
        required_missing=required,
        location=where,
    )


def _location_of(listing: Listing) -> Callable[[str], Location]:
    """Where a member is: the listing's answer when members come from several artifacts
    (companion wheels), else built at once (thousands of headers are located)."""
    if listing.origins:
        return listing.location
    path = listing.path

    def member(name: str) -> Location:
        return Location(path, member=name)

    return member


def _read_headers(
    tree: Tree,
    headers: dict[str, str],
    resolver: _Resolver,
    defined: frozenset[str],
    undefined: frozenset[str],
    ones: frozenset[str],
) -> Kept:
    """Each header read once, its includes judged: per header, what does not resolve."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    for member in headers:
        try:
            data = tree.read(member, _MAX_HEADER_BYTES)
        except MemberError:
            continue  # the listing's own rules report a member the archive cannot give
        evaluator = Evaluator(defined, undefined, resolver.has_include_from(member), ones)
        for include in includes(data.decode("latin-1"), evaluator):
            if resolver.resolves(member, include.spelling, include.angled):
                continue
            missing, shipped_at = resolver.missing(include.spelling)
            found.setdefault(member, []).append(
                (
                    include.line,
                    include.spelling,
                    include.angled,
                    missing.value,
                    include.truth is not Truth.TRUE,
                    shipped_at,
                )
            )
    return found, ()


_BUILD_INTERFACE = re.compile(r"^\$<BUILD_INTERFACE:([^$<>]*)>$")


def _consumer_side(directory: str) -> str | None:
    """A published directory as a consumer's build sees it: `$<BUILD_INTERFACE:x>` is x
    for every project that builds against the target; another generator expression is
    not followed (None)."""
    if "$<" not in directory:
        return directory
    found = _BUILD_INTERFACE.match(directory)
    return found.group(1) if found else None


def _directories(published: Iterable[str], members: set[str]) -> tuple[str, ...]:
    """The published directories that are member directories of the artifact,
    innermost last (a header's spelling is from the innermost directory holding it)."""
    prefixes = {m.rpartition("/")[0] for m in members}
    present: set[str] = set()
    for directory in published:
        if "$<" in directory or directory.startswith("/") or ":" in directory[:3]:
            continue
        normal = posixpath.normpath(directory)
        if normal == "." or normal.startswith(".."):
            continue
        if any(p == normal or p.startswith(normal + "/") for p in prefixes):
            present.add(normal)
    return tuple(sorted(present, key=lambda d: (d.count("/"), d)))


def _public_headers(
    members: Sequence[str], directories: tuple[str, ...], exclude: tuple[str, ...]
) -> dict[str, str]:
    """Every header under a directory, by member, with its spelling from the innermost
    directory holding it; the manifest's `headers.exclude` globs leave headers out."""
    out: dict[str, str] = {}
    for member in members:
        if not member.endswith(HEADER_SUFFIXES):
            continue
        spelling = None
        for directory in directories:
            if member.startswith(directory + "/"):
                spelling = member[len(directory) + 1 :]
        if spelling is None or any(fnmatchcase(spelling, g) for g in exclude):
            continue
        out[member] = spelling
    return out


class _Resolver:
    def __init__(
        self,
        members: set[str],
        directories: tuple[str, ...],
        external: tuple[str, ...],
        listing: Listing,
        outside: tuple[str, ...] = (),
    ) -> None:
        self._outside = outside
        self._members = members
        self._directories = directories
        self._external = external
        self._listing = listing
        self._os = listing.platform.os if listing.platform else None
        self._by_name: dict[str, list[str]] | None = None
        self._found: dict[str, bool] = {}

    def resolves(self, header: str, spelling: str, angled: bool) -> bool:
        if not angled:
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(header), spelling))
            if beside in self._members:
                return True
        # Most spellings recur across headers (`<vector>`, the package's own headers).
        known = self._found.get(spelling)
        if known is None:
            known = self._found[spelling] = self._elsewhere(spelling)
        return known

    def _elsewhere(self, spelling: str) -> bool:
        """Whether an angled spelling (or a quoted one not beside its header) resolves."""
        if any(f"{d}/{spelling}" in self._members for d in self._directories):
            return True
        normal = posixpath.normpath(spelling)
        if normal != spelling and any(f"{d}/{normal}" in self._members for d in self._directories):
            return True
        if any(fnmatchcase(spelling, g) for g in self._external):
            return True
        if any(os.path.isfile(os.path.join(d, spelling)) for d in self._outside):
            return True
        return is_system_header(spelling, self._os)

    def has_include_from(self, header: str) -> _HasInclude:
        return _HasInclude(self, header)

    def missing(self, spelling: str) -> tuple[Missing, str | None]:
        """Which kind of missing an unresolved spelling is, and where the artifact has
        the file when it has it outside the include directories."""
        # A bare name found elsewhere is as likely another library's file of that name.
        elsewhere = self._shipped_elsewhere(spelling) if "/" in spelling else None
        if elsewhere is not None:
            return Missing.OUTSIDE_INCLUDE_DIRS, elsewhere
        if any(fnmatchcase(posixpath.basename(spelling), g) for g in _CONFIGURED):
            return Missing.CONFIGURED, None
        return Missing.NOT_SHIPPED, None

    def _shipped_elsewhere(self, spelling: str) -> str | None:
        if self._by_name is None:
            self._by_name = {}
            for member in sorted(self._members):
                self._by_name.setdefault(posixpath.basename(member), []).append(member)
        normal = posixpath.normpath(spelling)
        for member in self._by_name.get(posixpath.basename(normal), ()):
            if member == normal or member.endswith("/" + normal):
                return member
        return None


class _HasInclude:
    """`__has_include` inside one header: whether the spelling resolves for a consumer."""

    def __init__(self, resolver: _Resolver, header: str) -> None:
        self._resolver = resolver
        self._header = header

    def __call__(self, spelling: str, angled: bool) -> bool:
        return self._resolver.resolves(self._header, spelling, angled)
