"""The probe's record of each imported target, against a reference written the plain way.

`_shiplint_targets` reads each property once and escapes nothing unless it must, for
speed. The reference below is the same record written one helper call per value (the
probe's earlier form): both run in one real configure, on both CMake routes, over
targets that reach every branch (values to escape, -NOTFOUND values with `;`, per
configuration locations, link items naming no target, the unset answer's own text),
and must write the same bytes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from shiplint.cmake_eval.probe import _HELPERS

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

_REFERENCE = r"""
function(_ref_q _shiplint_out _shiplint_value)
  string(REPLACE "\\" "\\\\" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\"" "\\\"" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\n" "\\n" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\r" "\\r" _shiplint_value "${_shiplint_value}")
  string(REPLACE "\t" "\\t" _shiplint_value "${_shiplint_value}")
  set(${_shiplint_out} "\"${_shiplint_value}\"" PARENT_SCOPE)
endfunction()

function(_ref_prop _shiplint_out _shiplint_target _shiplint_property)
  get_target_property(_shiplint_v "${_shiplint_target}" ${_shiplint_property})
  if("${_shiplint_v}" MATCHES "-NOTFOUND$")
    set(_shiplint_v "")
  endif()
  set(${_shiplint_out} "${_shiplint_v}" PARENT_SCOPE)
endfunction()

function(_ref_defects _shiplint_nf_out _shiplint_miss_out _shiplint_target _shiplint_configs)
  set(_shiplint_props IMPORTED_LOCATION IMPORTED_IMPLIB IMPORTED_SONAME INTERFACE_LINK_LIBRARIES
      INTERFACE_LINK_OPTIONS INTERFACE_LINK_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES
      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS)
  foreach(_shiplint_c IN LISTS _shiplint_configs)
    string(TOUPPER "${_shiplint_c}" _shiplint_c)
    list(APPEND _shiplint_props IMPORTED_LOCATION_${_shiplint_c} IMPORTED_IMPLIB_${_shiplint_c}
         IMPORTED_LINK_INTERFACE_LIBRARIES_${_shiplint_c})
  endforeach()
  set(_shiplint_nf "")
  foreach(_shiplint_p IN LISTS _shiplint_props)
    get_target_property(_shiplint_pv "${_shiplint_target}" ${_shiplint_p})
    if(NOT "${_shiplint_pv}" STREQUAL "_shiplint_pv-NOTFOUND" AND "${_shiplint_pv}" MATCHES "-NOTFOUND")
      string(REPLACE ";" "\\;" _shiplint_pv "${_shiplint_pv}")
      list(APPEND _shiplint_nf "${_shiplint_p}=${_shiplint_pv}")
    endif()
  endforeach()
  set(_shiplint_miss "")
  get_target_property(_shiplint_links "${_shiplint_target}" INTERFACE_LINK_LIBRARIES)
  if(_shiplint_links)
    foreach(_shiplint_i IN LISTS _shiplint_links)
      if("${_shiplint_i}" MATCHES "^\\$<LINK_ONLY:([^$<>]+)>$")
        set(_shiplint_i "${CMAKE_MATCH_1}")
      endif()
      if("${_shiplint_i}" MATCHES "^[A-Za-z0-9_.+-]+(::[A-Za-z0-9_.+-]+)+$" AND NOT TARGET "${_shiplint_i}")
        list(APPEND _shiplint_miss "${_shiplint_i}")
      endif()
    endforeach()
  endif()
  set(${_shiplint_nf_out} "${_shiplint_nf}" PARENT_SCOPE)
  set(${_shiplint_miss_out} "${_shiplint_miss}" PARENT_SCOPE)
endfunction()

function(_ref_targets _shiplint_file)
  get_property(_shiplint_all DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(_shiplint_t IN LISTS _shiplint_all)
    set(_shiplint_line "{\"k\":\"target\"")
    _ref_q(_shiplint_v "${_shiplint_t}")
    string(APPEND _shiplint_line ",\"name\":${_shiplint_v}")
    foreach(_shiplint_p TYPE IMPORTED_LOCATION IMPORTED_IMPLIB IMPORTED_CONFIGURATIONS
                        INTERFACE_LINK_LIBRARIES INTERFACE_LINK_OPTIONS
                        INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS)
      _ref_prop(_shiplint_raw "${_shiplint_t}" ${_shiplint_p})
      _ref_q(_shiplint_v "${_shiplint_raw}")
      string(APPEND _shiplint_line ",\"${_shiplint_p}\":${_shiplint_v}")
    endforeach()
    _ref_prop(_shiplint_configs "${_shiplint_t}" IMPORTED_CONFIGURATIONS)
    set(_shiplint_config_location "")
    foreach(_shiplint_c IN LISTS _shiplint_configs)
      string(TOUPPER "${_shiplint_c}" _shiplint_c)
      _ref_prop(_shiplint_raw "${_shiplint_t}" IMPORTED_LOCATION_${_shiplint_c})
      if(_shiplint_raw)
        set(_shiplint_config_location "${_shiplint_raw}")
        break()
      endif()
    endforeach()
    _ref_q(_shiplint_v "${_shiplint_config_location}")
    string(APPEND _shiplint_line ",\"CONFIG_LOCATION\":${_shiplint_v}")
    _ref_defects(_shiplint_notfound _shiplint_missing "${_shiplint_t}" "${_shiplint_configs}")
    _ref_q(_shiplint_v "${_shiplint_notfound}")
    string(APPEND _shiplint_line ",\"NOTFOUND\":${_shiplint_v}")
    _ref_q(_shiplint_v "${_shiplint_missing}")
    string(APPEND _shiplint_line ",\"MISSING\":${_shiplint_v}}\n")
    file(APPEND "${_shiplint_file}" "${_shiplint_line}")
  endforeach()
endfunction()
"""

# Targets reaching every branch of the record.
_TARGETS = r"""
add_library(plain::lib SHARED IMPORTED)
set_target_properties(plain::lib PROPERTIES IMPORTED_LOCATION "/opt/pkg/lib/libplain.so"
  INTERFACE_INCLUDE_DIRECTORIES "/opt/pkg/include;/opt/pkg/include/plain")

add_library(bare::iface INTERFACE IMPORTED)

add_library(tricky::lib SHARED IMPORTED)
set_target_properties(tricky::lib PROPERTIES
  IMPORTED_CONFIGURATIONS "Debug;Release;MinSizeRel"
  IMPORTED_LOCATION_DEBUG "OFF"
  IMPORTED_LOCATION_RELEASE "/opt/pkg/lib/libtricky.so"
  IMPORTED_LOCATION_MINSIZEREL "/opt/pkg/lib/libtricky-small.so"
  IMPORTED_IMPLIB_DEBUG "implib-NOTFOUND"
  IMPORTED_SONAME "libtricky.so.1"
  INTERFACE_COMPILE_DEFINITIONS [=[QUOTED="a \"b\"";TAB=	x;BACK=c:\dir]=]
  INTERFACE_LINK_LIBRARIES "m;x-NOTFOUND;plain::lib;pkg::absent;$<LINK_ONLY:pkg::gone>;$<LINK_ONLY:plain::lib>"
  INTERFACE_COMPILE_OPTIONS "-DLINE-NOTFOUND=1
-DLINE=2"
  INTERFACE_LINK_DIRECTORIES "/opt/a-NOTFOUND;/opt/b")

# One character to escape each, alone in the target's values.
foreach(kind IN ITEMS newline return tab quote backslash)
  add_library(${kind}::only INTERFACE IMPORTED)
endforeach()
set_target_properties(newline::only PROPERTIES INTERFACE_COMPILE_DEFINITIONS "A=1\nB=2")
set_target_properties(return::only PROPERTIES INTERFACE_COMPILE_DEFINITIONS "A=1\rB=2")
set_target_properties(tab::only PROPERTIES INTERFACE_COMPILE_DEFINITIONS "A=1\tB=2")
set_target_properties(quote::only PROPERTIES INTERFACE_COMPILE_DEFINITIONS "A=\"1\"")
set_target_properties(backslash::only PROPERTIES INTERFACE_COMPILE_DEFINITIONS "A=c:\\x")

add_library(sentinel::lib STATIC IMPORTED)
set_target_properties(sentinel::lib PROPERTIES IMPORTED_LOCATION "_shiplint_pv-NOTFOUND"
  IMPORTED_SONAME "_shiplint_pv-NOTFOUND;soname-NOTFOUND"
  IMPORTED_CONFIGURATIONS "release;RELEASE")
"""

# Single values quoted both ways, one JSON string a line.
_QUOTED = r"""
foreach(value IN ITEMS "plain" "" "a\nb" "a\rb" "a\tb" "a\"b" "a\\b" "x\;y")
  _shiplint_q(quoted "${{value}}")
  file(APPEND [=[{ours}]=] "${{quoted}}\n")
  _ref_q(quoted "${{value}}")
  file(APPEND [=[{reference}]=] "${{quoted}}\n")
endforeach()
"""


def _records(tmp_path: Path, version: str) -> tuple[bytes, bytes]:
    source = tmp_path / version / "src"
    source.mkdir(parents=True)
    ours, reference = tmp_path / version / "ours.jsonl", tmp_path / version / "reference.jsonl"
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\n"
        + _HELPERS
        + _REFERENCE
        + _TARGETS
        + _QUOTED.format(ours=ours, reference=reference)
        + f"_shiplint_targets([=[{ours}]=])\n_ref_targets([=[{reference}]=])\n",
        encoding="utf-8",
    )
    subprocess.run(
        [str(cmake(version)), "-S", str(source), "-B", str(tmp_path / version / "build")],
        check=True,
        capture_output=True,
    )
    return ours.read_bytes(), reference.read_bytes()


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_each_target_is_written_as_the_plain_reference_writes_it(
    tmp_path: Path, version: str
) -> None:
    ours, reference = _records(tmp_path, version)
    assert ours == reference
    lines = [json.loads(line) for line in ours.decode("utf-8").splitlines()]
    quoted, records = lines[:8], {r["name"]: r for r in lines[8:]}
    assert quoted == ["plain", "", "a\nb", "a\rb", "a\tb", 'a"b', "a\\b", "x\\;y"]
    assert set(records) == {
        "plain::lib", "bare::iface", "tricky::lib", "sentinel::lib",
        "newline::only", "return::only", "tab::only", "quote::only", "backslash::only",
    }  # fmt: skip
    escaped = {n: records[f"{n}::only"]["INTERFACE_COMPILE_DEFINITIONS"] for n in
               ("newline", "return", "tab", "quote", "backslash")}  # fmt: skip
    assert escaped == {
        "newline": "A=1\nB=2", "return": "A=1\rB=2", "tab": "A=1\tB=2",
        "quote": 'A="1"', "backslash": "A=c:\\x",
    }  # fmt: skip
    tricky = records["tricky::lib"]
    # The escaped values come back as CMake held them.
    assert tricky["INTERFACE_COMPILE_DEFINITIONS"] == 'QUOTED="a \\"b\\"";TAB=\tx;BACK=c:\\dir'
    # The first configuration whose location if() takes as true stands for it.
    assert tricky["CONFIG_LOCATION"] == "/opt/pkg/lib/libtricky.so"
    assert tricky["NOTFOUND"] == (
        "INTERFACE_LINK_LIBRARIES=m\\;x-NOTFOUND\\;plain::lib\\;pkg::absent"
        "\\;$<LINK_ONLY:pkg::gone>\\;$<LINK_ONLY:plain::lib>;"
        "INTERFACE_LINK_DIRECTORIES=/opt/a-NOTFOUND\\;/opt/b;"
        "INTERFACE_COMPILE_OPTIONS=-DLINE-NOTFOUND=1\n-DLINE=2;"
        "IMPORTED_IMPLIB_DEBUG=implib-NOTFOUND"
    )
    assert tricky["MISSING"] == "pkg::absent;pkg::gone"
    # The unset answer's own text is left out, any other -NOTFOUND value is not.
    sentinel = records["sentinel::lib"]
    assert sentinel["NOTFOUND"].startswith("IMPORTED_SONAME=_shiplint_pv-NOTFOUND")
    assert "IMPORTED_LOCATION=" not in sentinel["NOTFOUND"]
    assert records["bare::iface"]["NOTFOUND"] == records["bare::iface"]["MISSING"] == ""
