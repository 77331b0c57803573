"""The languages the probe consumer enables, as a consumer's `project(x C CXX)` would.

A config may need one: `find_dependency(Threads)` stops with "FindThreads only
works if either C or CXX language is enabled", and a toolset check reads
CMAKE_CXX_COMPILER_VERSION. A consumer always has a compiler, so the probe enables
C and CXX whenever the host has them; without one, the evaluation says so, and a
failure is then not blamed on the package.

The probe never compiles: evaluating another platform's config (CMAKE_SYSTEM_NAME
set to it) keeps the host compiler, compiles its checks as static libraries
(nothing to link for a foreign system) and gets a stand-in for the platform's
tools CMake insists on finding (install_name_tool, the resource compiler).
"""

from __future__ import annotations

import functools
import shutil

# The names CMake itself tries first for each language on a Unix-like host.
_COMPILERS = {"C": ("cc", "gcc", "clang"), "CXX": ("c++", "g++", "clang++")}


@functools.cache
def host_languages() -> tuple[str, ...]:
    """C and CXX when a compiler for each is on PATH (CMake looks them up there too)."""
    return tuple(lang for lang, names in _COMPILERS.items() if any(map(shutil.which, names)))


def cross_arguments(languages: tuple[str, ...]) -> list[str]:
    """Cache entries that let a foreign system's languages be enabled without its tools."""
    if not languages:
        return []
    stand_in = shutil.which("true") or "true"
    return [
        "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY",
        f"-DCMAKE_INSTALL_NAME_TOOL={stand_in}",
        f"-DCMAKE_RC_COMPILER={stand_in}",
    ]
