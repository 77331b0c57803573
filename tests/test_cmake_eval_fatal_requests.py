"""A component request a config refuses with a fatal error is an answer, not a broken config.

Boost-style configs find each component as a package of its own and pass their
REQUIRED on (`find_package(pkg_<c> CONFIG REQUIRED ...)`): a request for a component
the package lacks then stops CMake, in 3.x and 4.x alike, before any later request.
Real CMake of both routes, small prefixes shaped like such packages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.evaluate import ABSENT_COMPONENT
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")
VERSIONS = [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION]

# Each requested component (every shipped one when none is requested) is a package of
# its own under components/; the request's REQUIRED is passed on to it.
_NESTED = r"""
set(_pkg_required)
if(pkg_FIND_REQUIRED)
  set(_pkg_required REQUIRED)
endif()
set(_pkg_asked ${pkg_FIND_COMPONENTS})
if(NOT _pkg_asked)
  set(_pkg_asked runtime core)
endif()
foreach(_c IN LISTS _pkg_asked)
  @FIND@
  if(pkg_${_c}_FOUND)
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_${_c}_FOUND FALSE)
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: no component ${_c}")
  endif()
endforeach()
"""
_FIND = (
    "find_package(pkg_${_c} CONFIG ${_pkg_required} "
    'PATHS "${CMAKE_CURRENT_LIST_DIR}/components" NO_DEFAULT_PATH)'
)
_COMPONENT = """
if(NOT TARGET pkg::{c})
  add_library(pkg::{c} SHARED IMPORTED)
  set_target_properties(pkg::{c} PROPERTIES
    IMPORTED_LOCATION "${{CMAKE_CURRENT_LIST_DIR}}/../../../lib/{file}")
endif()
"""
_SHIPPED = {"runtime": "libpkg.so", "core": "libpkg_core.so"}


def _manifest() -> Manifest:
    """runtime and core ship; extra and more are components this wheel lacks."""
    return manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_core", components=("core",)),
            library("pkg_extra", components=("extra",)),
            library("pkg_more", components=("more",)),
        ),
        components=tuple(
            Component(name, False, None) for name in ("runtime", "core", "extra", "more")
        ),
    )


def evaluate(
    tmp_path: Path, find: str, version: str, components: dict[str, str] | None = None
) -> tuple[ConfigEvaluation, list[Diagnostic]]:
    root = tmp_path / "pkg-1.0"
    cmake_dir = root / "pkg" / "share" / "cmake"
    (cmake_dir / "components").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for component, file in (components or _SHIPPED).items():
        (root / "pkg" / "lib" / file).write_bytes(b"")
        (cmake_dir / "components" / f"pkg_{component}-config.cmake").write_text(
            _COMPONENT.format(c=component, file=file), encoding="utf-8"
        )
    config = _NESTED.replace("@FIND@", find)
    (cmake_dir / "pkg-config.cmake").write_text(config, encoding="utf-8")
    the_manifest = _manifest()
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(version))], 60.0)
    (ev,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    return ev, lint(RULES, the_manifest, models, Selection(select=("SL1",), ignore=("SL116",)))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_loud_refusal_of_an_absent_component_is_its_answer(tmp_path: Path, version: str) -> None:
    ev, diagnostics = evaluate(tmp_path, _FIND, version)
    assert ev.failure is None
    assert [d.code for d in diagnostics] == []
    # Each absent component stops CMake when asked as REQUIRED; none hides the next.
    for component in ("extra", "more", ABSENT_COMPONENT):
        request = ev.request(component)
        assert request is not None and request.refused, component
        assert request.fatal is not None and f'"pkg_{component}"' in request.fatal
    for component in ("runtime", "core"):
        request = ev.request(component)
        assert request is not None and request.found and request.fatal is None
        assert request.required_found is True
    # The batched run, then one more after each fatal refusal that left requests to ask
    # (extra's, more's; the absent probe's is the last request).
    assert ev.runs == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_a_config_that_refuses_nothing_loudly_takes_one_run(tmp_path: Path, version: str) -> None:
    # The same package asking without REQUIRED: the absent ones are refused quietly.
    quiet = _FIND.replace("${_pkg_required}", "QUIET")
    ev, diagnostics = evaluate(tmp_path, quiet, version)
    assert ev.failure is None and ev.runs == 1
    assert [d.code for d in diagnostics] == []
    extra = ev.request("extra")
    assert extra is not None and extra.refused and extra.fatal is None


@pytest.mark.parametrize("version", VERSIONS)
def test_a_shipped_component_refused_loudly_when_required_is_reported_as_such(
    tmp_path: Path, version: str
) -> None:
    """REQUIRED makes the config insist on core's next version, which is not shipped: the
    batched REQUIRED request stops, each of its components is asked again alone, and
    only core is reported, by the rule about REQUIRED answering differently."""
    find = _FIND.replace(
        "find_package(pkg_${_c} ",
        'if(pkg_FIND_REQUIRED AND _c STREQUAL "core")\n'
        "    find_package(pkg_core_v2 CONFIG REQUIRED "
        'PATHS "${CMAKE_CURRENT_LIST_DIR}/components" NO_DEFAULT_PATH)\n'
        "  endif()\n  find_package(pkg_${_c} ",
    )
    ev, diagnostics = evaluate(tmp_path, find, version)
    assert ev.failure is None
    runtime, core = ev.request("runtime"), ev.request("core")
    assert runtime is not None and runtime.required_found is True
    assert core is not None and core.found and core.required_found is False
    assert core.required_message is not None and "pkg_core_v2" in core.required_message
    assert [(d.code, d.subject.component) for d in diagnostics] == [("SL119", "core")]


@pytest.mark.parametrize("version", VERSIONS)
def test_an_error_inside_one_request_is_that_requests_answer(tmp_path: Path, version: str) -> None:
    """An error CMake goes on after (properties set on a target the config never made)
    fails that request for a consumer; the plain evaluation is not blamed for it."""
    find = _FIND.replace("${_pkg_required}", "QUIET") + (
        "\n  if(NOT pkg_${_c}_FOUND)\n"
        "    set_target_properties(pkg::${_c} PROPERTIES IMPORTED_LOCATION nowhere)\n"
        "  endif()"
    )
    ev, diagnostics = evaluate(tmp_path, find, version)
    assert ev.failure is None and ev.runs == 1
    extra = ev.request("extra")
    assert extra is not None and extra.refused
    assert extra.fatal is not None and "pkg::extra" in extra.fatal
    assert [d.code for d in diagnostics] == []


@pytest.mark.parametrize("version", VERSIONS)
def test_a_fatal_error_in_the_plain_evaluation_still_fails_it(tmp_path: Path, version: str) -> None:
    # core's own package is missing: even find_package(pkg) without components stops.
    ev, diagnostics = evaluate(
        tmp_path, _FIND.replace("${_pkg_required}", "REQUIRED"), version, {"runtime": "libpkg.so"}
    )
    assert ev.failure is not None and '"pkg_core"' in ev.failure.message
    assert "SL111" in [d.code for d in diagnostics]
