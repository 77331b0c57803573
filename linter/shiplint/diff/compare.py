"""Compare two builds' snapshots, platform by platform: a pure function of the snapshots."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from shiplint.diff.model import Change, ChangeKind, Diff, Problem
from shiplint.plural import counted
from shiplint.snapshot import LibrarySnapshot, RouteSnapshot, Snapshot, by_platform

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
    problems: list[Problem] = []
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
        changes.extend(_externals(platform, before[platform], after[platform]))
        for found in _routes(platform, before[platform].routes, after[platform].routes):
            if isinstance(found, Problem):
                problems.append(found)
            else:
                changes.append(found)
    return Diff(
        tuple(old_labels) or tuple(s.label for s in old),
        tuple(new_labels) or tuple(s.label for s in new),
        tuple(sorted(changes, key=Change.sort_key)),
        tuple(sorted(problems, key=Problem.sort_key)),
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
        yield from _operators(platform, old, old.operators or frozenset(), frozenset(), after)
    for new in added:
        yield Change(
            ChangeKind.LIBRARY_ADDED,
            platform,
            new.key,
            f"{new.member} ({_described(new)}) is new",
        )
        yield from _operators(platform, new, frozenset(), new.operators or frozenset(), after)
    for old, new in pairs:
        yield from _library(platform, old, new, after)
        if old.operators is not None and new.operators is not None:
            yield from _operators(platform, new, old.operators, new.operators, after)


def _operators(
    platform: str,
    library: LibrarySnapshot,
    was: frozenset[str],
    now: frozenset[str],
    after: Snapshot,
) -> Iterator[Change]:
    """The operators `library` stopped and started registering, one change per namespace.
    One that a library it loads now registers has moved (loading it still registers
    it); one registered elsewhere in the build is named with where it went."""
    providers = _loaded_libraries(library, after)
    elsewhere = {
        op: lib.file_name
        for lib in sorted(after.libraries.values(), key=lambda lib: lib.member, reverse=True)
        if lib.member != library.member
        for op in lib.operators or ()
    }
    gone = sorted(was - now)
    moved = [op for op in gone if any(op in (p.operators or ()) for p in providers)]
    removed = [op for op in gone if op not in set(moved)]
    for kind, names in (
        (ChangeKind.OPERATORS_REMOVED, removed),
        (ChangeKind.OPERATORS_MOVED, moved),
        (ChangeKind.OPERATORS_ADDED, sorted(now - was)),
    ):
        for namespace, ops in _by_namespace(names).items():
            listed = _listed(tuple(ops[:SHOWN]), len(ops))
            some = counted(len(ops), f"{namespace} operator")
            if kind is ChangeKind.OPERATORS_REMOVED:
                where = sorted({elsewhere[op] for op in ops if op in elsewhere})
                now_in = f" (now registered by {', '.join(where)})" if where else ""
                message = f"{library.member} no longer registers {some}{now_in}: {listed}"
            elif kind is ChangeKind.OPERATORS_MOVED:
                by = sorted(p.file_name for p in providers if set(ops) & (p.operators or set()))
                message = (
                    f"{library.member} no longer registers {some} itself; {', '.join(by)}, "
                    f"which it loads, does (loading it still registers them): {listed}"
                )
            else:
                new = counted(len(ops), f"new {namespace} operator")
                message = f"{library.member} registers {new}: {listed}"
            yield Change(
                kind,
                platform,
                library.key,
                message,
                count=len(ops),
                names=tuple(ops[:SHOWN]),
            )


def _by_namespace(operators: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in operators:
        out.setdefault(name.split("::", 1)[0], []).append(name)
    return out


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
) -> Iterator[Change | Problem]:
    for side, routes in (("old", before), ("new", after)):
        for route in sorted(routes):
            snap = routes[route]
            if snap.problem is not None:
                was = before.get(route)
                # Only a route that worked before and fails now fails the diff.
                regressed = side == "new" and was is not None and was.problem is None
                yield Problem(side, platform, route, snap.problem, snap.config, regressed)
    # A route whose evaluation failed is not compared: what it did not publish was not removed.
    compared = [
        route
        for route in sorted(before.keys() | after.keys())
        if all(r.failure is None for r in (before.get(route), after.get(route)) if r is not None)
    ]
    yield from _appeared(
        platform,
        (r for r in compared if r in before),
        (r for r in compared if r in after),
        (ChangeKind.ROUTE_REMOVED, ChangeKind.ROUTE_ADDED),
        (
            lambda route: f"find_package no longer succeeds on route {route}",
            lambda route: f"find_package now succeeds on route {route}",
        ),
        route_of=lambda route: route,
    )
    for route in compared:
        if route in before and route in after:
            yield from _route(platform, route, before[route], after[route])


def _appeared(
    platform: str,
    was: Iterable[str],
    now: Iterable[str],
    kinds: tuple[ChangeKind, ChangeKind],
    messages: tuple[Callable[[str], str], Callable[[str], str]],
    route: str | None = None,
    subject: str | None = None,
    route_of: Callable[[str], str | None] | None = None,
    names_of: Callable[[str], tuple[str, ...]] | None = None,
) -> Iterator[Change]:
    """A change of the first kind for each name only `was` holds, then one of the second
    kind for each name only `now` holds. The name is the change's subject, or, when
    `subject` is given (a variable whose members changed), its one name; `names_of`
    gives the names a change lists otherwise."""
    before, after = set(was), set(now)
    for names, kind, message in (
        (before - after, kinds[0], messages[0]),
        (after - before, kinds[1], messages[1]),
    ):
        for name in sorted(names):
            yield Change(
                kind,
                platform,
                subject or name,
                message(name),
                route=route_of(name) if route_of is not None else route,
                names=(name,) if subject is not None else names_of(name) if names_of else (),
            )


def _route(platform: str, route: str, old: RouteSnapshot, new: RouteSnapshot) -> Iterator[Change]:
    where = f"(route {route}, CMake {new.cmake_version})"
    yield from _aggregates(platform, route, where, old, new)
    if old.refused is None and new.refused is None:
        yield from _published(platform, route, where, old, new)
    else:
        # What the requests published is unknown on one side; the plain find_package's
        # targets are known on both.
        yield from _targets(platform, route, where, old.plain_targets, new.plain_targets)


def _published(
    platform: str, route: str, where: str, old: RouteSnapshot, new: RouteSnapshot
) -> Iterator[Change]:
    """What the requests for components published: the components, targets and variables."""
    yield from _appeared(
        platform,
        old.components,
        new.components,
        (ChangeKind.COMPONENT_REMOVED, ChangeKind.COMPONENT_ADDED),
        (
            lambda c: f"component {c} is no longer published {where}",
            lambda c: f"component {c} is new {where}",
        ),
        route,
    )
    yield from _targets(platform, route, where, old.targets, new.targets)
    yield from _component_variables(platform, route, where, old, new)


def _targets(
    platform: str, route: str, where: str, was: frozenset[str], now: frozenset[str]
) -> Iterator[Change]:
    yield from _appeared(
        platform,
        was,
        now,
        (ChangeKind.TARGET_REMOVED, ChangeKind.TARGET_ADDED),
        (
            lambda t: f"imported target {t} is gone {where}",
            lambda t: f"imported target {t} is new {where}",
        ),
        route,
    )


def _aggregates(
    platform: str, route: str, where: str, old: RouteSnapshot, new: RouteSnapshot
) -> Iterator[Change]:
    for variable in sorted(old.aggregates.keys() | new.aggregates.keys()):
        yield from _appeared(
            platform,
            old.aggregates.get(variable, frozenset()),
            new.aggregates.get(variable, frozenset()),
            (ChangeKind.AGGREGATE_LEFT, ChangeKind.AGGREGATE_ENTERED),
            _membership(variable, where),
            route,
            subject=variable,
        )


def _membership(variable: str, where: str) -> tuple[Callable[[str], str], Callable[[str], str]]:
    return (
        lambda member: f"{member} left {variable} {where}",
        lambda member: f"{member} entered {variable} {where}",
    )


def _component_variables(
    platform: str, route: str, where: str, old: RouteSnapshot, new: RouteSnapshot
) -> Iterator[Change]:
    was, now = old.component_variables, new.component_variables
    yield from _appeared(
        platform,
        was,
        now,
        (ChangeKind.COMPONENT_VARIABLE_REMOVED, ChangeKind.COMPONENT_VARIABLE_ADDED),
        (
            lambda v: f"{v} is no longer set (it named {_members(was[v])}) {where}",
            lambda v: f"{v} is new: it names {_members(now[v])} {where}",
        ),
        route,
        names_of=lambda v: tuple(sorted(was.get(v) or now[v])),
    )
    for variable in sorted(was.keys() & now.keys()):
        if was[variable] != now[variable]:
            yield Change(
                ChangeKind.COMPONENT_VARIABLE_CHANGED,
                platform,
                variable,
                f"{variable} names {_members(now[variable])} (was {_members(was[variable])}) "
                f"{where}",
                route=route,
                names=tuple(sorted(now[variable])),
            )


def _members(values: frozenset[str]) -> str:
    return ", ".join(sorted(values)) or "nothing"


def _externals(platform: str, before: Snapshot, after: Snapshot) -> Iterator[Change]:
    """NEEDED entries no library of the build resolves: what the consumer's system (or
    another package) must now provide, or no longer has to."""
    was, now = before.externals, after.externals
    yield from _appeared(
        platform,
        was,
        now,
        (ChangeKind.EXTERNAL_LOST, ChangeKind.EXTERNAL_GAINED),
        (
            lambda name: (
                f"{name} is no longer needed from outside the build (needed by {_files(was[name])})"
            ),
            lambda name: f"{name} is now needed from outside the build by {_files(now[name])}",
        ),
        names_of=lambda name: now.get(name) or was[name],
    )


def _files(members: tuple[str, ...]) -> str:
    names = [m.rsplit("/", 1)[-1] for m in members]
    return _listed(tuple(names[:SHOWN]), len(names))
