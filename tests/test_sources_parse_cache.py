"""Parsed CMake files come back from the user cache exactly as the parser made them."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.sources.cmake_parse import parse_cmake
from shiplint.sources.parse_cache import _PARSES, parse_cached

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

# Every statement kind, escapes, bracket and quoted arguments, and syntax errors.
_EVERY_FORM = b"""cmake_minimum_required(VERSION 3.19)
set(quoted "a\\;b\\n" [[bracket ${not_expanded}]] plain\\;semi)
if(A AND NOT "B")
  add_library(x SHARED x.cpp)
elseif(C)
  message(STATUS "c")
else()
endif()
function(wrap name)
  add_library(${name} ${ARGN})
endfunction()
macro(mac)
endmacro()
foreach(item IN LISTS items)
  install(TARGETS ${item})
endforeach()
while(FALSE)
endwhile()
block()
endblock()
endif()
add_library(broken SHARED
"""


def _cmake_files() -> list[Path]:
    found = [*FIXTURES.rglob("CMakeLists.txt"), *FIXTURES.rglob("*.cmake")]
    assert found
    return sorted(found)


def test_a_cached_parse_is_the_parse(tmp_path: Path) -> None:
    sources = [_EVERY_FORM, *(path.read_bytes() for path in _cmake_files())]
    parsed = [parse_cmake(source) for source in sources]
    assert parsed[0].errors and {type(s).__name__ for s in parsed[0].statements} == {
        "Command", "IfBlock", "Definition", "Loop",
    }  # fmt: skip
    assert [parse_cached(source) for source in sources] == parsed  # stored
    assert [parse_cached(source) for source in sources] == parsed  # read back


_HIT = """
import sys
from shiplint.sources.parse_cache import parse_cached
parsed = parse_cached(sys.stdin.buffer.read())
print(len(parsed.statements), "tree_sitter" in sys.modules)
"""


def _parse_in_child(source: bytes, cache_home: Path) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", _HIT], input=source, capture_output=True, timeout=60,
        check=True, cwd=REPO, env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
    )  # fmt: skip
    return result.stdout.decode().split()


def test_a_file_parsed_before_is_not_parsed_again(tmp_path: Path) -> None:
    count = str(len(parse_cmake(_EVERY_FORM).statements))
    assert _parse_in_child(_EVERY_FORM, tmp_path) == [count, "True"]
    assert _parse_in_child(_EVERY_FORM, tmp_path) == [count, "False"]
    # One byte more is another file.
    edited = _EVERY_FORM + b"project(p)\n"
    more = str(len(parse_cmake(edited).statements))
    assert _parse_in_child(edited, tmp_path) == [more, "True"]


@pytest.mark.parametrize(
    "payload",
    [
        b"not marshal",
        marshal.dumps(("a", "parse", "of", "something", "else"))[:-2],
        marshal.dumps(("a", "parse", "of", "something", "else")),
        marshal.dumps((((0, "add_library", (("x", 1),), 1, 1),), ())),
    ],
    ids=["garbage", "truncated", "wrong-shape", "short-argument"],
)
def test_an_entry_that_does_not_decode_is_parsed_again(payload: bytes) -> None:
    name = _PARSES.key(_EVERY_FORM)
    cache.write(_PARSES.kind, name, payload)
    assert parse_cached(_EVERY_FORM) == parse_cmake(_EVERY_FORM)
    # And the entry was replaced by a good one.
    stored = cache.read(_PARSES.kind, name)
    assert stored is not None and marshal.loads(stored)


def test_an_unknown_statement_is_parsed_again() -> None:
    name = _PARSES.key(_EVERY_FORM)
    cache.write(_PARSES.kind, name, marshal.dumps((((9, "x"),), ())))
    assert parse_cached(_EVERY_FORM) == parse_cmake(_EVERY_FORM)
