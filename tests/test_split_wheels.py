"""An SDK split across wheels (a runtime wheel and a -devel wheel holding the config),
checked as the one prefix they install into: real compiled libraries, real CMake."""

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

TAG = "py3-none-manylinux_2_28_x86_64"
RUNTIME_WHEEL = f"pkg-1.0-{TAG}.whl"
DEVEL_WHEEL = f"pkg_devel-1.0-{TAG}.whl"
DEVEL_DATA = "pkg_devel-1.0.data/data"

MANIFEST = f"""\
version: 1
package:
  name: pkg-devel
  companions: [pkg]
cmake:
  package: pkg
  namespace: "pkg::"
  package_root: {DEVEL_DATA}
  installed_config_dirs: [{DEVEL_DATA}/lib/cmake/pkg]
  routes:
    - {{name: old, below: "3.28"}}
    - {{name: new, since: "3.28"}}
libraries:
  # Shipped by the pkg wheel, installed into the same prefix.
  - name: pkg
    kind: runtime
    platforms:
      linux: {{dir: {DEVEL_DATA}/lib}}
    owns: {{components: [runtime]}}
  - name: pkg_comp
    kind: component
    platforms:
      linux: {{dir: {DEVEL_DATA}/lib}}
    owns: {{components: [comp]}}
    depends_on: [pkg]
components:
  - name: runtime
  - name: comp
aggregates:
  - variable: PKG_LIBRARIES
    carries: {{all_except: []}}
externals:
  system: ["libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"]
"""

# The exported form: every imported file must exist, else the config refuses.
CONFIG = """\
get_filename_component(_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
foreach(_c IN ITEMS runtime comp)
  set(_file "${_prefix}/lib/libpkg_${_c}.so")
  if(_c STREQUAL "runtime")
    set(_file "${_prefix}/lib/libpkg.so")
  endif()
  if(NOT EXISTS "${_file}")
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: ${_file} is missing")
    return()
  endif()
  add_library(pkg::${_c} SHARED IMPORTED)
  set_target_properties(pkg::${_c} PROPERTIES IMPORTED_LOCATION "${_file}")
endforeach()
set_target_properties(pkg::comp PROPERTIES INTERFACE_LINK_LIBRARIES pkg::runtime)
set(PKG_LIBRARIES pkg::runtime pkg::comp)
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT TARGET pkg::${_c})
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""


def _wheels(tmp_path: Path, libs: dict[str, Path], runtime: str = "libpkg.so") -> list[Path]:
    runtime_wheel = pack_wheel(
        tmp_path / RUNTIME_WHEEL,
        {
            "pkg-1.0.data/data/lib/libpkg.so": libs[runtime],
            "pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
        },
    )
    devel_wheel = pack_wheel(
        tmp_path / DEVEL_WHEEL,
        {
            f"{DEVEL_DATA}/lib/libpkg_comp.so": libs["libpkg_comp.so"],
            f"{DEVEL_DATA}/lib/cmake/pkg/pkg-config.cmake": CONFIG.encode(),
            f"{DEVEL_DATA}/lib/cmake/pkg/pkg-config-version.cmake": VERSION_FILE.encode(),
            "pkg_devel-1.0.dist-info/METADATA": (
                b"Metadata-Version: 2.1\nName: pkg-devel\nVersion: 1.0\nRequires-Dist: pkg==1.0\n"
            ),
        },
    )
    return [devel_wheel, runtime_wheel]


def _check(tmp_path: Path, artifacts: list[Path]) -> list[dict[str, Any]]:
    manifest = tmp_path / "shiplint.yaml"
    manifest.write_text(MANIFEST, encoding="utf-8")
    report = tmp_path / "report.json"
    main(
        [
            "check", "--no-sources", "--manifest", str(manifest),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(report),
            *(str(a) for a in artifacts),
        ]
    )  # fmt: skip
    diagnostics: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))[
        "diagnostics"
    ]
    return diagnostics


@pytest.mark.parametrize("order", ["devel first", "runtime first"])
def test_the_wheels_together_are_one_clean_prefix(
    tmp_path: Path, built_libs: dict[str, Path], order: str
) -> None:
    wheels = _wheels(tmp_path, built_libs)
    if order == "runtime first":
        wheels.reverse()
    diagnostics = _check(tmp_path, wheels)
    assert [(d["code"], d["message"]) for d in diagnostics] == []


def test_the_devel_wheel_alone_is_not_the_sdk(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    devel, _ = _wheels(tmp_path, built_libs)
    diagnostics = _check(tmp_path, [devel])
    by_code: dict[str, list[dict[str, Any]]] = {}
    for d in diagnostics:
        by_code.setdefault(d["code"], []).append(d)
    # The runtime is missing, the component's NEEDED libpkg.so and the symbol it calls
    # resolve nowhere, and the config refuses on both routes because the library it
    # imports is not there.
    assert by_code["SL301"][0]["subject"]["library"] == "pkg"
    (needed,) = by_code["SL308"]
    assert "needs libpkg.so" in needed["message"]
    (symbol,) = by_code["SL320"]
    assert "pkg::runtime::register_kernel(int)" in symbol["message"]
    assert len(by_code["SL113"]) == 2
    assert "is missing" in by_code["SL113"][0]["message"]


def test_a_finding_in_the_companion_points_at_the_companion_wheel(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    """The runtime wheel's library has the wrong SONAME: the finding names that wheel and
    its own member, not the devel wheel."""
    wheels = _wheels(tmp_path, built_libs, runtime="libpkg_badname.so")
    diagnostics = _check(tmp_path, wheels)
    (finding,) = [d for d in diagnostics if d["code"] == "SL304"]
    assert finding["location"]["path"] == str(tmp_path / RUNTIME_WHEEL)
    assert finding["location"]["member"] == "pkg-1.0.data/data/lib/libpkg.so"
    assert finding["subject"]["library"] == "pkg"


def test_a_companion_that_is_the_package_is_a_manifest_error(tmp_path: Path) -> None:
    path = tmp_path / "shiplint.yaml"
    path.write_text(MANIFEST.replace("companions: [pkg]", "companions: [pkg_devel]"))
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    (problem,) = caught.value.problems
    assert problem.message == "companion 'pkg_devel' is the package itself (package.name)"
    assert problem.location.line == 4
