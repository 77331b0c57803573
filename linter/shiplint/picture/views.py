"""What a picture shows of one platform's build: its snapshot, as the manifest names it,
with the findings of a check or the changes of a diff marked."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from shiplint.diagnostics import Diagnostic, Severity
from shiplint.diff.model import Change, ChangeKind
from shiplint.manifest.model import LibraryKind, Manifest
from shiplint.picture.package import (
    ComponentView,
    LibraryView,
    Mark,
    Membership,
    Noted,
    View,
)
from shiplint.plural import counted
from shiplint.snapshot import LibrarySnapshot, Snapshot

GROUPS = {LibraryKind.PYTHON_EXTENSION: "Python extensions", LibraryKind.PLUGIN: "plugins"}
# A Python extension's file name, for a build read without a manifest.
_EXTENSION = re.compile(r"\.(cpython-[^.]+|abi3|cp\d+-[^.]+)\.(so|pyd)$|\.pyd$")


def view(snapshot: Snapshot, manifest: Manifest, title: str = "") -> View:
    """The platform's build as drawn, nothing marked."""
    libraries = tuple(
        LibraryView(lib.key, _name(lib), _group(lib, manifest))
        for lib in sorted(snapshot.libraries.values(), key=lambda lib: lib.member)
    )
    by_member = {lib.member: lib.key for lib in snapshot.libraries.values()}
    needs = tuple(
        (lib.key, by_member[dependency])
        for lib in sorted(snapshot.libraries.values(), key=lambda lib: lib.member)
        for dependency in lib.dependencies
        if dependency in by_member and by_member[dependency] != lib.key
    )
    memberships = tuple(
        Membership(route, variable, member)
        for route, snap in sorted(snapshot.routes.items())
        for variable, members in sorted(snap.aggregates.items())
        for member in sorted(members)
    )
    return View(
        title=title or f"{snapshot.platform}: {snapshot.label}",
        libraries=libraries,
        needs=needs,
        components=_components(snapshot, manifest, (m.component for m in memberships)),
        memberships=memberships,
        variables={},
        routes={
            route: f"route {route}, CMake {snap.cmake_version}"
            for route, snap in snapshot.routes.items()
        },
    )


def _name(library: LibrarySnapshot) -> str:
    """The file name; a Python extension's without its ABI tag, which every one repeats."""
    return _EXTENSION.sub("", library.file_name) or library.file_name


def _group(library: LibrarySnapshot, manifest: Manifest) -> str | None:
    known = manifest.library(library.key)
    if known is not None:
        return GROUPS.get(known.kind)
    return GROUPS[LibraryKind.PYTHON_EXTENSION] if _EXTENSION.search(library.file_name) else None


def _components(
    snapshot: Snapshot, manifest: Manifest, members: Iterable[str], extra: Iterable[str] = ()
) -> tuple[ComponentView, ...]:
    """The manifest's components whose library the build ships, and whatever a route
    publishes or an aggregate carries besides."""
    names = [
        c.name
        for c in manifest.components
        if (owner := manifest.owner_of(c.name)) is not None and owner.name in snapshot.libraries
    ]
    for route in snapshot.routes.values():
        names.extend(sorted(route.components))
    names.extend(members)
    names.extend(extra)
    out = []
    for name in dict.fromkeys(names):
        known = manifest.component(name)
        owner = manifest.owner_of(name)
        out.append(
            ComponentView(
                name,
                owner.name if owner is not None and owner.name in snapshot.libraries else None,
                known is not None and known.opt_in,
            )
        )
    return tuple(out)


# ---- a check: findings marked ------------------------------------------------------


def check_view(
    snapshot: Snapshot, path: str, manifest: Manifest, diagnostics: Sequence[Diagnostic]
) -> View:
    """The build with the findings located in the artifact at `path` marked: on the
    library, component or aggregate they are about; the rest counted in the title."""
    base = view(snapshot, manifest)
    by_member = {lib.member: lib.key for lib in snapshot.libraries.values()}
    by_file = {lib.file_name: lib.key for lib in snapshot.libraries.values()}
    drawn_components = {c.name for c in base.components}
    routes_by_version = {r.cmake_version: name for name, r in snapshot.routes.items()}
    aggregates = {(m.route, m.variable) for m in base.memberships}
    tallies: dict[tuple[str, ...], Counter[Severity]] = {}
    unplaced: Counter[Severity] = Counter()
    for diagnostic in diagnostics:
        if not diagnostic.counts or diagnostic.location.path != path:
            continue
        subject, member = diagnostic.subject, diagnostic.location.member
        keys: list[tuple[str, ...]] = []
        library = by_member.get(member or "") or by_file.get(subject.library or "")
        if subject.library in snapshot.libraries:
            library = subject.library
        # A finding located in a binary is about that binary, whatever component it names.
        if library is not None and subject.variable is None:
            keys.append(("library", library))
        elif subject.variable is not None:
            route = routes_by_version.get(subject.cmake_version or "")
            keys.extend(
                ("variable", r, v)
                for r, v in sorted(aggregates)
                if v == subject.variable and route in (None, r)
            )
            carried = {(m.route, m.variable, m.component) for m in base.memberships}
            if (
                route is not None
                and subject.component in drawn_components
                and (route, subject.variable, subject.component) not in carried
            ):
                # A component the aggregate leaves out on this route (SL102): drawn as
                # the missing edge it is about.
                keys.append(("missing", route, subject.variable, subject.component or ""))
        if not keys and subject.component in drawn_components:
            keys.append(("component", subject.component or ""))
        for key in keys or [()]:
            (tallies.setdefault(key, Counter()) if key else unplaced)[diagnostic.severity] += 1
    noted = {key: _findings(tally) for key, tally in tallies.items()}
    return View(
        title=base.title,
        libraries=tuple(
            LibraryView(lib.key, lib.name, lib.group, noted.get(("library", lib.key)))
            for lib in base.libraries
        ),
        needs=base.needs,
        components=tuple(
            ComponentView(c.name, c.owner, c.opt_in, noted.get(("component", c.name)))
            for c in base.components
        ),
        memberships=base.memberships,
        variables={(key[1], key[2]): value for key, value in noted.items() if key[0] == "variable"},
        routes=base.routes,
        unplaced=f"{_findings(unplaced).note} not drawn on a node" if unplaced else "",
        missing={
            (key[1], key[2], key[3]): value for key, value in noted.items() if key[0] == "missing"
        },
    )


def _findings(tally: Counter[Severity]) -> Noted:
    worst = max(tally, key=lambda s: s.rank)
    mark = {Severity.ERROR: Mark.ERROR, Severity.WARNING: Mark.WARNING}.get(worst, Mark.INFO)
    words = ", ".join(
        counted(tally[s], s.value)
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if tally[s]
    )
    return Noted(mark, words)


# ---- a diff: changes marked --------------------------------------------------------

# What a change to a library says in its node.
_LIBRARY_NOTES = {
    ChangeKind.SONAME_CHANGED: "SONAME changed",
    ChangeKind.TYPE_CHANGED: "type changed",
    ChangeKind.SYMBOLS_REMOVED: "symbols removed",
    ChangeKind.OPERATORS_REMOVED: "operators removed",
    ChangeKind.NEEDED_GAINED: "NEEDED changed",
    ChangeKind.NEEDED_LOST: "NEEDED changed",
    ChangeKind.SYMBOLS_MOVED: "exports changed",
    ChangeKind.SYMBOLS_ADDED: "exports changed",
    ChangeKind.OPERATORS_MOVED: "operators changed",
    ChangeKind.OPERATORS_ADDED: "operators changed",
}


def diff_view(
    old: Snapshot | None, new: Snapshot | None, manifest: Manifest, changes: Sequence[Change]
) -> View:
    """The later build (or the earlier one, for a platform that is gone) with what changed
    marked: new parts green, removed parts (drawn from the earlier build) red and dashed,
    changed ones amber (red when the change breaks consumers)."""
    shown = new or old
    assert shown is not None
    if new is None:
        base = view(shown, manifest, f"{shown.platform}: {shown.label} (platform removed)")
        return _all_marked(base, Noted(Mark.REMOVED, "removed"))
    if old is None:
        base = view(shown, manifest, f"{shown.platform}: {shown.label} (platform new)")
        return _all_marked(base, Noted(Mark.ADDED, "new"))
    base = view(new, manifest, f"{new.platform}: {old.label} to {new.label}")
    libraries = list(base.libraries)
    notes: dict[str, list[str]] = {}
    breaking: set[str] = set()
    library_marks: dict[str, Noted] = {}
    component_marks: dict[str, Noted] = {}
    memberships = list(base.memberships)
    for change in changes:
        kind = change.kind
        if kind is ChangeKind.LIBRARY_ADDED:
            library_marks[change.subject] = Noted(Mark.ADDED, "new")
        elif kind is ChangeKind.LIBRARY_REMOVED:
            gone = old.libraries[change.subject]
            libraries.append(
                LibraryView(
                    gone.key, _name(gone), _group(gone, manifest), Noted(Mark.REMOVED, "removed")
                )
            )
        elif kind is ChangeKind.LIBRARY_RENAMED:
            now = next(
                (lib for lib in new.libraries.values() if lib.member == change.names[1]), None
            )
            if now is not None:
                notes.setdefault(now.key, []).insert(
                    0, f"renamed from {change.names[0].rsplit('/', 1)[-1]}"
                )
                breaking.add(now.key)
        elif kind in _LIBRARY_NOTES:
            notes.setdefault(change.subject, []).append(_LIBRARY_NOTES[kind])
            if change.breaking:
                breaking.add(change.subject)
        elif kind is ChangeKind.COMPONENT_ADDED:
            component_marks[change.subject] = Noted(Mark.ADDED, f"new on route {change.route}")
        elif kind is ChangeKind.COMPONENT_REMOVED:
            component_marks[change.subject] = Noted(Mark.REMOVED, f"gone on route {change.route}")
        elif kind in (ChangeKind.AGGREGATE_ENTERED, ChangeKind.AGGREGATE_LEFT):
            entered = kind is ChangeKind.AGGREGATE_ENTERED
            member = change.names[0]
            where = Membership(change.route or "", change.subject, member)
            # Leaving an aggregate breaks every consumer that linked the aggregate.
            noted = (
                Noted(Mark.ADDED, "entered") if entered else Noted(Mark.BREAKING, "left: breaking")
            )
            if entered:
                memberships = [
                    Membership(m.route, m.variable, m.component, noted) if m == where else m
                    for m in memberships
                ]
            else:
                memberships.append(Membership(where.route, where.variable, member, noted))
    for key, said in notes.items():
        words = ", ".join(dict.fromkeys(said))
        library_marks.setdefault(
            key,
            Noted(Mark.BREAKING, f"{words} (breaking)")
            if key in breaking
            else Noted(Mark.CHANGED, words),
        )
    removed_components = [c for c, n in component_marks.items() if n.mark is Mark.REMOVED]
    components = _components(new, manifest, (m.component for m in memberships), removed_components)
    return View(
        title=base.title,
        libraries=tuple(
            LibraryView(lib.key, lib.name, lib.group, lib.noted or library_marks.get(lib.key))
            for lib in libraries
        ),
        needs=base.needs,
        components=tuple(
            ComponentView(c.name, c.owner, c.opt_in, component_marks.get(c.name))
            for c in components
        ),
        memberships=tuple(memberships),
        variables={},
        routes=base.routes,
    )


def _all_marked(base: View, noted: Noted) -> View:
    return View(
        title=base.title,
        libraries=tuple(LibraryView(lib.key, lib.name, lib.group, noted) for lib in base.libraries),
        needs=base.needs,
        components=base.components,
        memberships=base.memberships,
        variables={},
        routes=base.routes,
    )
