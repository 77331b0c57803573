"""Components shipped as static archives: a real archive (ar of g++ output) beside a
real shared runtime in a wheel, its config evaluated with real CMake on both routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shiplint.cli import main
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import VERSION_FILE
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

__all__ = ["built_libs"]

WHEEL = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"

MANIFEST = """\
version: 1
package: {name: pkg}
cmake:
  package: pkg
  namespace: "pkg::"
  package_root: pkg
  installed_config_dirs: [pkg/share/cmake]
  routes:
    - {name: old, below: "3.28"}
    - {name: new, since: "3.28"}
libraries:
  - name: pkg
    kind: runtime
    platforms:
      linux: {dir: pkg/lib}
    owns: {components: [runtime]}
  - name: pkg_comp
    kind: component
    type: static
    platforms:
      linux: {dir: pkg/lib@FILE@}
    owns: {components: [comp]}
components:
  - name: runtime
  - name: comp
aggregates:
  - variable: PKG_LIBRARIES
    carries: {all_except: []}
externals:
  system: ["libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"]
"""

# The archive's consumers link the runtime too: it calls pkg::runtime::register_kernel.
CONFIG = """\
set(_lib "${CMAKE_CURRENT_LIST_DIR}/../../lib")
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "${_lib}/libpkg.so")
add_library(pkg::comp @TYPE@ IMPORTED)
set_target_properties(pkg::comp PROPERTIES IMPORTED_LOCATION "${_lib}/@ARCHIVE@"
  INTERFACE_LINK_LIBRARIES pkg::runtime)
set(PKG_LIBRARIES pkg::runtime pkg::comp)
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT TARGET pkg::${_c})
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""


def _check(
    tmp_path: Path,
    built_libs: dict[str, Path],
    *,
    archive: str = "libpkg_comp.a",
    archive_file: str = "libpkg_static.a",
    target_type: str = "STATIC",
    file_glob: str = "",
) -> list[dict[str, Any]]:
    config = CONFIG.replace("@TYPE@", target_type).replace("@ARCHIVE@", archive)
    wheel = pack_wheel(
        tmp_path / WHEEL,
        {
            "pkg/lib/libpkg.so": built_libs["libpkg.so"],
            f"pkg/lib/{archive}": built_libs[archive_file],
            "pkg/share/cmake/pkg-config.cmake": config.encode(),
            "pkg/share/cmake/pkg-config-version.cmake": VERSION_FILE.encode(),
        },
    )
    manifest = tmp_path / "shiplint.yaml"
    placement = f", file: {file_glob!r}" if file_glob else ""
    manifest.write_text(MANIFEST.replace("@FILE@", placement), encoding="utf-8")
    report = tmp_path / "report.json"
    main(
        [
            "check",
            "--no-sources",
            "--manifest",
            str(manifest),
            "--cmake",
            str(cmake(OLD_CMAKE_VERSION)),
            "--cmake",
            str(cmake(NEW_CMAKE_VERSION)),
            "--format",
            "json",
            "--output",
            str(report),
            str(wheel),
        ]
    )
    diagnostics: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))[
        "diagnostics"
    ]
    return diagnostics


def test_a_static_component_with_a_static_target_is_clean(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    diagnostics = _check(tmp_path, built_libs)
    assert [(d["code"], d["message"]) for d in diagnostics] == []


def test_a_static_archive_imported_as_shared_is_reported_on_both_routes(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    diagnostics = _check(tmp_path, built_libs, target_type="SHARED")
    sl121 = [d for d in diagnostics if d["code"] == "SL121"]
    assert sorted(d["subject"]["cmake_version"] for d in sl121) == sorted(
        (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
    )
    for finding in sl121:
        assert finding["subject"]["target"] == "pkg::comp"
        assert finding["subject"]["library"] == "pkg_comp"
        assert "pkg::comp is a SHARED_LIBRARY IMPORTED target" in finding["message"]
        assert "declares pkg_comp, the library of comp, static" in finding["message"]
    assert {d["code"] for d in diagnostics} == {"SL121"}


@pytest.mark.parametrize("target_type", ["STATIC", "UNKNOWN"])
def test_a_shared_object_where_the_manifest_declares_an_archive_is_reported(
    tmp_path: Path, built_libs: dict[str, Path], target_type: str
) -> None:
    diagnostics = _check(
        tmp_path,
        built_libs,
        archive="libpkg_comp.so",
        archive_file="libpkg_comp.so",
        target_type=target_type,
        file_glob="libpkg_comp.*",
    )
    sl303 = [d for d in diagnostics if d["code"] == "SL303"]
    (finding,) = sl303
    assert finding["location"]["member"] == "pkg/lib/libpkg_comp.so"
    assert (
        "is a shared library, not the static archive the manifest declares" in (finding["message"])
    )
    # The target's type agrees with the manifest: only the file is wrong.
    sl121 = [d for d in diagnostics if d["code"] == "SL121"]
    assert sl121 == []


def test_a_static_library_is_looked_for_under_its_archive_name(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    """No `file:` given: lib<name>.a is the name; a shared object of the same stem is
    named as what was found instead."""
    diagnostics = _check(
        tmp_path, built_libs, archive="libpkg_comp.so", archive_file="libpkg_comp.so"
    )
    (finding,) = [d for d in diagnostics if d["code"] == "SL301"]
    assert finding["location"]["member"] == "pkg/lib/libpkg_comp.a"
    assert "found instead: libpkg_comp.so" in finding["message"]


def test_a_static_plugin_is_a_manifest_error(tmp_path: Path) -> None:
    text = MANIFEST.replace("@FILE@", "").replace(
        "    kind: component\n    type: static", "    kind: plugin\n    type: static"
    )
    path = tmp_path / "shiplint.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    (problem,) = caught.value.problems
    assert "library 'pkg_comp' is a plugin and static" in problem.message
    assert problem.location.line == text.splitlines().index("    type: static") + 1
