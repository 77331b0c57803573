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
    (source / "shiplint_main.cpp").write_text("int main() { return 0; }\n", encoding="utf-8")
    (source / SOURCES_FILE).write_text("", encoding="utf-8")


def link_target(group: int) -> str:
    """The executable that links group `group`'s objects against their owner alone."""
    return f"shiplint_link_{group}"


def write_units(
    source: Path,
    spellings: list[str],
    owners: list[str | None],
    unlinked: frozenset[int] = frozenset(),
) -> list[Path]:
    """One translation unit per header (`tu/00001.cpp`: `#include <spelling>`), listed
    for the project; returns the units in the order of `spellings`.

    `owners[i]` is the imported target header i's inline code must resolve against, or
    None. Owned headers are compiled in one OBJECT library per owner with GCC's
    -fkeep-inline-functions (every inline function emitted, so what it calls is
    referenced) and linked into an executable with that target alone; the units in
    `unlinked` (headers that did not compile) are left out of those libraries.
    """
    units = source / "tu"
    units.mkdir(exist_ok=True)
    paths: list[Path] = []
    for index, spelling in enumerate(spellings):
        unit = units / f"{index:05d}.cpp"
        unit.write_text(f"#include <{spelling}>\n", encoding="utf-8")
        paths.append(unit)
    groups = list(dict.fromkeys(o for o in owners if o is not None))
    free = "\n".join(f"  {_quote(str(p))}" for p, o in zip(paths, owners, strict=True) if o is None)
    text = f"set(SHIPLINT_HEADER_SOURCES\n{free}\n)\n"
    for group, owner in enumerate(groups):
        owned = "\n".join(
            f"  {_quote(str(p))}"
            for i, (p, o) in enumerate(zip(paths, owners, strict=True))
            if o == owner and i not in unlinked
        )
        library = f"shiplint_owned_{group}"
        text += f"""add_library({library} OBJECT
{owned}
)
target_link_libraries({library} PRIVATE ${{_shiplint_targets}})
target_compile_options({library} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fkeep-inline-functions>)
if(TARGET {_quote(owner)})
  add_executable({link_target(group)} shiplint_main.cpp $<TARGET_OBJECTS:{library}>)
  target_link_libraries({link_target(group)} PRIVATE {_quote(owner)})
endif()
"""
    (source / SOURCES_FILE).write_text(text, encoding="utf-8")
    return paths
