"""Two CMakes of one run share the ABI part of a compiler detection.

About half of a detection (compilers.py) is CMakeDetermineCompilerABI's try_compile (a
project, make, a compile and a link with `-v`, per language), whose answers (pointer
size, byte order, library architecture, implicit include and link directories and
libraries) are facts of the compiler that CMake parses from its output. An older CMake
detecting the same toolchain is given a newer one's answers as the values its own ABI
step sets (read from its CMakeDetermineCompilerABI.cmake), defined before `project()`:
CMake skips that step for a language whose ABI_COMPILED is defined, and identifies the
compiler, finds its tools and computes its features itself; a detection that did not
write every answer as given is made again in full (run.py). Only a GNU toolchain's
answers are shared, the one whose shared detection the tests compare with a real one,
byte for byte, on both CMakes (tests/test_cmake_compilers.py); anything else is
detected in full by each CMake.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path

from shiplint.cmake_eval import compilers
from shiplint.cmake_eval.cmake_binary import CMakeBinary
from shiplint.cmake_eval.probe import bracket

# What a CMake<LANG>Compiler.cmake sets, one quoted value per line (configure_file's output).
_SET = re.compile(r'^set\((CMAKE_[A-Za-z0-9_]+) "([^"\n]*)"\)$', re.MULTILINE)
# The variables CMakeDetermineCompilerABI sets for its caller: what a skipped step must be given.
_ABI_SETS = re.compile(r"set\(CMAKE_\$\{lang\}_([A-Z0-9_]+) [^)\n]*PARENT_SCOPE\)")
# The variables a module sets for a language (`set(CMAKE_${lang}_X ...)`).
_LANG_SETS = re.compile(r"set\(CMAKE_\$\{lang\}_([A-Z0-9_]+)[ )]")
# The compilers whose shared ABI answers the tests compare with a real detection.
_SHARED_IDS = frozenset({"GNU"})

# Per toolchain (toolchain_key), the newest CMake's detection this process made or loaded.
_SHARED: dict[str, tuple[tuple[int, ...], compilers.Detection]] = {}
_SHARED_LOCK = threading.Lock()


def toolchain_key(arguments: Sequence[str], languages: Sequence[str]) -> str:
    """What decides a detection's ABI answers besides the CMake (compilers.inputs's rest)."""
    return json.dumps(compilers.toolchain(arguments, languages))


def offer(cmake: CMakeBinary, toolchain: str, detection: compilers.Detection) -> None:
    """Make `detection` (this CMake's, kept or just made) the one later CMakes of this
    toolchain share from, unless a newer CMake's is there already. The same CMake's
    latest replaces its earlier one: a process making several runs (a toolchain changed
    in between, and detected again) shares the detection of the toolchain as it is."""
    with _SHARED_LOCK:
        held = _SHARED.get(toolchain)
        if held is None or held[0] <= cmake.version:
            _SHARED[toolchain] = (cmake.version, detection)


def shared_abi(cmake: CMakeBinary, toolchain: str, languages: Sequence[str]) -> dict[str, str]:
    """The ABI answers (variable -> value) of a newer (or the same) CMake's detection of
    this toolchain that `cmake` is given, which skip its own ABI step; none when there is
    no such detection, its compilers are not GNU, or it lacks a value this CMake's step
    would set."""
    with _SHARED_LOCK:
        held = _SHARED.get(toolchain)
    if held is None or held[0] < cmake.version or not languages:
        return {}
    names = _abi_variables(cmake)
    if not names:
        return {}
    given: dict[str, str] = {}
    for lang in languages:
        values = _values(held[1], lang)
        if values.get(f"CMAKE_{lang}_COMPILER_ID") not in _SHARED_IDS:
            return {}
        wanted = [f"CMAKE_{lang}_{name}" for name in names]
        if any(name not in values for name in wanted):
            return {}
        given.update((name, values[name]) for name in wanted)
    return given


def honoured(
    detection: compilers.Detection, given: dict[str, str], languages: Sequence[str]
) -> bool:
    """Whether the detection wrote every ABI answer it was given, unchanged: a CMake that
    computed one of them itself after all is detected again in full."""
    written: dict[str, str] = {}
    for lang in languages:
        written.update(_values(detection, lang))
    return all(written.get(name) == value for name, value in given.items())


def _values(detection: compilers.Detection, lang: str) -> dict[str, str]:
    return dict(_SET.findall(detection.files.get(f"CMake{lang}Compiler.cmake", "")))


def commands(given: dict[str, str], languages: Sequence[str]) -> str:
    """The answers `given` as CMake commands, defined before project()."""
    if not given:
        return ""
    lines = [f"set(CMAKE_{lang}_ABI_COMPILED TRUE)\n" for lang in languages]
    lines += (f"set({name} {bracket(value)})\n" for name, value in given.items())
    return "".join(lines)


def _abi_variables(cmake: CMakeBinary) -> tuple[str, ...]:
    """The variables this CMake's ABI step sets (ABI_COMPILED aside), read from its own
    module; () when the modules are not where a CMake install keeps them, or when its
    compiler identification sets one of them too (4.x: the architecture, which the ABI
    step completes): given before project(), that value would be overwritten."""
    major_minor = ".".join(str(part) for part in cmake.version[:2])
    modules = Path(os.path.realpath(cmake.path)).parent.parent / "share" / f"cmake-{major_minor}"
    try:
        abi = (modules / "Modules" / "CMakeDetermineCompilerABI.cmake").read_text("utf-8")
        identification = (modules / "Modules" / "CMakeDetermineCompilerId.cmake").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    found = dict.fromkeys(_ABI_SETS.findall(abi))
    found.pop("ABI_COMPILED", None)
    if not found or set(found) & set(_LANG_SETS.findall(identification)):
        return ()
    return tuple(found)
