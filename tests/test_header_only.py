"""Header-only is a shape of its own: an INTERFACE component ships with the package, a
package may have no library at all, and a target need not be a find_package component.

Configs written the way pybind11's, Eigen's and fmt's are (INTERFACE targets, no
COMPONENTS, `check_required_components` refusing any component asked as REQUIRED), each
evaluated with real CMake 3.24.3 and 4.4.5; the real wheels are pinned in
tests/test_other_wheels_golden.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")

# CMake's configure_package_config_file macro, as pybind11's and fmt's configs hold it.
_CHECK_REQUIRED = """
macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()
"""

# pybind11's shape: no library, INTERFACE targets, no COMPONENTS.
_HEADER_ONLY_PACKAGE = (
    _CHECK_REQUIRED
    + """
set(_include "${CMAKE_CURRENT_LIST_DIR}/../../include")
add_library(pkg::headers INTERFACE IMPORTED)
set_target_properties(pkg::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_include}")
add_library(pkg::module INTERFACE IMPORTED)
set_property(TARGET pkg::module PROPERTY INTERFACE_LINK_LIBRARIES pkg::headers)
@EMBED@
check_required_components(pkg)
"""
)
_EMBED = """add_library(pkg::embed INTERFACE IMPORTED)
set_property(TARGET pkg::embed PROPERTY INTERFACE_LINK_LIBRARIES pkg::headers)"""


def _tree(tmp_path: Path, config: str, libraries: tuple[str, ...] = ()) -> Path:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "include" / "pkg").mkdir(parents=True)
    (root / "pkg" / "include" / "pkg" / "pkg.h").write_text("#pragma once\n", encoding="utf-8")
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in libraries:
        (root / "pkg" / "lib" / name).write_bytes(b"\x7fELF")
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    return root


def _evaluate(
    root: Path, the_manifest: Manifest
) -> tuple[list[ConfigEvaluation], list[Diagnostic]]:
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    versions = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(v)) for v in versions], 60.0)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    diagnostics = lint(RULES, the_manifest, models, Selection(select=("SL1",), ignore=("SL116",)))
    return evaluations, diagnostics


def _targets_only(*names: str) -> Manifest:
    return manifest(
        libraries=(),
        components=tuple(
            Component(name, False, None, header_only=True, requestable=False) for name in names
        ),
    )


def test_a_package_with_no_library_and_no_components_is_checked(tmp_path: Path) -> None:
    config = _HEADER_ONLY_PACKAGE.replace("@EMBED@", _EMBED)
    evaluations, diagnostics = _evaluate(
        _tree(tmp_path, config), _targets_only("headers", "module", "embed")
    )
    assert [(d.code, d.message) for d in diagnostics] == []
    assert len(evaluations) == 2
    for ev in evaluations:
        assert ev.failure is None and ev.found
        assert {t.name for t in ev.targets} == {"pkg::headers", "pkg::module", "pkg::embed"}
        # No component is named after COMPONENTS: the package takes none.
        assert ev.requests == ()


def test_a_missing_target_of_a_header_only_package_is_reported(tmp_path: Path) -> None:
    config = _HEADER_ONLY_PACKAGE.replace("@EMBED@", "")
    _, diagnostics = _evaluate(_tree(tmp_path, config), _targets_only("headers", "module", "embed"))
    assert sorted(d.code for d in diagnostics) == ["SL105", "SL105"]
    for finding in diagnostics:
        assert finding.subject.target == "pkg::embed"
        assert "no imported target pkg::embed for the header-only component embed" in (
            finding.message
        )


# A package with a library and a header-only find_package component (`headers`), which
# refuses every other component by name.
_WITH_HEADERS_COMPONENT = """
set(_root "${CMAKE_CURRENT_LIST_DIR}/../..")
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "${_root}/lib/libpkg.so")
add_library(pkg::headers INTERFACE IMPORTED)
set_target_properties(pkg::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_root}/include")
set(pkg_FOUND TRUE)
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(_c STREQUAL "runtime" OR _c STREQUAL "headers")
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""


def test_a_header_only_component_is_shipped_when_its_target_exists(tmp_path: Path) -> None:
    """Asked for with the shipped components, not as one the package lacks (SL109)."""
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(
            Component("runtime", False, None),
            Component("headers", False, None, header_only=True),
        ),
    )
    evaluations, diagnostics = _evaluate(
        _tree(tmp_path, _WITH_HEADERS_COMPONENT, ("libpkg.so",)), the_manifest
    )
    assert [(d.code, d.message) for d in diagnostics] == []
    for ev in evaluations:
        headers = ev.request("headers")
        assert headers is not None and headers.shipped and headers.found
        assert headers.required_found  # asked as REQUIRED too, with the shipped ones


def test_a_library_target_need_not_be_a_component(tmp_path: Path) -> None:
    """fmt's shape: fmt::fmt imports the library, but fmt takes no COMPONENTS."""
    config = (
        _CHECK_REQUIRED + "add_library(pkg::runtime SHARED IMPORTED)\n"
        'set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "'
        '${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")\n'
        "check_required_components(pkg)\n"
    )
    requestable = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
    )
    _, asked = _evaluate(_tree(tmp_path / "a", config, ("libpkg.so",)), requestable)
    # Declared a component, the config refuses it as one (no pkg_runtime_FOUND).
    assert "SL110" in {d.code for d in asked}
    target = manifest(
        libraries=requestable.libraries,
        components=(Component("runtime", False, None, requestable=False),),
    )
    _, diagnostics = _evaluate(_tree(tmp_path / "b", config, ("libpkg.so",)), target)
    assert [(d.code, d.message) for d in diagnostics] == []


_YAML = """\
version: 1
package: {name: pkg}
cmake:
  package: pkg
  namespace: "pkg::"
  package_root: pkg
  installed_config_dirs: [pkg/share/cmake]
  routes: [{name: any, since: "3.15"}]
libraries: []
components:
  - {name: headers, header_only: true, requestable: false}
  - {name: module, header_only: true, requestable: false@EXTRA@}
"""


def test_the_manifest_of_a_header_only_package_loads(tmp_path: Path) -> None:
    path = tmp_path / "shiplint.yaml"
    path.write_text(_YAML.replace("@EXTRA@", ""), encoding="utf-8")
    loaded = load_manifest(path)
    assert loaded.libraries == ()
    assert [(c.name, c.header_only, c.requestable) for c in loaded.components] == [
        ("headers", True, False),
        ("module", True, False),
    ]


@pytest.mark.parametrize("extra", [", request: Module", ", only_on_request: true"])
def test_a_target_that_is_no_component_has_no_request(tmp_path: Path, extra: str) -> None:
    path = tmp_path / "shiplint.yaml"
    path.write_text(_YAML.replace("@EXTRA@", extra), encoding="utf-8")
    with pytest.raises(ManifestError) as raised:
        load_manifest(path)
    field = extra.split(":")[0].strip(", ")
    assert f"component 'module' is not requestable (requestable: false) but sets {field}" in str(
        raised.value
    )
