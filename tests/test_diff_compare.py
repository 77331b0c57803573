"""The diff's comparison on hand-built snapshots: the kinds real builds do not show."""

from __future__ import annotations

import pytest
from shiplint.artifacts.records import Binding, SymbolKind, SymbolRecord
from shiplint.diff.compare import compare
from shiplint.diff.snapshot import LibrarySnapshot, RouteSnapshot, Snapshot


def _lib(
    member: str,
    soname: str | None = None,
    symbols: tuple[str, ...] = ("f",),
    needed: tuple[str, ...] = (),
    file_type: str = "shared library",
    loads: tuple[str, ...] = (),
) -> LibrarySnapshot:
    exported: dict[tuple[str, str | None], SymbolRecord] = {
        (name, None): SymbolRecord(name, Binding.GLOBAL, "default", SymbolKind.FUNCTION)
        for name in symbols
    }
    return LibrarySnapshot(member, member, soname, file_type, needed, exported, loads)


def _side(*libraries: LibrarySnapshot, routes: tuple[RouteSnapshot, ...] = ()) -> Snapshot:
    return Snapshot(
        "pkg.whl",
        "linux-x86_64",
        {lib.key: lib for lib in libraries},
        {route.route: route for route in routes},
    )


def _route(name: str, components: set[str], aggregate: set[str]) -> RouteSnapshot:
    return RouteSnapshot(
        name,
        "3.24.3",
        frozenset(components),
        frozenset(f"pkg::{c}" for c in components),
        {"PKG_LIBRARIES": frozenset(aggregate)},
    )


def _kinds(old: Snapshot, new: Snapshot) -> list[tuple[str, str]]:
    return [(c.kind.slug, c.subject) for c in compare([old], [new]).changes]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A version bump of a versioned file name in its directory: one library renamed.
        (
            _lib("lib/libx.so.1", "libx.so.1"),
            _lib("lib/libx.so.2", "libx.so.2"),
            [("library-renamed", "lib/libx.so.1"), ("soname-changed", "lib/libx.so.2")],
        ),
        # Moved to another directory under the same SONAME: renamed, SONAME kept.
        (
            _lib("a/libx.so", "libx.so"),
            _lib("b/libx.so", "libx.so"),
            [("library-renamed", "a/libx.so")],
        ),
        # Another name, other symbols: one removed, one added.
        (
            _lib("lib/libx.so", "libx.so", ("f",)),
            _lib("lib/liby.so", "liby.so", ("g",)),
            [("library-removed", "lib/libx.so"), ("library-added", "lib/liby.so")],
        ),
    ],
)
def test_renames_are_paired(
    old: LibrarySnapshot, new: LibrarySnapshot, expected: list[tuple[str, str]]
) -> None:
    assert _kinds(_side(old), _side(new)) == expected


def test_a_type_change_breaks() -> None:
    old = _side(_lib("lib/libx.so", "libx.so"))
    new = _side(_lib("lib/libx.so", "libx.so", file_type="static archive"))
    diff = compare([old], [new])
    assert [(c.kind.slug, c.breaking) for c in diff.changes] == [("type-changed", True)]


def test_a_symbol_exported_by_a_library_it_now_loads_has_moved() -> None:
    old = _side(_lib("lib/liba.so", "liba.so", ("f", "g", "h")))
    new = _side(
        _lib(
            "lib/liba.so",
            "liba.so",
            ("f",),
            needed=("libb.so",),
            loads=("lib/libb.so", "lib/libc.so"),
        ),
        _lib("lib/libb.so", "libb.so", ("x",), needed=("libc.so",)),
        _lib("lib/libc.so", "libc.so", ("g",)),
    )
    diff = compare([old], [new])
    moved = next(c for c in diff.changes if c.kind.slug == "symbols-moved")
    removed = next(c for c in diff.changes if c.kind.slug == "symbols-removed")
    # g comes from libc.so, which liba.so loads through libb.so; h is gone.
    assert (moved.names, moved.breaking) == (("g",), False)
    assert (removed.names, removed.breaking) == (("h",), True)


def test_routes_components_and_aggregate_membership() -> None:
    old = _side(
        routes=(
            _route("paths", {"runtime", "quant"}, {"runtime", "quant"}),
            _route("targets", {"runtime"}, {"runtime"}),
        )
    )
    new = _side(routes=(_route("paths", {"runtime", "xnn"}, {"runtime", "xnn"}),))
    changes = compare([old], [new]).changes
    assert [(c.kind.slug, c.subject, c.route, c.breaking) for c in changes] == [
        ("aggregate-left", "PKG_LIBRARIES", "paths", True),
        ("component-removed", "quant", "paths", True),
        ("target-removed", "pkg::quant", "paths", True),
        ("route-removed", "targets", "targets", True),
        ("aggregate-entered", "PKG_LIBRARIES", "paths", False),
        ("component-added", "xnn", "paths", False),
        ("target-added", "pkg::xnn", "paths", False),
    ]
