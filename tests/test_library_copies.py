"""Identical copies of one library (`libx.so`, `libx.so.1`, `libx.so.1.2.3`) are one library.

A wheel holds no symlinks, so a library ships under each of its names as a byte-identical
copy; an install tree holds the symlinks. A CMake config imports one name (CMake's own
export writes the fully versioned one), the manifest names another: the config's target
and its aggregate still name the manifest's library. The config is evaluated with real
CMake on both routes (paths below 3.28, imported targets from 3.28). A sibling with other
bytes is another library, and stays reported.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.copies import place_with_copies, version_stem
from shiplint.cmake_eval import evaluate_artifact
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Aggregate, Carries, Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")

# The paths route hands out the fully versioned file, as CMake's export names it; the
# targets route imports it.
_CONFIG = """
set(_lib "${CMAKE_CURRENT_LIST_DIR}/../../lib")
set(pkg_FOUND TRUE)
if(CMAKE_VERSION VERSION_LESS 3.28)
  set(PKG_LIBRARIES "${_lib}/libpkg.so.1.2.3;${_lib}/libpkg_extra.so.2")
else()
  add_library(pkg::runtime SHARED IMPORTED)
  set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "${_lib}/libpkg.so.1.2.3")
  add_library(pkg::extra SHARED IMPORTED)
  set_target_properties(pkg::extra PROPERTIES IMPORTED_LOCATION "${_lib}/libpkg_extra.so.2")
  set(PKG_LIBRARIES pkg::runtime pkg::extra)
endif()
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT _c MATCHES "^(runtime|extra)$")
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""

_RUNTIME = b"\x7fELF runtime bytes"


def _manifest() -> Manifest:
    # No `file`: the default names, libpkg.so and libpkg_extra.so.
    base = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_extra", components=("extra",)),
        ),
        components=(Component("runtime", False, None), Component("extra", False, None)),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),),
    )
    paths, targets = base.cmake.routes
    routes = (replace(paths, imported_targets=False), targets)
    return replace(base, cmake=replace(base.cmake, routes=routes))


def _tree(tmp_path: Path, versioned: bytes = _RUNTIME, links: bool = False) -> Path:
    root = tmp_path / "pkg-1.0"
    lib = root / "pkg" / "lib"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    lib.mkdir(parents=True)
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(_CONFIG, encoding="utf-8")
    (lib / "libpkg.so.1.2.3").write_bytes(versioned)
    if links:
        os.symlink("libpkg.so.1.2.3", lib / "libpkg.so.1")
        os.symlink("libpkg.so.1", lib / "libpkg.so")
    else:
        (lib / "libpkg.so.1").write_bytes(_RUNTIME)
        (lib / "libpkg.so").write_bytes(_RUNTIME)
    (lib / "libpkg_extra.so.2").write_bytes(b"\x7fELF extra bytes")
    (lib / "libpkg_extra.so").write_bytes(b"\x7fELF extra bytes")
    return root


def _lint(root: Path, the_manifest: Manifest) -> list[Diagnostic]:
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    versions = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(v)) for v in versions], 60.0)
    return lint(RULES, the_manifest, models, Selection(select=("SL1",), ignore=("SL116",)))


@pytest.mark.parametrize("links", [False, True], ids=["copies", "symlinks"])
def test_a_config_naming_another_copy_names_the_manifest_library(
    tmp_path: Path, links: bool
) -> None:
    diagnostics = _lint(_tree(tmp_path, links=links), _manifest())
    assert [(d.code, d.message) for d in diagnostics] == []


def test_a_sibling_with_other_bytes_is_another_library(tmp_path: Path) -> None:
    """The versioned file the config names is not the libpkg.so the manifest ships."""
    diagnostics = _lint(_tree(tmp_path, versioned=b"\x7fELF another build"), _manifest())
    codes = sorted(d.code for d in diagnostics)
    # Paths route: the aggregate's entry resolves to nothing (SL118) and lacks the runtime
    # (SL102); targets route: the runtime's target imports another file (SL107); the
    # routes disagree (SL103).
    assert codes == ["SL102", "SL103", "SL107", "SL118"]
    (sl107,) = [d for d in diagnostics if d.code == "SL107"]
    assert "pkg/lib/libpkg.so.1.2.3" in sl107.message
    assert sl107.subject.library == "pkg"


def test_copies_are_found_by_bytes_among_version_siblings(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "pkg" / "lib" / "libpkg.so.9").write_bytes(b"\x7fELF other")
    tree = open_artifact(root)
    (runtime, extra) = place_with_copies(tree, _manifest(), LINUX, tree.names())
    assert runtime.member == "pkg/lib/libpkg.so"
    assert runtime.copies == ("pkg/lib/libpkg.so.1", "pkg/lib/libpkg.so.1.2.3")
    assert runtime.files == ("pkg/lib/libpkg.so", "pkg/lib/libpkg.so.1", "pkg/lib/libpkg.so.1.2.3")
    # The sibling with other bytes is no copy: still a lookalike a finding may name.
    assert runtime.lookalikes == ("libpkg.so.9",)
    assert extra.copies == ("pkg/lib/libpkg_extra.so.2",)


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("libx.so", "libx"),
        ("libx.so.6", "libx"),
        ("libx.so.6.0.0", "libx"),
        ("libx.6.dylib", "libx"),
        ("libx.dylib", "libx"),
        ("libx_2_5.so.3", "libx_2_5"),
    ],
)
def test_version_stem(name: str, stem: str) -> None:
    assert version_stem(name) == stem
