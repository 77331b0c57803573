"""Generate the probe: a consumer project that finds the package and writes what it published.

One configure run answers everything. The plain `find_package(<pkg> CONFIG)` runs
in its own subdirectory, and each component request
`find_package(<pkg> CONFIG COMPONENTS <c>...)` in a sibling subdirectory: imported
targets and variables are directory-scoped, so every request sees a fresh
evaluation, as a consumer's first call would, and targets never collide.

The components the artifact ships are asked for together, in one request (each
answers through `<pkg>_<c>_FOUND`); every component it does not ship is asked for
alone, because the config's not-found message can name only one. Each request
re-runs the whole config, commands included, so this keeps a run's cost to one
evaluation per absent component instead of one per component.

When the artifact installs the config in more than one place (ExecuTorch:
`share/cmake` and `lib/cmake/executorch`), each other copy is evaluated the same
way in an `alternate_<i>` subdirectory of the same run.

Requests are not REQUIRED on purpose (but see below for how REQUIRED is asked). Listing a component under COMPONENTS
already sets `<pkg>_FIND_REQUIRED_<c>`, so the config takes its required-component
path and sets `<pkg>_FOUND`/`<pkg>_NOT_FOUND_MESSAGE`; REQUIRED would only make
find_package turn that answer into a fatal error, which ends the configure run
and loses every later answer. A request for a component the artifact lacks is
still made as REQUIRED would make it: `<pkg>_FIND_REQUIRED` is set in its scope,
which find_package leaves alone without REQUIRED, so a config that refuses only
a required component (TBB's) is seen refusing. The shipped components are asked
for twice, as a plain request and as REQUIRED would ask, because a config that
reads `<pkg>_FIND_REQUIRED` can answer the two differently. When a batched request leaves
`<pkg>_<c>_FOUND` unset (OpenVINO unsets them before returning), that component
is asked again alone, in its own scope. A config that raises FATAL_ERROR/SEND_ERROR itself
while answering a request is recorded through a `message()` override that is
defined only after the plain evaluation (so that evaluation's errors keep CMake's
own message and location) and that then lets the config continue.
An error CMake raises itself (a nested `find_package(... REQUIRED)`) still stops
the run: each request records when it begins and ends, so the one it stopped in is
known, and the rest are asked in a resumed probe (`only`; isolate.py).

Results are written as JSON lines by CMake (`file(APPEND)` with hand-escaped
strings, so nothing newer than the 3.21 the probe needs for IMPORTED_TARGETS);
nothing is scraped from messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from pathlib import Path

from shiplint.cmake_eval.layout import ConfigureIn
from shiplint.fastclass import dataclass

_HELPERS = r"""
# A value as a JSON string. Most values hold nothing to escape: one match decides.
function(_shiplint_q _shiplint_out _shiplint_value)
  if(_shiplint_value MATCHES "[\\\"\n\r\t]")
    _shiplint_escape(_shiplint_value)
  endif()
  set(${_shiplint_out} "\"${_shiplint_value}\"" PARENT_SCOPE)
endfunction()

# The variable named `_shiplint_name`, escaped in place for a JSON string.
function(_shiplint_escape _shiplint_name)
  set(_shiplint_value "${${_shiplint_name}}")
  string(REPLACE "\\" "\\\\" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\"" "\\\"" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\n" "\\n" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\r" "\\r" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\t" "\\t" _shiplint_value "${_shiplint_value}")
  set(${_shiplint_name} "${_shiplint_value}" PARENT_SCOPE)
endfunction()

function(_shiplint_var _shiplint_file _shiplint_name)
  if(DEFINED ${_shiplint_name})
    _shiplint_q(_shiplint_v "${${_shiplint_name}}")
    set(_shiplint_d true)
  else()
    set(_shiplint_v "\"\"")
    set(_shiplint_d false)
  endif()
  file(APPEND "${_shiplint_file}"
    "{\"k\":\"var\",\"name\":\"${_shiplint_name}\",\"defined\":${_shiplint_d},\"value\":${_shiplint_v}}\n")
endfunction()

# What the plain find_package created in the consumer's own project (diagnostics.py):
# its non-IMPORTED targets in this directory, and the cache entries it added.
function(_shiplint_created _shiplint_file _shiplint_before)
  get_property(_shiplint_own DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_shiplint_t IN LISTS _shiplint_own)
    get_target_property(_shiplint_ty "${_shiplint_t}" TYPE)
    _shiplint_q(_shiplint_n "${_shiplint_t}")
    _shiplint_q(_shiplint_y "${_shiplint_ty}")
    file(APPEND "${_shiplint_file}" "{\"k\":\"own_target\",\"name\":${_shiplint_n},\"type\":${_shiplint_y}}\n")
  endforeach()
  get_cmake_property(_shiplint_after CACHE_VARIABLES)
  foreach(_shiplint_c IN LISTS _shiplint_after)
    if(NOT _shiplint_c IN_LIST _shiplint_before)
      get_property(_shiplint_ty CACHE "${_shiplint_c}" PROPERTY TYPE)
      get_property(_shiplint_h CACHE "${_shiplint_c}" PROPERTY HELPSTRING)
      _shiplint_q(_shiplint_n "${_shiplint_c}")
      _shiplint_q(_shiplint_y "${_shiplint_ty}")
      _shiplint_q(_shiplint_hq "${_shiplint_h}")
      _shiplint_q(_shiplint_v "$CACHE{${_shiplint_c}}")
      file(APPEND "${_shiplint_file}" "{\"k\":\"cache\",\"name\":${_shiplint_n},\"type\":${_shiplint_y},\"help\":${_shiplint_hq},\"value\":${_shiplint_v}}\n")
    endif()
  endforeach()
endfunction()

# Every imported target in this directory, a JSON line each: the properties the rules
# read, and what a consumer's build would trip on (cmake_eval/diagnostics.py): the
# properties holding a *-NOTFOUND value as PROPERTY=value items (get_target_property's
# own "unset" answer, <var>-NOTFOUND, left out), and the ns::name link items that are
# no target in this directory after the find_package. A config of 80 targets has them
# written ten times a run, which through a helper function per value was most of a
# configure's time; so each property is read once, nothing is called per value,
# values are escaped only when one of the target's needs it, and the lines are
# written with one file(APPEND).
function(_shiplint_targets _shiplint_file)
  get_property(_shiplint_all DIRECTORY PROPERTY IMPORTED_TARGETS)
  set(_shiplint_listed TYPE IMPORTED_LOCATION IMPORTED_IMPLIB IMPORTED_CONFIGURATIONS
      INTERFACE_LINK_LIBRARIES INTERFACE_LINK_OPTIONS INTERFACE_INCLUDE_DIRECTORIES
      INTERFACE_COMPILE_DEFINITIONS)
  set(_shiplint_lines "")
  foreach(_shiplint_t IN LISTS _shiplint_all)
    # _shiplint_raw_<P>: the value as read into _shiplint_pv (unset: "_shiplint_pv-NOTFOUND",
    # the answer the defects leave out); _shiplint_value_<P>: what is written ("" for a
    # value ending in -NOTFOUND).
    set(_shiplint_text "${_shiplint_t}")
    foreach(_shiplint_p IN LISTS _shiplint_listed)
      get_target_property(_shiplint_pv "${_shiplint_t}" ${_shiplint_p})
      set(_shiplint_raw_${_shiplint_p} "${_shiplint_pv}")
      if("${_shiplint_pv}" MATCHES "-NOTFOUND$")
        set(_shiplint_pv "")
      endif()
      set(_shiplint_value_${_shiplint_p} "${_shiplint_pv}")
      string(APPEND _shiplint_text "${_shiplint_pv}")
    endforeach()
    set(_shiplint_checked IMPORTED_LOCATION IMPORTED_IMPLIB IMPORTED_SONAME
        INTERFACE_LINK_LIBRARIES INTERFACE_LINK_OPTIONS INTERFACE_LINK_DIRECTORIES
        INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
        INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS)
    foreach(_shiplint_p IMPORTED_SONAME INTERFACE_LINK_DIRECTORIES
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_OPTIONS)
      get_target_property(_shiplint_pv "${_shiplint_t}" ${_shiplint_p})
      set(_shiplint_raw_${_shiplint_p} "${_shiplint_pv}")
    endforeach()
    # A location given per configuration only (IMPORTED_LOCATION_RELEASE), the
    # form install(EXPORT) writes: the first configuration's stands for it.
    set(_shiplint_value_CONFIG_LOCATION "")
    foreach(_shiplint_c IN LISTS _shiplint_value_IMPORTED_CONFIGURATIONS)
      string(TOUPPER "${_shiplint_c}" _shiplint_c)
      foreach(_shiplint_p IMPORTED_LOCATION_${_shiplint_c} IMPORTED_IMPLIB_${_shiplint_c}
                          IMPORTED_LINK_INTERFACE_LIBRARIES_${_shiplint_c})
        get_target_property(_shiplint_pv "${_shiplint_t}" ${_shiplint_p})
        set(_shiplint_raw_${_shiplint_p} "${_shiplint_pv}")
        list(APPEND _shiplint_checked ${_shiplint_p})
      endforeach()
      # The first that if() takes as true (which no value ending in -NOTFOUND is).
      set(_shiplint_pv "${_shiplint_raw_IMPORTED_LOCATION_${_shiplint_c}}")
      if(_shiplint_value_CONFIG_LOCATION STREQUAL "" AND _shiplint_pv)
        set(_shiplint_value_CONFIG_LOCATION "${_shiplint_pv}")
      endif()
    endforeach()
    set(_shiplint_value_NOTFOUND "")
    foreach(_shiplint_p IN LISTS _shiplint_checked)
      set(_shiplint_pv "${_shiplint_raw_${_shiplint_p}}")
      if(NOT "${_shiplint_pv}" STREQUAL "_shiplint_pv-NOTFOUND" AND "${_shiplint_pv}" MATCHES "-NOTFOUND")
        string(REPLACE ";" "\\;" _shiplint_pv "${_shiplint_pv}")
        list(APPEND _shiplint_value_NOTFOUND "${_shiplint_p}=${_shiplint_pv}")
      endif()
    endforeach()
    set(_shiplint_value_MISSING "")
    if(_shiplint_raw_INTERFACE_LINK_LIBRARIES)
      foreach(_shiplint_i IN LISTS _shiplint_raw_INTERFACE_LINK_LIBRARIES)
        if("${_shiplint_i}" MATCHES "^\\$<LINK_ONLY:([^$<>]+)>$")
          set(_shiplint_i "${CMAKE_MATCH_1}")
        endif()
        if("${_shiplint_i}" MATCHES "^[A-Za-z0-9_.+-]+(::[A-Za-z0-9_.+-]+)+$" AND NOT TARGET "${_shiplint_i}")
          list(APPEND _shiplint_value_MISSING "${_shiplint_i}")
        endif()
      endforeach()
    endif()
    set(_shiplint_value_name "${_shiplint_t}")
    string(APPEND _shiplint_text "${_shiplint_value_CONFIG_LOCATION}${_shiplint_value_NOTFOUND}"
           "${_shiplint_value_MISSING}")
    if(_shiplint_text MATCHES "[\\\"\n\r\t]")
      foreach(_shiplint_p name ${_shiplint_listed} CONFIG_LOCATION NOTFOUND MISSING)
        _shiplint_escape(_shiplint_value_${_shiplint_p})
      endforeach()
    endif()
    string(APPEND _shiplint_lines "{\"k\":\"target\",\"name\":\"${_shiplint_value_name}\""
      ",\"TYPE\":\"${_shiplint_value_TYPE}\""
      ",\"IMPORTED_LOCATION\":\"${_shiplint_value_IMPORTED_LOCATION}\""
      ",\"IMPORTED_IMPLIB\":\"${_shiplint_value_IMPORTED_IMPLIB}\""
      ",\"IMPORTED_CONFIGURATIONS\":\"${_shiplint_value_IMPORTED_CONFIGURATIONS}\""
      ",\"INTERFACE_LINK_LIBRARIES\":\"${_shiplint_value_INTERFACE_LINK_LIBRARIES}\""
      ",\"INTERFACE_LINK_OPTIONS\":\"${_shiplint_value_INTERFACE_LINK_OPTIONS}\""
      ",\"INTERFACE_INCLUDE_DIRECTORIES\":\"${_shiplint_value_INTERFACE_INCLUDE_DIRECTORIES}\""
      ",\"INTERFACE_COMPILE_DEFINITIONS\":\"${_shiplint_value_INTERFACE_COMPILE_DEFINITIONS}\""
      ",\"CONFIG_LOCATION\":\"${_shiplint_value_CONFIG_LOCATION}\""
      ",\"NOTFOUND\":\"${_shiplint_value_NOTFOUND}\",\"MISSING\":\"${_shiplint_value_MISSING}\"}\n")
  endforeach()
  if(NOT _shiplint_lines STREQUAL "")
    file(APPEND "${_shiplint_file}" "${_shiplint_lines}")
  endif()
endfunction()
"""

_CACHE_BEFORE = "get_cmake_property(_shiplint_cache_before CACHE_VARIABLES)\n"

_MESSAGE_OVERRIDE = r"""
# Defined after the plain evaluation on purpose (see cmake_eval/probe.py).
function(message _shiplint_mode)
  if(DEFINED _SHIPLINT_REQUEST AND (_shiplint_mode STREQUAL "FATAL_ERROR"
                                    OR _shiplint_mode STREQUAL "SEND_ERROR"))
    get_property(_shiplint_seen GLOBAL PROPERTY "_shiplint_fatal_${_SHIPLINT_REQUEST}" SET)
    if(NOT _shiplint_seen)
      string(JOIN "" _shiplint_text ${ARGN})
      set_property(GLOBAL PROPERTY "_shiplint_fatal_${_SHIPLINT_REQUEST}" "${_shiplint_text}")
    endif()
    return()
  endif()
  _message(${ARGV})
endfunction()
"""


@dataclass(frozen=True)
class ProbeFiles:
    source_dir: Path
    main_result: Path
    # Each request's components (one request may ask for several) and its results file.
    request_results: tuple[tuple[tuple[str, ...], Path], ...]
    alternate_results: tuple[Path, ...] = ()
    # (request index, component) -> results of that component asked for again alone,
    # written only when the batched request left <pkg>_<component>_FOUND unset.
    retry_results: dict[tuple[int, str], Path] = field(default_factory=dict)


# Where a probe made without languages notes each watched variable a file read.
WATCHED_READS = "watched.jsonl"

# Each read of a watched variable, with the file it was read from (variable_watch gives
# the current list file), as a JSON line; a write is no read.
_WATCH = r"""
function(_shiplint_watched _shiplint_name _shiplint_access _shiplint_value _shiplint_file)
  if(_shiplint_access MATCHES "READ")
    _shiplint_q(_shiplint_quoted "${_shiplint_file}")
    file(APPEND "${_SHIPLINT_WATCHED}"
      "{\"k\":\"read\",\"name\":\"${_shiplint_name}\",\"file\":${_shiplint_quoted}}\n")
  endif()
endfunction()
"""


def _watch(results: Path, names: Sequence[str]) -> str:
    """The commands that watch `names` (plain variable names) for the rest of the run."""
    lines = [f"set(_SHIPLINT_WATCHED {bracket(str(results / WATCHED_READS))})\n", _WATCH]
    lines += [f"variable_watch({name} _shiplint_watched)\n" for name in sorted(names)]
    return "".join(lines)


def request_dir(index: int, position: int | None = None) -> str:
    """The probe subdirectory (and results file stem) of request `index`, or of its
    component at `position` asked alone."""
    return f"request_{index}" if position is None else f"request_{index}_{position}"


def bracket(text: str) -> str:
    """A CMake bracket argument holding `text` verbatim (paths with spaces, quotes, `;`)."""
    level = 1
    while f"]{'=' * level}]" in text:
        level += 1
    eq = "=" * level
    return f"[{eq}[{text}]{eq}]"


def _find(package: str, config_dir: Path, components: Sequence[str] = (), before: str = "") -> str:
    parts = [package, "CONFIG"]
    if components:
        parts += ["COMPONENTS", *components]
    parts += ["PATHS", bracket(str(config_dir)), "NO_DEFAULT_PATH"]
    # find_package caches <pkg>_DIR and then ignores PATHS: forget the previous answer,
    # so each call evaluates the config directory it names.
    forget = f"unset({package}_DIR CACHE)\nunset({package}_DIR)\n"
    return f"{forget}{before}find_package({' '.join(parts)})\n"


def _dump(package: str, config_dir: Path, result: Path, variables: Sequence[str]) -> str:
    out = bracket(str(result))
    return "".join(
        [
            # The cache as the consumer's project had it, to tell what the config adds.
            _find(package, config_dir, before=_CACHE_BEFORE),
            *(f"_shiplint_var({out} {bracket(v)})\n" for v in variables),
            f"_shiplint_targets({out})\n",
            f'_shiplint_created({out} "${{_shiplint_cache_before}}")\n',
            f'file(APPEND {out} "{{\\"k\\":\\"end\\"}}\\n")\n',
        ]
    )


def write_probe(
    directory: Path,
    package: str,
    config_dir: Path,
    variables: Sequence[str],
    requests: Sequence[tuple[str, ...]],
    configure: Sequence[ConfigureIn] = (),
    alternates: Sequence[Path] = (),
    languages: Sequence[str] = (),
    required: frozenset[int] = frozenset(),
    only: frozenset[str] | None = None,
    pointer_size: int | None = None,
    watch: Sequence[str] = (),
) -> ProbeFiles:
    """Write the probe project under `directory` and say where its results will appear.

    `languages` are enabled as a consumer's `project()` would (C, CXX): configs call
    find_dependency(Threads) or read CMAKE_CXX_COMPILER_VERSION, which need one.
    `required` holds the indexes of the requests made as REQUIRED (see `_request`).
    `pointer_size`, when the artifact's architecture is known, is the consumer's
    CMAKE_SIZEOF_VOID_P, with or without languages: a consumer of the artifact builds
    for its architecture (version_file.py sets it alike).
    Every variable of `watch` a file reads is noted in `results/watched.jsonl`
    (`WATCHED_READS`; compiler_need.py reads it).
    With `only` (request subdirectory names: `request_<i>`, or `request_<i>_<position>`
    for one component of a batched request alone), the probe resumes a run a fatal
    error ended: no plain evaluation, and exactly those requests, each unconditionally.
    """
    directory.mkdir(parents=True, exist_ok=True)
    results = directory / "results"
    results.mkdir(exist_ok=True)
    top = [
        # 3.21: the IMPORTED_TARGETS directory property; an older CMake fails here, loudly.
        "cmake_minimum_required(VERSION 3.21)\n",
        f"project(shiplint_probe {' '.join(languages) or 'NONE'})\n",
        _HELPERS,
    ]
    if pointer_size is not None:
        top.append(f"set(CMAKE_SIZEOF_VOID_P {pointer_size})\n")
    if watch:
        top.append(_watch(results, watch))
    if configure:
        top.append("include(CMakePackageConfigHelpers)\n")
    for item in configure:
        top.append(
            "configure_package_config_file("
            f"{bracket(str(item.template))} {bracket(str(item.output))} "
            f"INSTALL_DESTINATION {bracket(item.install_destination)} "
            f"INSTALL_PREFIX {bracket(str(item.install_prefix))})\n"
        )
    main_result = results / "main.jsonl"
    alternate_results: list[Path] = []
    if only is None:
        (directory / "main").mkdir(exist_ok=True)
        (directory / "main" / "CMakeLists.txt").write_text(
            _dump(package, config_dir, main_result, variables), encoding="utf-8"
        )
        top.append("add_subdirectory(main)\n")
        # The same package installed elsewhere in the artifact, evaluated the same way.
        for index, alternate in enumerate(alternates):
            sub = f"alternate_{index}"
            result = results / f"{sub}.jsonl"
            alternate_results.append(result)
            (directory / sub).mkdir(exist_ok=True)
            (directory / sub / "CMakeLists.txt").write_text(
                _dump(package, alternate, result, variables), encoding="utf-8"
            )
            top.append(f"add_subdirectory({sub})\n")
    top.append(_MESSAGE_OVERRIDE)

    def emit(sub: str, key: str, components: tuple[str, ...], as_required: bool) -> Path:
        result = results / f"{sub}.jsonl"
        (directory / sub).mkdir(exist_ok=True)
        (directory / sub / "CMakeLists.txt").write_text(
            f"set(_SHIPLINT_REQUEST {key})\n"
            + _request(package, config_dir, components, result, variables, as_required),
            encoding="utf-8",
        )
        return result

    request_results: list[tuple[tuple[str, ...], Path]] = []
    retry_results: dict[tuple[int, str], Path] = {}
    for index, components in enumerate(requests):
        sub = request_dir(index)
        request_results.append((components, results / f"{sub}.jsonl"))
        if only is None or sub in only:
            emit(sub, str(index), components, index in required)
            top.append(f"add_subdirectory({sub})\n")
        if len(components) < 2:
            continue
        for position, component in enumerate(components):
            single = request_dir(index, position)
            retry_results[(index, component)] = results / f"{single}.jsonl"
            if only is not None:
                if single in only:
                    emit(single, f"{index}_{position}", (component,), index in required)
                    top.append(f"add_subdirectory({single})\n")
                continue
            # Some configs unset <pkg>_<c>_FOUND on purpose before returning: such a
            # component is asked for again alone, in its own scope, after this request.
            flag = bracket(f"_shiplint_retry_{index}_{component}")
            with (directory / sub / "CMakeLists.txt").open("a", encoding="utf-8") as body:
                body.write(
                    f"if(NOT DEFINED {bracket(f'{package}_{component}_FOUND')})\n"
                    f"  set_property(GLOBAL PROPERTY {flag} TRUE)\nendif()\n"
                )
            emit(single, f"{index}_{position}", (component,), index in required)
            top.append(
                f"get_property(_shiplint_retry GLOBAL PROPERTY {flag})\n"
                f"if(_shiplint_retry)\n  add_subdirectory({single})\nendif()\n"
            )
    (directory / "CMakeLists.txt").write_text("".join(top), encoding="utf-8")
    return ProbeFiles(
        directory,
        main_result,
        tuple(request_results),
        tuple(alternate_results),
        retry_results,
    )


def _request(
    package: str,
    config_dir: Path,
    components: Sequence[str],
    result: Path,
    variables: Sequence[str],
    required: bool = False,
) -> str:
    """One component request and everything it published: its answer, variables, targets."""
    out = bracket(str(result))
    # As REQUIRED: find_package sets <pkg>_FIND_REQUIRED only when REQUIRED is given and
    # leaves an inherited value alone otherwise, so the config answers a REQUIRED request
    # while find_package does not turn its refusal into a fatal error.
    as_required = f"set({bracket(package + '_FIND_REQUIRED')} 1)\n" if required else ""
    names = [
        f"{package}_FOUND",
        f"{package}_NOT_FOUND_MESSAGE",
        *(f"{package}_{component}_FOUND" for component in components),
        *variables,
    ]
    return "".join(
        [
            # Begun, then ended: a request begun and never ended is the one whose fatal
            # error stopped the run (see evaluate.py).
            f'file(APPEND {out} "{{\\"k\\":\\"begin\\"}}\\n")\n',
            as_required,
            _find(package, config_dir, components),
            *(f"_shiplint_var({out} {bracket(v)})\n" for v in dict.fromkeys(names)),
            'get_property(_shiplint_fatal GLOBAL PROPERTY "_shiplint_fatal_${_SHIPLINT_REQUEST}")\n',
            f"_shiplint_var({out} _shiplint_fatal)\n",
            f"_shiplint_targets({out})\n",
            f'file(APPEND {out} "{{\\"k\\":\\"end\\"}}\\n")\n',
        ]
    )
