"""SL1xx rules on hand-built evaluation models: each rule fires, and stays quiet.

The models are what `shiplint.cmake_eval` produces; the entries are resolved by the
real resolver, so a change in how `-Wl,...` wrapping or targets resolve shows here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from shiplint.cmake_eval.model import (
    AggregateAcrossRoutes,
    ComponentRequest,
    ConfigEvaluation,
    Failure,
    FailureKind,
    ImportedTarget,
    MissingConfig,
    Mode,
    ResolvedVariable,
    RouteView,
    ShippedLibrary,
)
from shiplint.cmake_eval.resolve import Resolver
from shiplint.diagnostics import Diagnostic, Location
from shiplint.engine import Selection, lint
from shiplint.manifest.model import (
    Aggregate,
    Carries,
    CMakeRoute,
    Component,
    ComponentVariable,
    LibraryKind,
    Manifest,
)
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, manifest

LINUX = Platform("linux", "x86_64")
ROUTES = (
    CMakeRoute("paths", None, (3, 28), "no targets", imported_targets=False),
    CMakeRoute("targets", (3, 28), None, "targets"),
)
RETAIN = "LINKER:--push-state,--no-as-needed,pkg/lib/lib{0}.so,--pop-state"


def _manifest() -> Manifest:
    base = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_ops", components=("ops",), registers_statically=True),
            library("pkg_extra", components=("extra",), registers_statically=True),
            library("pkg_plugin", LibraryKind.PLUGIN),
        ),
        components=(
            Component("runtime", False, None),
            Component("ops", False, None),
            Component("extra", True, None),
        ),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(excluded=("extra",)), ()),),
        component_variables=(ComponentVariable("PKG_EXTRA_LIBRARY", "extra", ()),),
    )
    return replace(base, cmake=replace(base.cmake, routes=ROUTES))


MANIFEST = _manifest()


def _target(component: str, library: str, retained: bool = True) -> ImportedTarget:
    options = (RETAIN.format(library),) if retained else ()
    return ImportedTarget(
        f"pkg::{component}",
        "SHARED_LIBRARY",
        f"pkg/lib/lib{library}.so",
        (),
        options,
        component,
    )


TARGETS = (
    _target("runtime", "pkg", retained=False),
    _target("ops", "pkg_ops"),
    _target("extra", "pkg_extra"),
)
SHIPPED = (
    ShippedLibrary("pkg", "pkg/lib/libpkg.so", ("runtime",)),
    ShippedLibrary("pkg_ops", "pkg/lib/libpkg_ops.so", ("ops",)),
    ShippedLibrary("pkg_extra", "pkg/lib/libpkg_extra.so", ("extra",)),
)


def _var(
    name: str,
    items: tuple[str, ...],
    targets: tuple[ImportedTarget, ...] = TARGETS,
    platform: Platform = LINUX,
) -> ResolvedVariable:
    present = frozenset(lib.member for lib in SHIPPED)
    return ResolvedVariable(
        name, True, Resolver(MANIFEST, platform, targets, present).resolve(items)
    )


def _requests(shipped: tuple[str, ...]) -> tuple[ComponentRequest, ...]:
    out = [ComponentRequest(c, True, True, None) for c in shipped]
    out.append(
        ComponentRequest(
            "shiplint_absent_component", False, False, "no component 'shiplint_absent_component'"
        )
    )
    return tuple(out)


def _evaluation(**changes: object) -> ConfigEvaluation:
    base = ConfigEvaluation(
        mode=Mode.ARTIFACT,
        label="pkg-1.0-py3-none-manylinux_2_28_x86_64.whl",
        platform=LINUX,
        cmake="cmake",
        cmake_version="4.4.5",
        route="targets",
        config=Location("pkg-1.0.whl", member="pkg/share/cmake/pkg-config.cmake"),
        shipped=SHIPPED,
        failure=None,
        found=True,
        not_found_message=None,
        aggregates=(_var("PKG_LIBRARIES", ("pkg::runtime", "pkg::ops")),),
        component_variables=(_var("PKG_EXTRA_LIBRARY", ("pkg::extra",)),),
        targets=TARGETS,
        requests=_requests(("runtime", "ops", "extra")),
        seconds=0.1,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


PATH_ENTRY = "-Wl,--push-state,--no-as-needed,pkg/lib/lib{0}.so,--pop-state"


def _paths_route(**changes: object) -> ConfigEvaluation:
    """The pre-3.28 shape: no targets, wrapped paths."""
    aggregate = ("pkg/lib/libpkg.so", PATH_ENTRY.format("pkg_ops"))
    base = _evaluation(
        cmake_version="3.24.3",
        route="paths",
        targets=(),
        aggregates=(_var("PKG_LIBRARIES", aggregate, ()),),
        component_variables=(_var("PKG_EXTRA_LIBRARY", (PATH_ENTRY.format("pkg_extra"),), ()),),
        requests=tuple(
            ComponentRequest(c, c != "shiplint_absent_component", False, f"'{c}' needs 3.28")
            for c in ("runtime", "ops", "extra", "shiplint_absent_component")
        ),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def _codes(model: object) -> list[Diagnostic]:
    return [d for d in lint(RULES, MANIFEST, [model], Selection(select=("SL1",)))]


def test_the_base_models_are_quiet() -> None:
    assert _codes(_evaluation()) == []
    assert _codes(_paths_route()) == []


def _with_aggregate(items: tuple[str, ...], **kw: object) -> Callable[[], ConfigEvaluation]:
    return lambda: _evaluation(aggregates=(_var("PKG_LIBRARIES", items),), **kw)


CASES: list[tuple[str, str, Callable[[], object], dict[str, str]]] = [
    (
        "SL101",
        "opt-in target in the aggregate",
        _with_aggregate(("pkg::runtime", "pkg::ops", "pkg::extra")),
        {"component": "extra", "variable": "PKG_LIBRARIES", "cmake_version": "4.4.5"},
    ),
    (
        "SL101",
        "opt-in path wrapped for retention on the old route",
        lambda: _paths_route(
            aggregates=(
                _var(
                    "PKG_LIBRARIES",
                    (
                        "pkg/lib/libpkg.so",
                        PATH_ENTRY.format("pkg_ops"),
                        PATH_ENTRY.format("pkg_extra"),
                    ),
                    (),
                ),
            )
        ),
        {"component": "extra", "variable": "PKG_LIBRARIES", "cmake_version": "3.24.3"},
    ),
    (
        "SL102",
        "shipped component missing",
        _with_aggregate(("pkg::runtime",)),
        {"component": "ops", "variable": "PKG_LIBRARIES"},
    ),
    (
        "SL104",
        "component variable empty",
        lambda: _evaluation(
            component_variables=(ResolvedVariable("PKG_EXTRA_LIBRARY", False, ()),)
        ),
        {"component": "extra", "variable": "PKG_EXTRA_LIBRARY"},
    ),
    (
        "SL104",
        "component variable names another component",
        lambda: _evaluation(component_variables=(_var("PKG_EXTRA_LIBRARY", ("pkg::ops",)),)),
        {"component": "extra", "variable": "PKG_EXTRA_LIBRARY"},
    ),
    (
        "SL105",
        "shipped component without a target",
        lambda: _evaluation(targets=TARGETS[:2]),
        {"component": "extra", "target": "pkg::extra", "library": "pkg_extra"},
    ),
    (
        "SL106",
        "target for a library not shipped",
        lambda: _evaluation(shipped=SHIPPED[:2], component_variables=()),
        {"component": "extra", "target": "pkg::extra"},
    ),
    (
        "SL107",
        "IMPORTED_LOCATION names another library",
        lambda: _evaluation(
            targets=(
                TARGETS[0],
                replace(TARGETS[1], location="pkg/lib/libpkg_plugin.so"),
                TARGETS[2],
            )
        ),
        {"component": "ops", "target": "pkg::ops", "library": "pkg_ops"},
    ),
    (
        "SL108",
        "registering target without retention",
        lambda: _evaluation(targets=(TARGETS[0], _target("ops", "pkg_ops", False), TARGETS[2])),
        {"component": "ops", "target": "pkg::ops", "library": "pkg_ops"},
    ),
    (
        "SL108",
        "registering path without retention",
        lambda: _paths_route(
            aggregates=(_var("PKG_LIBRARIES", ("pkg/lib/libpkg.so", "pkg/lib/libpkg_ops.so"), ()),)
        ),
        {"component": "ops", "library": "pkg_ops", "variable": "PKG_LIBRARIES"},
    ),
    (
        "SL109",
        "absent component accepted",
        lambda: _evaluation(requests=(ComponentRequest("gpu", False, True, None),)),
        {"component": "gpu"},
    ),
    (
        "SL127",
        "a question the host answered for another platform",
        lambda: _evaluation(host_answers=("uname -r",)),
        {"cmake_version": "4.4.5"},
    ),
    (
        "SL126",
        "absent component refused without naming it",
        lambda: _evaluation(requests=(ComponentRequest("gpu", False, False, "not found"),)),
        {"component": "gpu"},
    ),
    (
        "SL110",
        "shipped component refused on a targets route",
        lambda: _evaluation(requests=(ComponentRequest("ops", True, False, "no ops"),)),
        {"component": "ops"},
    ),
    (
        "SL111",
        "config fails to configure",
        lambda: _evaluation(
            failure=Failure(
                FailureKind.ERROR,
                'Unknown CMake command "x".',
                Location("pkg-1.0.whl", 3, member="pkg/cfg.cmake"),
            )
        ),
        {"cmake_version": "4.4.5"},
    ),
    (
        "SL111",
        "config times out",
        lambda: _evaluation(failure=Failure(FailureKind.TIMEOUT, "stopped", Location("cfg.cmake"))),
        {"cmake_version": "4.4.5"},
    ),
    (
        "SL129",
        "config found although no linkable library ships",
        lambda: _evaluation(
            shipped=(),
            targets=(),
            component_variables=(),
            requests=(),
        ),
        {"cmake_version": "4.4.5"},
    ),
    (
        "SL112",
        "config shipped without any linkable library",
        lambda: _evaluation(
            shipped=(),
            found=False,
            not_found_message="nothing to link",
            targets=(),
            aggregates=(),
            component_variables=(),
            requests=(),
        ),
        {"artifact": "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl"},
    ),
    (
        "SL113",
        "package reports not found though libraries ship",
        lambda: _evaluation(found=False, not_found_message="include dir missing"),
        {"cmake_version": "4.4.5"},
    ),
    (
        "SL114",
        "artifact without a config",
        lambda: MissingConfig("pkg-1.0.whl", LINUX, ("pkg/share/cmake",), Location("pkg-1.0.whl")),
        {"artifact": "pkg-1.0.whl"},
    ),
]


@pytest.mark.parametrize(
    ("code", "model", "subject"),
    [
        pytest.param(code, model, subject, id=f"{code}-{name}")
        for code, name, model, subject in CASES
    ],
)
def test_rule_fires(code: str, model: Callable[[], object], subject: dict[str, str]) -> None:
    diagnostics = _codes(model())
    fired = [d for d in diagnostics if d.code == code]
    assert fired, f"{code} did not fire; got {[d.code for d in diagnostics]}"
    mine = fired[0].subject.as_dict()
    for key, value in subject.items():
        assert mine.get(key) == value, (key, mine)
    assert fired[0].hint


QUIET: list[tuple[str, str, Callable[[], object]]] = [
    ("SL101", "opt-in component in its own variable only", _evaluation),
    (
        "SL102",
        "component not shipped on this platform",
        lambda: _evaluation(
            shipped=SHIPPED[:1] + SHIPPED[2:],
            targets=(TARGETS[0], TARGETS[2]),
            aggregates=(_var("PKG_LIBRARIES", ("pkg::runtime",)),),
        ),
    ),
    (
        "SL104",
        "component not shipped, variable empty",
        lambda: _evaluation(
            shipped=SHIPPED[:2],
            targets=TARGETS[:2],
            component_variables=(ResolvedVariable("PKG_EXTRA_LIBRARY", True, ()),),
        ),
    ),
    ("SL105", "a route without targets by design", _paths_route),
    (
        "SL108",
        "no retention needed off Linux",
        lambda: _evaluation(
            platform=Platform("macos", "arm64"),
            shipped=tuple(replace(s, member=s.member.replace(".so", ".dylib")) for s in SHIPPED),
            targets=(),
            aggregates=(),
            component_variables=(),
        ),
    ),
    (
        "SL108",
        "retention by a separate no-as-needed span",
        lambda: _paths_route(
            aggregates=(
                _var(
                    "PKG_LIBRARIES",
                    (
                        "pkg/lib/libpkg.so",
                        "-Wl,--no-as-needed",
                        "pkg/lib/libpkg_ops.so",
                        "-Wl,--as-needed",
                    ),
                    (),
                ),
            )
        ),
    ),
    ("SL106", "targets only for shipped libraries", _evaluation),
    (
        "SL106",
        "no target for the unshipped library",
        lambda: _evaluation(shipped=SHIPPED[:2], targets=TARGETS[:2], component_variables=()),
    ),
    ("SL107", "every location is the manifest's library", _evaluation),
    (
        "SL108",
        "the runtime does not register statically",
        lambda: _paths_route(
            aggregates=(
                _var("PKG_LIBRARIES", ("pkg/lib/libpkg.so", PATH_ENTRY.format("pkg_ops")), ()),
            )
        ),
    ),
    ("SL109", "the absent component is refused by name", _evaluation),
    (
        "SL109",
        "the absent component is refused without its name (SL126's case)",
        lambda: _evaluation(requests=(ComponentRequest("gpu", False, False, "not found"),)),
    ),
    ("SL126", "the absent component is refused by name", _evaluation),
    ("SL127", "every question answered for the platform", _evaluation),
    (
        "SL126",
        "the absent component is accepted (SL109's case)",
        lambda: _evaluation(requests=(ComponentRequest("gpu", False, True, None),)),
    ),
    (
        "SL126",
        "refused by a FATAL_ERROR naming it",
        lambda: _evaluation(
            requests=(ComponentRequest("gpu", False, True, None, fatal="pkg has no gpu"),)
        ),
    ),
    (
        "SL109",
        "refused by a FATAL_ERROR naming it",
        lambda: _evaluation(
            requests=(ComponentRequest("gpu", False, True, None, fatal="pkg has no gpu"),)
        ),
    ),
    ("SL110", "the old route refuses components by design", _paths_route),
    ("SL111", "the evaluation completed", _evaluation),
    (
        "SL113",
        "not found and nothing linkable shipped (SL112's case)",
        lambda: _evaluation(shipped=(), found=False, targets=(), requests=()),
    ),
    (
        "SL129",
        "not found, which is SL112's case",
        lambda: _evaluation(shipped=(), found=False, targets=(), requests=()),
    ),
    (
        "SL112",
        "found, which is SL129's case",
        lambda: _evaluation(shipped=(), targets=(), requests=()),
    ),
    (
        "SL112",
        "source mode is not an artifact",
        lambda: _evaluation(
            mode=Mode.SOURCE,
            shipped=(),
            found=False,
            targets=(),
            aggregates=(),
            component_variables=(),
            requests=(),
        ),
    ),
]


@pytest.mark.parametrize(
    ("code", "model"),
    [pytest.param(code, model, id=f"{code}-{name}") for code, name, model in QUIET],
)
def test_rule_stays_quiet(code: str, model: Callable[[], object]) -> None:
    assert [d.code for d in _codes(model()) if d.code == code] == []


def _across(*views: RouteView) -> AggregateAcrossRoutes:
    return AggregateAcrossRoutes(
        Mode.ARTIFACT, "pkg-1.0.whl", LINUX, "PKG_LIBRARIES", Location("cfg.cmake"), views
    )


def test_sl103_fires_when_routes_differ_and_names_the_component() -> None:
    model = _across(
        RouteView("paths", "3.24.3", ("runtime",)),
        RouteView("targets", "4.4.5", ("runtime", "ops")),
    )
    (diagnostic,) = _codes(model)
    assert diagnostic.code == "SL103"
    assert diagnostic.subject.component == "ops"
    assert "route paths (CMake 3.24.3) lacks ops" in diagnostic.message


def test_sl103_quiet_when_routes_agree_in_any_order() -> None:
    model = _across(
        RouteView("paths", "3.24.3", ("ops", "runtime")),
        RouteView("targets", "4.4.5", ("runtime", "ops")),
    )
    assert _codes(model) == []


def test_sl101_quiet_when_an_only_aggregate_lists_the_opt_in() -> None:
    only = Aggregate("PKG_LIBRARIES", Carries(only=("runtime", "extra")), ())
    custom = replace(MANIFEST, aggregates=(only,))
    model = _evaluation(aggregates=(_var("PKG_LIBRARIES", ("pkg::runtime", "pkg::extra")),))
    assert lint(RULES, custom, [model], Selection(select=("SL1",))) == []


def test_sl115_fires_when_an_installed_copy_publishes_something_else() -> None:
    from shiplint.cmake_eval.model import AlternateConfig

    same = AlternateConfig(
        Location("pkg-1.0.whl", member="pkg/lib/cmake/pkg/pkg-config.cmake"),
        True,
        _evaluation().aggregates,
        _evaluation().component_variables,
        TARGETS,
    )
    assert _codes(_evaluation(alternates=(same,))) == []
    differs = replace(same, found=False, targets=TARGETS[:1])
    (diagnostic,) = _codes(_evaluation(alternates=(differs,)))
    assert diagnostic.code == "SL115"
    assert diagnostic.location == same.config
    assert "pkg_FOUND False vs True" in diagnostic.message
    assert "targets missing here: pkg::extra, pkg::ops" in diagnostic.message
