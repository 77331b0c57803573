"""How a config answers component requests, asked as consumers ask: with and without
REQUIRED, batched and one by one. Small configs shaped like real ones, real CMake."""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")


def _manifest() -> Manifest:
    return manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_core", components=("core",)),
        ),
        components=(Component("runtime", False, None), Component("core", False, None)),
    )


def evaluate(
    tmp_path: Path, config: str, the_manifest: Manifest, libraries: tuple[str, ...]
) -> tuple[ConfigEvaluation, list[Diagnostic]]:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in libraries:
        (root / "pkg" / "lib" / name).write_bytes(b"")
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(NEW_CMAKE_VERSION))], 60.0)
    (ev,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    selection = Selection(select=("SL1",), ignore=("SL116",))
    return ev, lint(RULES, the_manifest, models, selection)


# A config that takes another path when REQUIRED: it then insists on a versioned file
# the package does not ship (@REQUIRED_FILE@), or on the one it does.
_BRANCHES = """
set(_lib "${CMAKE_CURRENT_LIST_DIR}/../../lib")
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  set(_file "${_lib}/libpkg_${_c}.so")
  if(_c STREQUAL "runtime")
    set(_file "${_lib}/libpkg.so")
  endif()
  if(pkg_FIND_REQUIRED AND _c STREQUAL "core")
    set(_file "${_lib}/@REQUIRED_FILE@")
  endif()
  if(EXISTS "${_file}")
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_${_c}_FOUND FALSE)
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: ${_c} needs ${_file}")
  endif()
endforeach()
"""


@pytest.mark.parametrize(
    ("required_file", "fires"), [("libpkg_core.so.2", True), ("libpkg_core.so", False)]
)
def test_a_config_that_answers_required_requests_differently_is_reported(
    tmp_path: Path, required_file: str, fires: bool
) -> None:
    config = _BRANCHES.replace("@REQUIRED_FILE@", required_file)
    ev, diagnostics = evaluate(tmp_path, config, _manifest(), ("libpkg.so", "libpkg_core.so"))
    core = ev.request("core")
    assert core is not None and core.found
    assert core.required_found is (not fires)
    runtime = ev.request("runtime")
    assert runtime is not None and runtime.required_found is True
    sl119 = [d for d in diagnostics if d.code == "SL119"]
    if not fires:
        assert sl119 == []
        return
    (finding,) = sl119
    assert finding.subject.component == "core"
    assert "find_package(pkg COMPONENTS core REQUIRED) refuses core" in finding.message
    assert "libpkg_core.so.2" in finding.message
    assert "while find_package(pkg COMPONENTS core) finds it" in finding.message


def test_a_component_found_only_when_required_is_reported_the_other_way(
    tmp_path: Path,
) -> None:
    config = _BRANCHES.replace("@REQUIRED_FILE@", "libpkg_core.so").replace(
        'set(_file "${_lib}/libpkg_${_c}.so")', 'set(_file "${_lib}/libpkg_${_c}.so.9")'
    )
    _, diagnostics = evaluate(tmp_path, config, _manifest(), ("libpkg.so", "libpkg_core.so"))
    (finding,) = [d for d in diagnostics if d.code == "SL119"]
    assert "find_package(pkg COMPONENTS core) refuses core" in finding.message
    assert "while find_package(pkg COMPONENTS core REQUIRED) finds it" in finding.message


# Answers every request as a whole and unsets the per-component answers before
# returning (OpenVINO does): a batched refusal does not say whom it is about.
_UNANSWERED = """
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg_${_c}.so"
     AND NOT _c STREQUAL "runtime")
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: no ${_c}")
  endif()
  unset(pkg_${_c}_FOUND)
endforeach()
"""


def test_a_batched_refusal_is_blamed_only_on_the_component_refused_alone(
    tmp_path: Path,
) -> None:
    """The batched request for runtime and core fails because of core only; asked one
    by one, runtime is found, so only core is reported."""
    # core ships under a name this config does not look for.
    the_manifest = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_core", components=("core",), output_name="pkg_core2"),
        ),
        components=(Component("runtime", False, None), Component("core", False, None)),
    )
    ev, diagnostics = evaluate(
        tmp_path, _UNANSWERED, the_manifest, ("libpkg.so", "libpkg_core2.so")
    )
    runtime, core = ev.request("runtime"), ev.request("core")
    assert runtime is not None and runtime.retried and runtime.found
    assert core is not None and core.retried and not core.found
    assert [(d.code, d.subject.component) for d in diagnostics if d.code == "SL110"] == [
        ("SL110", "core")
    ]
