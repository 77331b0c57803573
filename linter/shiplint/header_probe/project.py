"""The one CMake project that compiles every header alone: one translation unit each.

Configured twice in the same build directory: first with no header, to learn which
component targets the config defines and the include directories they publish
(evaluated by CMake itself, generator expressions and all); then with one
translation unit per header, built with the build tool's keep-going switch so every
header is tried in one parallel build.
"""

from __future__ import annotations

from pathlib import Path

from shiplint.manifest.model import Manifest

TARGETS_FILE = "shiplint-targets.txt"
INCLUDE_DIRS_FILE = "shiplint-include-dirs.txt"
VERSION_FILE = "shiplint-cmake-version.txt"
SOURCES_FILE = "shiplint-headers.cmake"
LIBRARY = "shiplint_headers"
# Old enough for the 3.24 route, new enough that CMake 4 accepts it.
_MINIMUM = "cmake_minimum_required(VERSION 3.19)"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def project_text(manifest: Manifest) -> str:
    package = manifest.cmake.package
    candidates = " ".join(_quote(manifest.target_name(c.name)) for c in manifest.components)
    return f"""{_MINIMUM}
project(shiplint_headers CXX)
file(WRITE "${{CMAKE_BINARY_DIR}}/{VERSION_FILE}" "${{CMAKE_VERSION}}")
find_package({package} CONFIG REQUIRED)
set(_shiplint_targets "")
foreach(_shiplint_target IN ITEMS {candidates})
  if(TARGET "${{_shiplint_target}}")
    list(APPEND _shiplint_targets "${{_shiplint_target}}")
  endif()
endforeach()
file(WRITE "${{CMAKE_BINARY_DIR}}/{TARGETS_FILE}" "${{_shiplint_targets}}")
set(SHIPLINT_HEADER_SOURCES "")
include("${{CMAKE_CURRENT_SOURCE_DIR}}/{SOURCES_FILE}")
add_library({LIBRARY} OBJECT shiplint_empty.cpp ${{SHIPLINT_HEADER_SOURCES}})
target_link_libraries({LIBRARY} PRIVATE ${{_shiplint_targets}})
file(GENERATE OUTPUT "${{CMAKE_BINARY_DIR}}/{INCLUDE_DIRS_FILE}"
     CONTENT "$<TARGET_PROPERTY:{LIBRARY},INCLUDE_DIRECTORIES>")
"""


def write_project(source: Path, manifest: Manifest) -> None:
    source.mkdir(parents=True)
    (source / "CMakeLists.txt").write_text(project_text(manifest), encoding="utf-8")
    (source / "shiplint_empty.cpp").write_text("", encoding="utf-8")
    (source / SOURCES_FILE).write_text("", encoding="utf-8")


def write_units(source: Path, spellings: list[str]) -> list[Path]:
    """One translation unit per header (`tu/00001.cpp`: `#include <spelling>`), listed
    for the project; returns the units in the order of `spellings`."""
    units = source / "tu"
    units.mkdir(exist_ok=True)
    paths: list[Path] = []
    for index, spelling in enumerate(spellings):
        unit = units / f"{index:05d}.cpp"
        unit.write_text(f"#include <{spelling}>\n", encoding="utf-8")
        paths.append(unit)
    listed = "\n".join(f"  {_quote(str(p))}" for p in paths)
    (source / SOURCES_FILE).write_text(
        f"set(SHIPLINT_HEADER_SOURCES\n{listed}\n)\n", encoding="utf-8"
    )
    return paths
