"""Compare two builds' snapshots, platform by platform: a pure function of the snapshots."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from shiplint.diff.model import Change, ChangeKind, Diff
from shiplint.diff.snapshot import LibrarySnapshot, RouteSnapshot, Snapshot, by_platform
from shiplint.plural import counted

# How many changed symbol names a change shows (the count says how many there are).
SHOWN = 5
# Template-heavy C++ names run to thousands of characters.
LONGEST = 120


def compare(
    old: Sequence[Snapshot],
    new: Sequence[Snapshot],
    old_labels: Sequence[str] = (),
    new_labels: Sequence[str] = (),
) -> Diff:
    before, after = by_platform(old), by_platform(new)
    changes: list[Change] = []
    for platform in sorted(before.keys() - after.keys()):
        changes.append(
            Change(
                ChangeKind.PLATFORM_REMOVED,
                platform,
                platform,
                f"no {platform} build any more (was {before[platform].label})",
            )
        )
    for platform in sorted(after.keys() - before.keys()):
        changes.append(
            Change(
                ChangeKind.PLATFORM_ADDED,
                platform,
                platform,
                f"new {platform} build ({after[platform].label})",
            )
        )
    for platform in sorted(before.keys() & after.keys()):
        changes.extend(_libraries(platform, before[platform], after[platform]))
        changes.extend(_routes(platform, before[platform].routes, after[platform].routes))
    return Diff(
        tuple(old_labels) or tuple(s.label for s in old),
        tuple(new_labels) or tuple(s.label for s in new),
        tuple(sorted(changes, key=Change.sort_key)),
    )


def _stem(file_name: str) -> str:
    """`libx` of `libx.so.1.2`, `libx.1.dylib`, `x.dll`: the name without versions or suffix."""
    base = file_name.split(".so", 1)[0] if ".so" in file_name else file_name.rsplit(".", 1)[0]
    return re.sub(r"([.-]\d+)+$", "", base)


def _pair_renames(
    removed: list[LibrarySnapshot], added: list[LibrarySnapshot]
) -> list[tuple[LibrarySnapshot, LibrarySnapshot]]:
    """A removed and an added library that are one library renamed: the same SONAME or
    the same name without its versions in the same directory; else the added library
    whose exported symbols overlap the removed one's most, when they share more than
    half of both (a library that only links another one in statically shares less)."""
    pairs = []
    for match in (_same_name, _same_symbols):
        for old in list(removed):
            new = match(old, added)
            if new is not None:
                pairs.append((old, new))
                removed.remove(old)
                added.remove(new)
    return pairs


def _same_name(old: LibrarySnapshot, added: list[LibrarySnapshot]) -> LibrarySnapshot | None:
    directory = old.member.rpartition("/")[0]
    for new in added:
        if old.soname is not None and old.soname == new.soname:
            return new
        if new.member.rpartition("/")[0] == directory and _stem(new.file_name) == _stem(
            old.file_name
        ):
            return new
    return None


def _same_symbols(old: LibrarySnapshot, added: list[LibrarySnapshot]) -> LibrarySnapshot | None:
    def similarity(new: LibrarySnapshot) -> float:
        union = len(old.exported.keys() | new.exported.keys())
        return len(old.exported.keys() & new.exported.keys()) / union if union else 0.0

    best = max(added, key=similarity, default=None)
    return best if best is not None and similarity(best) > 0.5 else None


def _libraries(platform: str, before: Snapshot, after: Snapshot) -> Iterator[Change]:
    old_libs, new_libs = before.libraries, after.libraries
    removed = [old_libs[k] for k in sorted(old_libs.keys() - new_libs.keys())]
    added = [new_libs[k] for k in sorted(new_libs.keys() - old_libs.keys())]
    pairs = [(old_libs[k], new_libs[k]) for k in sorted(old_libs.keys() & new_libs.keys())]
    for old, new in _pair_renames(removed, added):
        yield Change(
            ChangeKind.LIBRARY_RENAMED,
            platform,
            old.key,
            f"{old.member} is now {new.member}",
            names=(old.member, new.member),
        )
        pairs.append((old, new))
    for old in removed:
        yield Change(
            ChangeKind.LIBRARY_REMOVED,
            platform,
            old.key,
            f"{old.member} ({_described(old)}) is gone",
        )
    for new in added:
        yield Change(
            ChangeKind.LIBRARY_ADDED,
            platform,
            new.key,
            f"{new.member} ({_described(new)}) is new",
        )
    for old, new in pairs:
        yield from _library(platform, old, new, after)


def _described(library: LibrarySnapshot) -> str:
    soname = f", SONAME {library.soname}" if library.soname else ""
    return f"{library.file_type}{soname}, {counted(len(library.exported), 'exported symbol')}"


def _library(
    platform: str, old: LibrarySnapshot, new: LibrarySnapshot, after: Snapshot
) -> Iterator[Change]:
    key = new.key
    if old.soname != new.soname:
        yield Change(
            ChangeKind.SONAME_CHANGED,
            platform,
            key,
            f"{new.member}: SONAME {old.soname or '(none)'} -> {new.soname or '(none)'}; "
            "consumers linked against the old one no longer load it",
            names=(old.soname or "", new.soname or ""),
        )
    if old.file_type != new.file_type:
        yield Change(
            ChangeKind.TYPE_CHANGED,
            platform,
            key,
            f"{new.member}: {old.file_type} -> {new.file_type}",
        )
    gained = [n for n in new.needed if n not in old.needed]
    lost = [n for n in old.needed if n not in new.needed]
    if gained:
        yield Change(
            ChangeKind.NEEDED_GAINED,
            platform,
            key,
            f"{new.member} now needs {', '.join(gained)}",
            count=len(gained),
            names=tuple(gained),
        )
    if lost:
        yield Change(
            ChangeKind.NEEDED_LOST,
            platform,
            key,
            f"{new.member} no longer needs {', '.join(lost)}",
            count=len(lost),
            names=tuple(lost),
        )
    gone = sorted(old.exported.keys() - new.exported.keys())
    added = sorted(new.exported.keys() - old.exported.keys())
    providers = _loaded_libraries(new, after)
    moved = [k for k in gone if any(k in p.exported for p in providers)]
    removed = [k for k in gone if k not in set(moved)]
    if removed:
        shown = _first_names(old, removed)
        yield Change(
            ChangeKind.SYMBOLS_REMOVED,
            platform,
            key,
            f"{new.member} no longer exports {counted(len(removed), 'symbol')}: "
            f"{_listed(shown, len(removed))}",
            count=len(removed),
            names=shown,
        )
    if moved:
        shown = _first_names(old, moved)
        sources = ", ".join(p.file_name for p in providers if any(k in p.exported for k in moved))
        yield Change(
            ChangeKind.SYMBOLS_MOVED,
            platform,
            key,
            f"{new.member} no longer exports {counted(len(moved), 'symbol')} that {sources} "
            f"exports, which it loads (the loader still finds them): "
            f"{_listed(shown, len(moved))}",
            count=len(moved),
            names=shown,
        )
    if added:
        shown = _first_names(new, added)
        yield Change(
            ChangeKind.SYMBOLS_ADDED,
            platform,
            key,
            f"{new.member} exports {counted(len(added), 'new symbol')}: "
            f"{_listed(shown, len(added))}",
            count=len(added),
            names=shown,
        )


def _first_names(library: LibrarySnapshot, keys: list[tuple[str, str | None]]) -> tuple[str, ...]:
    """The first few distinct names shown (a constructor's C1 and C2 demangle alike)."""
    shown: list[str] = []
    for key in keys:
        symbol = library.exported[key]
        name = symbol.demangled or symbol.name
        name = f"{name}@{symbol.version}" if symbol.version else name
        if name not in shown:
            shown.append(name)
        if len(shown) == SHOWN:
            break
    return tuple(shown)


def _loaded_libraries(library: LibrarySnapshot, side: Snapshot) -> list[LibrarySnapshot]:
    """The libraries of the same build that `library` loads (the inventory's closure)."""
    loads = set(library.loads)
    return sorted(
        (lib for lib in side.libraries.values() if lib.member in loads), key=lambda lib: lib.member
    )


def _listed(shown: tuple[str, ...], total: int) -> str:
    """The names for a message: each cut at LONGEST characters (the JSON keeps them whole)."""
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    cut = [name if len(name) <= LONGEST else name[: LONGEST - 1] + "…" for name in shown]
    return ", ".join(cut) + more


def _routes(
    platform: str, before: dict[str, RouteSnapshot], after: dict[str, RouteSnapshot]
) -> Iterator[Change]:
    for route in sorted(before.keys() - after.keys()):
        yield Change(
            ChangeKind.ROUTE_REMOVED,
            platform,
            route,
            f"find_package no longer succeeds on route {route}",
            route=route,
        )
    for route in sorted(after.keys() - before.keys()):
        yield Change(
            ChangeKind.ROUTE_ADDED,
            platform,
            route,
            f"find_package now succeeds on route {route}",
            route=route,
        )
    for route in sorted(before.keys() & after.keys()):
        yield from _route(platform, route, before[route], after[route])


def _route(platform: str, route: str, old: RouteSnapshot, new: RouteSnapshot) -> Iterator[Change]:
    where = f"(route {route}, CMake {new.cmake_version})"
    for component in sorted(old.components - new.components):
        yield Change(
            ChangeKind.COMPONENT_REMOVED,
            platform,
            component,
            f"component {component} is no longer published {where}",
            route=route,
        )
    for component in sorted(new.components - old.components):
        yield Change(
            ChangeKind.COMPONENT_ADDED,
            platform,
            component,
            f"component {component} is new {where}",
            route=route,
        )
    for target in sorted(old.targets - new.targets):
        yield Change(
            ChangeKind.TARGET_REMOVED,
            platform,
            target,
            f"imported target {target} is gone {where}",
            route=route,
        )
    for target in sorted(new.targets - old.targets):
        yield Change(
            ChangeKind.TARGET_ADDED,
            platform,
            target,
            f"imported target {target} is new {where}",
            route=route,
        )
    for variable in sorted(old.aggregates.keys() | new.aggregates.keys()):
        was = old.aggregates.get(variable, frozenset())
        now = new.aggregates.get(variable, frozenset())
        for member in sorted(was - now):
            yield Change(
                ChangeKind.AGGREGATE_LEFT,
                platform,
                variable,
                f"{member} left {variable} {where}",
                route=route,
                names=(member,),
            )
        for member in sorted(now - was):
            yield Change(
                ChangeKind.AGGREGATE_ENTERED,
                platform,
                variable,
                f"{member} entered {variable} {where}",
                route=route,
                names=(member,),
            )
