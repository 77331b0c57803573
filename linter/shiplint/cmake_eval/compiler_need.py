"""Whether a config's evaluation can depend on the consumer's compilers.

A consumer's `project()` enables C and CXX (languages.py), and CMake then detects
both compilers: on a first run, the largest part of an evaluation's time. Most
configs never look at what that detection produced: they set imported targets'
paths and variables, and read the system's name. Such a config answers a
`project(x NONE)` consumer exactly as it answers a `project(x C CXX)` one, so the
probe first evaluates it without languages, and evaluates it again with them
unless it is sure nothing the config did could see the difference.

What enabling C and CXX changes for a config, measured with CMake 3.24.3 and 4.4.5
for the host, Darwin and Windows (every variable of `get_cmake_property(VARIABLES)`
after each project(), names and values; tests/test_cmake_compiler_need.py does it
again with the real CMakes): the variables the detection defines (per-language and
per-standard settings, the tools it found, the pointer size, the library
architecture, MSVC/MINGW), and on Windows the library naming (prefixes, suffixes,
what find_library looks for). Apart from those, the two projects' variables are
the same. So the config may depend on the compilers when

- a file of the package names one of those variables, or builds a `CMAKE_...` name
  from a variable, anywhere in its text, or calls a search command (read before the
  run: such a package is evaluated with languages at once);
- the run searched the system (find_package, find_dependency, find_library...: the
  search directories follow the pointer size and the library architecture), enabled
  a language or declared a project, compiled something (try_compile, try_run), made
  a target that is built (a non-imported add_library or add_executable), used
  `cmake_language`, included a file the trace does not show (anything but the
  package's own .cmake files and the few CMake modules below, which name none of
  those variables and include nothing else), or named one of those variables in an
  expanded argument (`if(${name})`): read from CMake's own trace of the run;
- a file of the package read one of those variables, however it made the name
  (`${${name}}`): the probe watches each of them (detected_variables.py) and notes
  every read with the file it came from.

The pointer size is the probe's own (the artifact's, with or without languages):
neither named nor watched when the artifact's architecture is known.

`CMAKE_MATCH_<n>` also differs, left over from the detection's regular expressions:
a consumer's leftover matches are whatever its own project matched last, which no
config can rely on, so reading them is no need.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from shiplint.cmake_eval.detected_names import DETECTED
from shiplint.cmake_eval.detected_variables import WATCHED
from shiplint.cmake_eval.trace import SEARCHING, Reached

# A search command at the start of a line (not in a line comment): a run that makes it
# shows a search, so the package goes to the languages before the run.
_SEARCH = re.compile(
    rb"^[ \t]*(" + b"|".join(sorted(name.encode() for name in SEARCHING)) + rb")[ \t]*\(",
    re.MULTILINE | re.IGNORECASE,
)

# CMake modules a config includes that name none of the variables above, define only
# functions and macros, and include nothing outside this set (the test reads them in
# the real CMakes): what they do runs in the config's own traced commands.
ALLOWED_MODULES = frozenset(
    {
        "CMakeFindDependencyMacro",
        "FindPackageHandleStandardArgs",
        "FindPackageMessage",
        "CMakeParseArguments",
    }
)


def named_in(files: Iterable[tuple[str, bytes]], given: frozenset[str] = frozenset()) -> str | None:
    """The first variable of the compiler detection a package file names, as
    "<name> in <file>", or a search of the system it makes (a run without languages
    would only show it, and be made again), as "<command> in <file>"; None when there is
    neither. The probe sets those in `given` itself."""
    for name, text in files:
        for match in DETECTED.finditer(text):
            found = match.group(0).decode("ascii", "replace")
            if found not in given:
                return f"{found} in {name}"
        search = _SEARCH.search(text)
        if search is not None:
            return f"{search.group(1).decode('ascii')} in {name}"
    return None


def shown_by(
    reached: Reached, traced: frozenset[str], given: frozenset[str] = frozenset()
) -> str | None:
    """What the traced run did that a compiler detection could answer differently, or
    None when nothing; `traced` holds the files the trace covered, `given` what the
    probe sets itself. A trace that is not complete shows nothing for sure."""
    if not reached.complete:
        return "the run's trace is not complete"
    if reached.searched:
        return "the config searched the system"
    for what, where in reached.compiler_uses:
        if what not in given:
            return f"{what} at {where}"
    for target in sorted(reached.included):
        if posixpath.isabs(target):
            if target not in traced:
                return f"include({target})"
        elif target not in ALLOWED_MODULES:
            return f"include({target})"
    return None


# What CMake reads itself whenever a config creates a target, whatever the config: the
# build type (empty with the languages and without), and the import library suffix,
# whose being empty or not is all it asks ("a DLL platform": measured, empty on Linux
# and macOS and set on Windows, with the languages and without).
_READ_BY_CMAKE = frozenset({"CMAKE_BUILD_TYPE", "CMAKE_IMPORT_LIBRARY_SUFFIX"})


def watched(given: frozenset[str]) -> tuple[str, ...]:
    """The variables a probe made without languages watches: what the detection sets,
    but what the probe sets itself and what CMake reads itself for every target."""
    return tuple(sorted(WATCHED - given - _READ_BY_CMAKE))


# A config reading watched variables in a loop writes notes without end: past this, the
# rest is not read, and the run counts as one that read them.
_MAX_NOTES = 4 * 1024 * 1024


def read_by_package(notes: Path, traced: frozenset[str]) -> str | None:
    """The first watched variable a file of the package read (the probe's notes, one JSON
    line per read), as "<name> read in <file>"; None when none was. Notes that cannot be
    read are no proof of anything: they say so."""
    try:
        with notes.open("rb") as stream:
            text = stream.read(_MAX_NOTES + 1)
    except FileNotFoundError:
        return None  # nothing watched was read
    except OSError:
        return "the probe's notes of watched variables cannot be read"
    if len(text) > _MAX_NOTES:
        return "the package read watched variables more often than is noted"
    for line in text.splitlines():
        try:
            note = json.loads(line)
        except ValueError:
            return "the probe's notes of watched variables are not readable"
        if not isinstance(note, dict):
            return "the probe's notes of watched variables are not readable"
        where = note.get("file")
        if isinstance(where, str) and where in traced:
            return f"{note.get('name')} read in {where}"
    return None
