"""Several CMake packages in one manifest: each installed config is evaluated on its own,
with the components, aggregates and variables that name it, and reported at its file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import (
    Aggregate,
    Carries,
    Component,
    LibraryKind,
    Manifest,
    OtherPackage,
    Placement,
)
from shiplint.platforms import Platform, PlatformSelector
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, REPO, cmake

LINUX = Platform("linux", "x86_64")

_MAIN = """
include(CMakeFindDependencyMacro)
find_dependency(dep CONFIG PATHS "${CMAKE_CURRENT_LIST_DIR}" NO_DEFAULT_PATH)
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES
  IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so"
  INTERFACE_LINK_LIBRARIES dep::dep)
set(PKG_LIBRARIES pkg::runtime)
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT _c STREQUAL "runtime")
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""

# A vendored library's own config beside the package's.
_DEP = """
if(NOT TARGET dep::dep AND NOT "@BROKEN@")
  add_library(dep::dep SHARED IMPORTED)
  set_target_properties(dep::dep PROPERTIES
    IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libdep.so.3")
endif()
set(DEP_LIBRARIES @DEP_LIBRARIES@)
foreach(_c IN LISTS dep_FIND_COMPONENTS)
  if(NOT _c STREQUAL "dep")
    set(dep_FOUND FALSE)
    set(dep_NOT_FOUND_MESSAGE "dep has no component ${_c}")
  endif()
endforeach()
"""


def _manifest() -> Manifest:
    base = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library(
                "dep",
                LibraryKind.BUNDLED,
                components=("dep",),
                placements=(
                    Placement(PlatformSelector.parse("linux"), "pkg/lib", "libdep.so.3", True),
                ),
            ),
        ),
        components=(
            Component("runtime", False, None),
            Component("dep", False, None, package="dep"),
        ),
        aggregates=(
            Aggregate("PKG_LIBRARIES", Carries(), ()),
            Aggregate("DEP_LIBRARIES", Carries(), (), package="dep"),
        ),
    )
    others = (OtherPackage("dep", "dep::", ("pkg/share/cmake",)),)
    return replace(base, cmake=replace(base.cmake, other_packages=others))


def _evaluate(
    tmp_path: Path, dep: str, version: str
) -> tuple[list[ConfigEvaluation], list[Diagnostic]]:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in ("libpkg.so", "libdep.so.3"):
        (root / "pkg" / "lib" / name).write_bytes(b"")
    config_dir = root / "pkg" / "share" / "cmake"
    (config_dir / "pkg-config.cmake").write_text(_MAIN, encoding="utf-8")
    (config_dir / "dep-config.cmake").write_text(dep, encoding="utf-8")
    the_manifest = _manifest()
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(version))], 60.0)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    selection = Selection(select=("SL1",), ignore=("SL116",))
    return evaluations, lint(RULES, the_manifest, models, selection)


def _dep(broken: str = "", aggregate: str = "dep::dep") -> str:
    return _DEP.replace("@BROKEN@", broken).replace("@DEP_LIBRARIES@", aggregate)


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_each_package_is_evaluated_with_its_own_components(tmp_path: Path, version: str) -> None:
    evaluations, diagnostics = _evaluate(tmp_path, _dep(), version)
    assert [(d.code, d.message) for d in diagnostics] == []
    by_package = {ev.cmake_package: ev for ev in evaluations}
    assert set(by_package) == {"pkg", "dep"}
    main, dep = by_package["pkg"], by_package["dep"]
    assert main.config.member == "pkg/share/cmake/pkg-config.cmake"
    assert dep.config.member == "pkg/share/cmake/dep-config.cmake"
    # Each package's requests are its own components'; each aggregate is read from its config.
    assert [r.component for r in main.requests if r.shipped] == ["runtime"]
    assert [r.component for r in dep.requests if r.shipped] == ["dep"]
    assert [a.variable for a in main.aggregates] == ["PKG_LIBRARIES"]
    assert dep.aggregates[0].variable == "DEP_LIBRARIES"
    assert dep.aggregates[0].components == ("dep",)


def test_a_defect_of_the_second_package_is_reported_at_its_config(tmp_path: Path) -> None:
    _, found = _evaluate(tmp_path, _dep(broken="1", aggregate=""), NEW_CMAKE_VERSION)
    # The main package's runtime links dep::dep, which the broken config no longer
    # defines: a consumer linking pkg::runtime fails at generate time (SL135, at the
    # main config's set_target_properties).
    (dangling,) = [d for d in found if d.code == "SL135"]
    assert dangling.location.member == "pkg/share/cmake/pkg-config.cmake"
    assert dangling.location.line == 5 and dangling.subject.target == "pkg::runtime"
    diagnostics = [d for d in found if d.code != "SL135"]
    assert sorted(d.code for d in diagnostics) == ["SL102", "SL105"]
    for finding in diagnostics:
        assert finding.location.member == "pkg/share/cmake/dep-config.cmake"
        assert finding.subject.component == "dep"
    (sl105,) = [d for d in diagnostics if d.code == "SL105"]
    assert "no imported target dep::dep" in sl105.message
    (sl102,) = [d for d in diagnostics if d.code == "SL102"]
    assert "DEP_LIBRARIES does not carry the shipped component dep" in sl102.message


def _openvino_with(old: str, new: str) -> str:
    text = (REPO / "examples" / "openvino" / "shiplint.yaml").read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            "{name: tbb, package: TBB}",
            "{name: tbb, package: TBBX}",
            "package 'TBBX' is neither cmake.package nor one of cmake.other_packages",
        ),
        (
            "    - package: TBB\n",
            "    - package: OpenVINO\n",
            "other package 'OpenVINO' is the main package (cmake.package)",
        ),
        (
            "externals:\n",
            "aggregates:\n  - variable: TBB_IMPORTED_TARGETS\n    package: TBB\n"
            "    carries: {only: [tbb, onnx]}\nexternals:\n",
            "aggregate TBB_IMPORTED_TARGETS of package TBB names component 'onnx' of package "
            "OpenVINO",
        ),
    ],
)
def test_packages_named_in_the_manifest_must_agree(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    path = tmp_path / "shiplint.yaml"
    path.write_text(_openvino_with(old, new), encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    # Renaming the other package also leaves TBB's components naming an unknown one.
    assert caught.value.problems[0].message == problem
