"""SL130-SL135: what a config says or leaves wrong during a consumer's plain find_package.

Each case is a small installed config evaluated by real CMake (3.24.3 and 4.4.5), in
its healthy form (quiet) and its broken one (the finding, at the config line that
caused it). What a real consumer build makes of each broken form is written in
docs/findings/cmake_eval.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Aggregate, Carries, Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")
BOTH = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
CONFIG = "pkg/share/cmake/pkg-config.cmake"

# Line 1..6: the runtime target; @EXTRA@ (from line 7) is what each case adds.
_BASE = """set(_root "${CMAKE_CURRENT_LIST_DIR}/../..")
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES
  IMPORTED_LOCATION "${_root}/lib/libpkg.so")
set(pkg_FOUND TRUE)
set(PKG_LIBRARIES pkg::runtime)
@EXTRA@
"""


def _manifest() -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),),
    )


def _run(
    tmp_path: Path, extra: str, libraries: tuple[str, ...] = ("libpkg.so",)
) -> tuple[list[ConfigEvaluation], list[Diagnostic]]:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in libraries:
        (root / "pkg" / "lib" / name).write_bytes(b"")
    config = _BASE.replace("@EXTRA@", extra)
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    the_manifest = _manifest()
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(v)) for v in BOTH], 60.0)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2
    found = lint(RULES, the_manifest, models, Selection(select=("SL13", "SL111")))
    return evaluations, found


def _by_version(found: list[Diagnostic], code: str) -> dict[str, list[Diagnostic]]:
    out: dict[str, list[Diagnostic]] = {}
    for diagnostic in found:
        if diagnostic.code == code:
            out.setdefault(str(diagnostic.subject.cmake_version), []).append(diagnostic)
    return out


def _at(diagnostic: Diagnostic) -> str:
    return f"{diagnostic.location.member}:{diagnostic.location.line}"


_FIND_EXTRA = (
    'find_library(PKG_EXTRA_LIBRARY pkg_extra PATHS "${_root}/lib" NO_DEFAULT_PATH NO_CACHE)'
)


def test_a_healthy_config_is_quiet(tmp_path: Path) -> None:
    extra = "\n".join(
        [
            'message(STATUS "pkg: found the runtime")',
            _FIND_EXTRA,
            "add_library(dep::core INTERFACE IMPORTED)",
            "add_library(pkg::comp SHARED IMPORTED)",
            "set_target_properties(pkg::comp PROPERTIES",
            '  IMPORTED_LOCATION "${_root}/lib/libpkg.so"',
            '  INTERFACE_LINK_LIBRARIES "pkg::runtime;$<LINK_ONLY:dep::core>;${PKG_EXTRA_LIBRARY}")',
            "list(APPEND PKG_LIBRARIES ${PKG_EXTRA_LIBRARY})",
        ]
    )
    evaluations, found = _run(tmp_path, extra, ("libpkg.so", "libpkg_extra.so"))
    assert found == []
    assert all(ev.diagnostics == () for ev in evaluations)


def test_the_configs_own_warning_is_reported_where_it_is_raised(tmp_path: Path) -> None:
    extra = 'message(WARNING "pkg: the CUDA backend was not built;\n  using the CPU one")'
    _, found = _run(tmp_path, extra)
    by_version = _by_version(found, "SL130")
    assert sorted(by_version) == sorted(BOTH)
    for (diagnostic,) in by_version.values():
        assert _at(diagnostic) == f"{CONFIG}:7"
        assert "pkg: the CUDA backend was not built" in diagnostic.message


def test_a_send_error_is_the_evaluation_failing_at_its_line(tmp_path: Path) -> None:
    _, found = _run(tmp_path, 'message(SEND_ERROR "pkg: broken install")')
    by_version = _by_version(found, "SL111")
    assert sorted(by_version) == sorted(BOTH)
    for (diagnostic,) in by_version.values():
        assert _at(diagnostic) == f"{CONFIG}:7"
        assert "pkg: broken install" in diagnostic.message


@pytest.mark.parametrize(
    "extra",
    [
        'set_property(TARGET pkg::runtime APPEND PROPERTY INTERFACE_LINK_LIBRARIES "dep::core")',
        'set_property(TARGET pkg::runtime APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:dep::core>")',
        # install(EXPORT)'s form: CMake names the command's first line, not the property's.
        'set_target_properties(pkg::runtime PROPERTIES\n  INTERFACE_COMPILE_DEFINITIONS "A=(1"\n'
        '  INTERFACE_LINK_LIBRARIES "pkg::runtime_base;dep::core"\n)',
    ],
    ids=["plain", "link-only", "multi-line"],
)
def test_a_link_item_naming_no_target_is_reported_where_cmake_reports_it(
    tmp_path: Path, extra: str
) -> None:
    extra = "add_library(pkg::runtime_base INTERFACE IMPORTED)\n" + extra
    _, found = _run(tmp_path, extra)
    by_version = _by_version(found, "SL135")
    assert sorted(by_version) == sorted(BOTH)
    for (diagnostic,) in by_version.values():
        assert _at(diagnostic) == f"{CONFIG}:8"
        assert diagnostic.subject.target == "pkg::runtime"
        assert "links dep::core, which is no target after find_package" in diagnostic.message


def test_a_library_the_config_does_not_ship_is_notfound_in_the_target_and_the_variable(
    tmp_path: Path,
) -> None:
    extra = "\n".join(
        [
            _FIND_EXTRA,
            "set_property(TARGET pkg::runtime APPEND PROPERTY",
            '  INTERFACE_LINK_LIBRARIES "${PKG_EXTRA_LIBRARY}")',
            "list(APPEND PKG_LIBRARIES ${PKG_EXTRA_LIBRARY})",
        ]
    )
    _, found = _run(tmp_path, extra)
    for code, subject in (("SL131", "pkg::runtime"), ("SL132", "PKG_LIBRARIES")):
        by_version = _by_version(found, code)
        assert sorted(by_version) == sorted(BOTH), code
        for (diagnostic,) in by_version.values():
            # The find_library that found nothing.
            assert _at(diagnostic) == f"{CONFIG}:7"
            assert "PKG_EXTRA_LIBRARY-NOTFOUND" in diagnostic.message
            assert subject in (diagnostic.subject.target, diagnostic.subject.variable)


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        ("add_library(pkg_helpers INTERFACE)", "pkg_helpers"),
        (
            'add_custom_target(pkg_models ALL COMMAND "${CMAKE_COMMAND}" -E echo models)',
            "pkg_models",
        ),
    ],
)
def test_a_target_of_the_consumers_own_project_is_reported(
    tmp_path: Path, extra: str, name: str
) -> None:
    _, found = _run(tmp_path, extra)
    by_version = _by_version(found, "SL133")
    assert sorted(by_version) == sorted(BOTH)
    for (diagnostic,) in by_version.values():
        assert _at(diagnostic) == f"{CONFIG}:7"
        assert diagnostic.subject.target == name


def test_a_cache_entry_added_to_the_consumers_cache_is_reported(tmp_path: Path) -> None:
    extra = 'find_library(PKG_RUNTIME_LIBRARY pkg PATHS "${_root}/lib" NO_DEFAULT_PATH)'
    _, found = _run(tmp_path, extra)
    by_version = _by_version(found, "SL134")
    assert sorted(by_version) == sorted(BOTH)
    for (diagnostic,) in by_version.values():
        assert _at(diagnostic) == f"{CONFIG}:7"
        assert diagnostic.subject.variable == "PKG_RUNTIME_LIBRARY"
        assert "FILEPATH" in diagnostic.message and "libpkg.so" in diagnostic.message
