"""The CMake walk's bounds: file size, nesting depth, node count and variable size, each
named in the finding (SL207) that says what was not read, on hostile files of each kind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from shiplint.sources.bounds import (
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_NODES,
    MAX_STEPS,
    MAX_VALUE_CHARS,
    Refused,
    read_source,
)
from shiplint.sources.model import CMakeProject

from tests.test_sources_cmake_walk import project

LIB = "add_library(acme SHARED acme.cpp)\n"


def _reasons(p: CMakeProject) -> list[str]:
    return [u.reason for u in p.unreadable]


def test_a_file_past_the_size_bound_is_not_read(tmp_path: Path) -> None:
    filler = ("# " + "x" * 1000 + "\n") * (MAX_FILE_BYTES // 1000 + 1)
    p = project(tmp_path, {"CMakeLists.txt": LIB + filler})
    (reason,) = _reasons(p)
    assert "bound: file size" in reason and f"{MAX_FILE_BYTES:,} bytes" in reason
    assert p.definitions("acme") == ()


def test_a_file_just_under_the_size_bound_is_read(tmp_path: Path) -> None:
    filler = "#" * (MAX_FILE_BYTES - len(LIB) - 1) + "\n"
    p = project(tmp_path, {"CMakeLists.txt": LIB + filler})
    assert _reasons(p) == []
    assert len(p.definitions("acme")) == 1


def test_a_fifo_named_cmakelists_is_reported_without_waiting(tmp_path: Path) -> None:
    project(tmp_path, {"CMakeLists.txt": "add_subdirectory(sub)\n"})
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / "CMakeLists.txt")
    p = project(tmp_path, {})
    (reason,) = _reasons(p)
    assert "add_subdirectory(sub)" in reason and "without a CMakeLists.txt" in reason


def test_blocks_nested_past_the_bound_are_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    deep = MAX_NESTING * 10
    text = "if(A)\n" * deep + "add_library(deep SHARED d.cpp)\n" + "endif()\n" * deep + LIB
    p = project(tmp_path, {"CMakeLists.txt": text})
    (reason,) = _reasons(p)
    assert "bound: nesting depth" in reason and f"deeper than {MAX_NESTING} levels" in reason
    assert p.definitions("deep") == ()
    assert len(p.definitions("acme")) == 1


def test_blocks_nested_within_the_bound_are_read(tmp_path: Path) -> None:
    deep = MAX_NESTING // 2
    text = "if(A)\n" * deep + "add_library(deep SHARED d.cpp)\n" + "endif()\n" * deep
    p = project(tmp_path, {"CMakeLists.txt": text})
    assert _reasons(p) == []
    assert len(p.definitions("deep")) == 1


def test_a_long_include_chain_is_cut_at_the_nesting_bound(tmp_path: Path) -> None:
    files = {f"c{i}.cmake": f"include(c{i + 1}.cmake)\n" for i in range(MAX_NESTING * 3)}
    p = project(tmp_path, {"CMakeLists.txt": "include(c0.cmake)\n" + LIB, **files})
    reasons = _reasons(p)
    assert len(reasons) == 1 and "bound: nesting depth" in reasons[0]
    assert len(p.definitions("acme")) == 1


def test_a_file_past_the_node_bound_is_not_read(tmp_path: Path) -> None:
    p = project(tmp_path, {"CMakeLists.txt": LIB + "set(X " + "a " * (MAX_NODES // 2) + ")\n"})
    (reason,) = _reasons(p)
    assert "bound: node count" in reason and f"more than {MAX_NODES:,}" in reason
    assert p.definitions("acme") == ()


def test_a_variable_doubled_past_the_size_bound_becomes_unknown(tmp_path: Path) -> None:
    doublings = MAX_VALUE_CHARS.bit_length() + 20  # unbounded: 2**40 characters
    text = "set(A x)\n" + 'set(A "${A}${A}")\n' * doublings + "add_library(${A} SHARED a.cpp)\n"
    p = project(tmp_path, {"CMakeLists.txt": text})
    reasons = _reasons(p)
    assert reasons and all("bound: variable size" in r and "${A}" in r for r in reasons)
    assert all(len(t.name) <= MAX_VALUE_CHARS for t in p.targets)


def test_list_append_to_itself_is_bounded(tmp_path: Path) -> None:
    text = "set(A x)\n" + "list(APPEND A ${A})\n" * 40 + LIB
    p = project(tmp_path, {"CMakeLists.txt": text})
    assert any("bound: variable size" in r for r in _reasons(p))
    assert len(p.definitions("acme")) == 1


def test_many_references_to_one_large_value_stay_bounded(tmp_path: Path) -> None:
    # Each reference is within the bound; together they would be gigabytes.
    large = MAX_VALUE_CHARS // 2
    text = (
        f'set(A "{"x" * 10}")\n'
        + 'set(A "${A}${A}")\n' * (large.bit_length() - 4)
        + "if(" + " ".join(["${A}"] * 3000) + ")\nendif()\n"
        + "set(B " + " ".join(["${A}"] * 3000) + ")\n" + LIB
    )  # fmt: skip
    p = project(tmp_path, {"CMakeLists.txt": text})
    reasons = _reasons(p)
    assert len(reasons) == 2 and all("bound: variable size" in r for r in reasons)
    assert len(p.definitions("acme")) == 1


def test_the_reader_refuses_a_fifo_it_is_handed_without_blocking(tmp_path: Path) -> None:
    # The walk checks is_file() first; the reader checks again after opening, since the
    # file can be replaced in between.
    os.mkfifo(tmp_path / "CMakeLists.txt")
    with pytest.raises(Refused, match="not a regular file"):
        read_source(tmp_path / "CMakeLists.txt")


@pytest.mark.parametrize("depth", [1_000, 10_000])
def test_nested_loops_stop_at_the_statement_bound(tmp_path: Path, depth: int) -> None:
    # Each foreach() runs its body twice: 2**depth statements if nothing bounded them.
    text = (
        "foreach(i a b)\n" * depth + "add_library(deep SHARED d.cpp)\n" + "endforeach()\n" * depth
    )
    p = project(tmp_path, {"CMakeLists.txt": LIB + text})
    reasons = _reasons(p)
    assert any(
        f"ran {MAX_STEPS:,} statements" in r and "bound: statements run" in r for r in reasons
    )
    assert len(p.definitions("acme")) == 1


def test_loops_within_the_statement_bound_are_read(tmp_path: Path) -> None:
    text = "foreach(i a b c d e f g h)\n" * 4 + "set(x 1)\n" + "endforeach()\n" * 4
    p = project(tmp_path, {"CMakeLists.txt": text + LIB})
    assert _reasons(p) == [] and len(p.definitions("acme")) == 1


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/passwd"])
def test_an_include_outside_the_tree_is_not_read(
    tmp_path: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHIPLINT_TEST_SECRET", "s3cr3t-include")
    p = project(tmp_path, {"CMakeLists.txt": f"include({target})\n" + LIB})
    (reason,) = _reasons(p)
    assert reason.startswith(f"{target} lies outside the checked tree")
    assert "s3cr3t" not in reason and "root:" not in reason


def test_an_include_linked_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    project(tmp_path, {"CMakeLists.txt": "include(cmake/env.cmake)\n" + LIB})
    (tmp_path / "cmake").mkdir()
    os.symlink("/proc/self/environ", tmp_path / "cmake" / "env.cmake")
    p = project(tmp_path, {})
    (reason,) = _reasons(p)
    assert reason.startswith("cmake/env.cmake lies outside the checked tree")
