"""The diff's comparison on hand-built snapshots: the kinds real builds do not show."""

from __future__ import annotations

from dataclasses import replace

import pytest
from shiplint.artifacts.records import Binding, SymbolKind, SymbolRecord
from shiplint.diagnostics import Location
from shiplint.diff.compare import compare
from shiplint.snapshot import LibrarySnapshot, RouteSnapshot, Snapshot


def _lib(
    member: str,
    soname: str | None = None,
    symbols: tuple[str, ...] = ("f",),
    needed: tuple[str, ...] = (),
    file_type: str = "shared library",
    loads: tuple[str, ...] = (),
    operators: tuple[str, ...] | None = None,
) -> LibrarySnapshot:
    exported: dict[tuple[str, str | None], SymbolRecord] = {
        (name, None): SymbolRecord(name, Binding.GLOBAL, "default", SymbolKind.FUNCTION)
        for name in symbols
    }
    registered = frozenset(operators) if operators is not None else None
    return LibrarySnapshot(member, member, soname, file_type, needed, exported, loads, registered)


def _side(
    *libraries: LibrarySnapshot,
    routes: tuple[RouteSnapshot, ...] = (),
    externals: dict[str, tuple[str, ...]] | None = None,
) -> Snapshot:
    return Snapshot(
        "pkg.whl",
        "linux-x86_64",
        {lib.key: lib for lib in libraries},
        {route.route: route for route in routes},
        externals or {},
    )


def _route(
    name: str,
    components: set[str],
    aggregate: set[str],
    variables: dict[str, set[str]] | None = None,
    refused: str | None = None,
    failure: str | None = None,
) -> RouteSnapshot:
    return RouteSnapshot(
        name,
        "3.24.3",
        frozenset(components),
        frozenset(f"pkg::{c}" for c in components),
        {"PKG_LIBRARIES": frozenset(aggregate)},
        {v: frozenset(names) for v, names in (variables or {}).items()},
        failure=failure,
        refused=refused,
        config=Location("pkg.whl", member="share/pkg-config.cmake"),
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


def test_component_variables_per_route() -> None:
    old = _side(routes=(_route("targets", {"q"}, set(), {"PKG_Q_LIB": {"q"}, "PKG_OLD": {"q"}}),))
    new = _side(
        routes=(_route("targets", {"q"}, set(), {"PKG_Q_LIB": {"q", "rt"}, "PKG_NEW": {"q"}}),)
    )
    changes = compare([old], [new]).changes
    assert [(c.kind.slug, c.subject, c.route, c.breaking, c.names) for c in changes] == [
        ("component-variable-removed", "PKG_OLD", "targets", True, ("q",)),
        ("component-variable-changed", "PKG_Q_LIB", "targets", False, ("q", "rt")),
        ("component-variable-added", "PKG_NEW", "targets", False, ("q",)),
    ]


def test_externals_gained_and_lost() -> None:
    old = _side(externals={"libtorch.so": ("lib/liba.so",)})
    new = _side(externals={"libpthread.so.0": ("lib/liba.so", "lib/libb.so")})
    changes = compare([old], [new]).changes
    assert [(c.kind.slug, c.subject, c.breaking) for c in changes] == [
        ("external-gained", "libpthread.so.0", False),
        ("external-lost", "libtorch.so", False),
    ]
    assert "needed from outside the build by liba.so, libb.so" in changes[0].message


def test_operators_removed_moved_and_added_by_namespace() -> None:
    old = _side(
        _lib("lib/liba.so", "liba.so", operators=("aten::add.out", "aten::mul.out", "q::x")),
        _lib("lib/libgone.so", "libgone.so", ("g",), operators=("prim::sym",)),
    )
    new = _side(
        _lib("lib/liba.so", "liba.so", operators=("q::y",), loads=("lib/libb.so",)),
        _lib("lib/libb.so", "libb.so", ("x",), operators=("aten::mul.out",)),
        _lib("lib/libc.so", "libc.so", ("z",), operators=("q::x",)),
    )
    changes = [c for c in compare([old], [new]).changes if c.kind.slug.startswith("operators")]
    assert [(c.kind.slug, c.subject, c.count, c.names) for c in changes] == [
        # aten::add.out is gone; q::x is registered by a library liba.so does not load.
        ("operators-removed", "lib/liba.so", 1, ("aten::add.out",)),
        ("operators-removed", "lib/liba.so", 1, ("q::x",)),
        # A removed library's operators go with it.
        ("operators-removed", "lib/libgone.so", 1, ("prim::sym",)),
        # liba.so loads libb.so, which registers aten::mul.out: still registered.
        ("operators-moved", "lib/liba.so", 1, ("aten::mul.out",)),
        ("operators-added", "lib/liba.so", 1, ("q::y",)),
        ("operators-added", "lib/libb.so", 1, ("aten::mul.out",)),
        ("operators-added", "lib/libc.so", 1, ("q::x",)),
    ]
    assert "(now registered by libc.so)" in changes[1].message


def test_operators_not_known_on_one_side_are_not_compared() -> None:
    old = _side(_lib("lib/liba.so", "liba.so", operators=("aten::add.out",)))
    new = _side(_lib("lib/liba.so", "liba.so", operators=None))
    assert compare([old], [new]).changes == ()


@pytest.mark.parametrize("failure", ["refused", "failure"])
def test_a_failed_route_is_a_problem_and_claims_no_removal(failure: str) -> None:
    old = _side(routes=(_route("targets", {"rt", "q"}, {"rt"}, {"PKG_Q_LIB": {"q"}}),))
    why = "find_package of the shipped components (rt, q) fails"
    if failure == "refused":
        failed = _route("targets", set(), {"rt"}, refused=why)
    else:
        failed = _route("targets", set(), set(), failure=why)
    new = _side(routes=(failed,))
    diff = compare([old], [new])
    assert diff.changes == ()
    assert [(p.side, p.route, p.regressed, p.location.file) for p in diff.problems] == [
        ("new", "targets", True, "pkg.whl!/share/pkg-config.cmake")
    ]
    assert diff.fails
    # Failing on both sides is reported, and is no regression.
    both = compare([new], [new])
    assert [(p.side, p.regressed) for p in both.problems] == [("old", False), ("new", False)]
    assert not both.fails


def test_a_refused_route_still_compares_its_aggregates_and_plain_targets() -> None:
    # The old build answered its requests (pkg::rt, pkg::q published by them); the new one
    # refused them: only what the plain find_package defines is compared.
    old = _side(
        routes=(
            replace(_route("paths", {"rt", "q"}, {"rt", "py"}), plain_targets=frozenset({"py"})),
        )
    )
    new = _side(routes=(_route("paths", set(), {"rt"}, refused="fails"),))
    changes = compare([old], [new]).changes
    assert [(c.kind.slug, c.subject, c.names) for c in changes] == [
        ("aggregate-left", "PKG_LIBRARIES", ("py",)),
        ("target-removed", "py", ()),
    ]
