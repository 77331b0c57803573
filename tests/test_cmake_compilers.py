"""The probe's compiler detection is kept per toolchain and reused, never across a change.

Real CMake, real compilers: `cc`/`c++` on PATH are scripts that note each call in a
log and run the system's gcc/g++, so a test sees whether CMake compiled anything. The
log is in the run's HOME, inside the one directory a confined run may write, so the
runs stay confined as in a real evaluation.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest
from shiplint.cmake_eval import abi_sharing, compilers, run
from shiplint.cmake_eval.cmake_binary import CMakeBinary, identify
from shiplint.cmake_eval.run import RunOutcome, configure
from shiplint.platforms import Platform

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

_REPORT = 'message(STATUS "compiler=${CMAKE_C_COMPILER} cxx=${CMAKE_CXX_COMPILER_VERSION}")\n'


def _wrapper(directory: Path, name: str, real: str, note: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f'#!/bin/sh\n# {note}\necho "$@" >> "$HOME/{name}.log"\nexec {real} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script


def _compilers(directory: Path, note: str = "") -> None:
    for name, real in (("cc", "gcc"), ("c++", "g++")):
        found = shutil.which(real)
        assert found is not None, f"the tests need {real}"
        _wrapper(directory, name, os.path.realpath(found), note)


@pytest.fixture
def toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory of the logging cc/c++, first on PATH; kept detections go to tmp."""
    bin_dir = tmp_path / "bin"
    _compilers(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return bin_dir


def _configure(
    tmp_path: Path, name: str, body: str = "", version: str = NEW_CMAKE_VERSION
) -> RunOutcome:
    work = tmp_path / name
    source = work / "src"
    source.mkdir(parents=True)
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p C CXX)\n" + body + _REPORT
    )
    binary = identify(str(cmake(version)))
    outcome = configure(binary, source, work, Platform("linux"), 120, ("C", "CXX"))
    assert outcome.returncode == 0, outcome.stderr
    return outcome


def _said(outcome: RunOutcome) -> str:
    """The probe's line naming the C compiler and the C++ compiler's version."""
    return next(line for line in outcome.stdout.splitlines() if "compiler=" in line)


def _calls(tmp_path: Path, run: str) -> int:
    """How often the run named `run` called a logging compiler."""
    logs = (tmp_path / run / "home").glob("*.log")
    return sum(len(log.read_text().splitlines()) for log in logs)


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_the_second_run_compiles_nothing_and_sees_the_same_compilers(
    tmp_path: Path, toolchain: Path, version: str
) -> None:
    first = _configure(tmp_path, "first", version=version)
    assert _calls(tmp_path, "first") > 0
    second = _configure(tmp_path, "second", version=version)
    assert _calls(tmp_path, "second") == 0
    assert "The C compiler identification" not in second.stdout
    said = _said(first)
    assert said == _said(second)
    assert f"compiler={toolchain / 'cc'} cxx=" in said and not said.endswith("cxx=")


def test_a_config_that_needs_threads_loads_from_a_kept_detection(
    tmp_path: Path, toolchain: Path
) -> None:
    _configure(tmp_path, "first")
    second = _configure(tmp_path, "second", "find_package(Threads REQUIRED)\n")
    assert "The C compiler identification" not in second.stdout
    assert "Found Threads: TRUE" in second.stdout


def test_a_rewritten_compiler_is_detected_again(tmp_path: Path, toolchain: Path) -> None:
    _configure(tmp_path, "first")
    _compilers(toolchain, note="another build of the compiler")
    again = _configure(tmp_path, "again")
    assert _calls(tmp_path, "again") > 0
    assert f"compiler={toolchain / 'cc'} cxx=" in _said(again)


def test_another_compiler_first_on_path_is_detected_again(
    tmp_path: Path, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _configure(tmp_path, "first")
    other = tmp_path / "other-bin"
    _compilers(other)
    monkeypatch.setenv("PATH", f"{other}{os.pathsep}{os.environ['PATH']}")
    again = _configure(tmp_path, "again")
    assert _calls(tmp_path, "again") > 0
    assert f"compiler={other / 'cc'} cxx=" in _said(again)


def test_a_damaged_kept_detection_is_detected_again(tmp_path: Path, toolchain: Path) -> None:
    _configure(tmp_path, "first")
    (entry,) = (tmp_path / "user-cache" / "shiplint" / "cmake-compilers").iterdir()
    entry.write_bytes(entry.read_bytes()[:-20])
    again = _configure(tmp_path, "again")
    assert _calls(tmp_path, "again") > 0
    assert f"compiler={toolchain / 'cc'} cxx=" in _said(again)


def test_a_cache_directory_that_cannot_be_written_costs_the_reuse_only(
    tmp_path: Path, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    _configure(tmp_path, "first")
    again = _configure(tmp_path, "again")
    assert _calls(tmp_path, "again") > 0
    assert f"compiler={toolchain / 'cc'} cxx=" in _said(again)


_LANGUAGES = ("C", "CXX")


def _detect(
    tmp_path: Path, name: str, version: str, platform: str, monkeypatch: pytest.MonkeyPatch
) -> compilers.Detection:
    """A detection by CMake `version` for `platform`, in a user cache of its own (none is
    kept for it), sharing what this process offered."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{name}"))
    work = tmp_path / name
    work.mkdir()
    arguments = run.platform_arguments(Platform(platform), _LANGUAGES)
    fence = (work, run.confinement())
    detected = run._detection(
        identify(str(cmake(version))), arguments, _LANGUAGES, work, 120, fence
    )
    assert not isinstance(detected, RunOutcome)
    assert detected[1] is not None
    return detected[1]


def _abi_compiles(tmp_path: Path, name: str) -> int:
    """How many compiler calls of the run named `name` built CMake's ABI source."""
    logs = (tmp_path / name / "home").glob("*.log")
    return sum(log.read_text().count("CMakeCCompilerABI.c") for log in logs) + sum(
        log.read_text().count("CMakeCXXCompilerABI.cpp") for log in logs
    )


@pytest.mark.parametrize("platform", ["linux", "macos", "windows"])
@pytest.mark.parametrize(
    ("version", "shares"),
    # 4.x's compiler identification sets a variable its ABI step completes (the
    # architecture): it is never given another detection's answers.
    [(OLD_CMAKE_VERSION, True), (NEW_CMAKE_VERSION, False)],
)
def test_a_detection_after_the_newest_cmakes_is_the_real_one(
    tmp_path: Path,
    toolchain: Path,
    monkeypatch: pytest.MonkeyPatch,
    version: str,
    shares: bool,
    platform: str,
) -> None:
    """Everything a probe starts from (the platform files, the cache) is byte for byte
    what the same CMake's own full detection makes; given the newest CMake's ABI answers,
    its ABI step compiled nothing."""
    monkeypatch.setattr(abi_sharing, "_SHARED", {})
    real = _detect(tmp_path, "real", version, platform, monkeypatch)
    assert _abi_compiles(tmp_path, "real") > 0
    monkeypatch.setattr(abi_sharing, "_SHARED", {})
    _detect(tmp_path, "newest", NEW_CMAKE_VERSION, platform, monkeypatch)
    after = _detect(tmp_path, "after", version, platform, monkeypatch)
    assert (_abi_compiles(tmp_path, "after") == 0) is shares
    assert _calls(tmp_path, "after") > 0  # each CMake identifies the compilers itself
    for name, text in real.files.items():
        assert after.files[name].splitlines() == text.splitlines(), name
    assert after == real


def test_answers_a_cmake_does_not_keep_as_given_leave_it_its_own_detection(
    tmp_path: Path, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4.4.5 given every variable its ABI step sets, the architecture among them (which
    its identification sets again, so it is never given them): the detection that wrote
    another architecture is replaced by the CMake's own full one."""
    monkeypatch.setattr(abi_sharing, "_SHARED", {})
    real = _detect(tmp_path, "real", NEW_CMAKE_VERSION, "linux", monkeypatch)
    monkeypatch.setattr(abi_sharing, "_SHARED", {})
    _detect(tmp_path, "newest", NEW_CMAKE_VERSION, "linux", monkeypatch)
    every = ("COMPILER_ARCHITECTURE_ID", "SIZEOF_DATA_PTR", "BYTE_ORDER", "COMPILER_ABI")
    monkeypatch.setattr(abi_sharing, "_abi_variables", lambda cmake: every)
    after = _detect(tmp_path, "after", NEW_CMAKE_VERSION, "linux", monkeypatch)
    assert _abi_compiles(tmp_path, "after") > 0
    assert after == real


# What a config can read of a detection, and a search that depends on it (find_library
# looks in lib/<CMAKE_LIBRARY_ARCHITECTURE> and, with CMAKE_SIZEOF_VOID_P 8, lib64).
_READS = "".join(
    f'list(APPEND PKG_LIBRARIES "{name}=${{{name}}}")\n'
    for name in (
        "CMAKE_SIZEOF_VOID_P",
        "CMAKE_LIBRARY_ARCHITECTURE",
        "CMAKE_C_COMPILER_ID",
        "CMAKE_CXX_COMPILER_VERSION",
        "CMAKE_C_IMPLICIT_LINK_DIRECTORIES",
        "CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES",
        "CMAKE_CXX_IMPLICIT_LINK_LIBRARIES",
        "CMAKE_C_BYTE_ORDER",
        "pkg_M_LIBRARY",
    )
)


def _evaluate_both(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Both CMakes' evaluations of a config that reads the detection, in a cold user cache."""
    from shiplint.artifacts.archive import open_artifact
    from shiplint.cmake_eval import evaluate_artifact
    from shiplint.cmake_eval.model import ConfigEvaluation
    from shiplint.manifest.model import Aggregate, Carries, Component, LibraryKind

    from tests.builders import library, listing_as, manifest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{name}"))
    monkeypatch.setattr(abi_sharing, "_SHARED", {})
    root = tmp_path / name / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(
        "set(pkg_FOUND TRUE)\nfind_library(pkg_M_LIBRARY m)\n" + _READS
    )
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),),
    )
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, Platform("linux", "x86_64"))
    binaries = [str(cmake(v)) for v in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)]
    models = evaluate_artifact(tree, listing, the_manifest, binaries, 120)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2 and all(ev.failure is None for ev in evaluations)
    return [[entry.raw for entry in ev.aggregates[0].entries] for ev in evaluations]


def test_an_evaluation_with_shared_abi_answers_reads_what_its_own_detection_gives(
    tmp_path: Path, toolchain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two CMakes evaluated cold: the older is given the newest's ABI answers, and what the
    config reads (pointer size, library architecture, compilers, implicit directories, a
    find_library) is what both read when each detects in full."""
    given: list[tuple[tuple[int, ...], bool]] = []
    real_shared_abi = abi_sharing.shared_abi

    def noted(binary: CMakeBinary, toolchain: str, languages: Sequence[str]) -> dict[str, str]:
        answers = real_shared_abi(binary, toolchain, languages)
        given.append((binary.version, bool(answers)))
        return answers

    monkeypatch.setattr(abi_sharing, "shared_abi", noted)
    shared = _evaluate_both(tmp_path, "shared", monkeypatch)
    assert ((3, 24, 3), True) in given
    monkeypatch.setattr(abi_sharing, "shared_abi", lambda *arguments: {})
    full = _evaluate_both(tmp_path, "full", monkeypatch)
    assert shared == full
    old = shared[0]  # 3.24.3's
    assert "CMAKE_SIZEOF_VOID_P=8" in old and "CMAKE_LIBRARY_ARCHITECTURE=" not in old
    assert any(read.startswith("pkg_M_LIBRARY=/") for read in old)


def _gnu_detection(pointer_size: str) -> compilers.Detection:
    """A detection whose C file holds the GNU id and every ABI answer 3.24.3's step sets."""
    names = abi_sharing._abi_variables(identify(str(cmake(OLD_CMAKE_VERSION))))
    lines = ['set(CMAKE_C_COMPILER_ID "GNU")\n']
    lines += [
        f'set(CMAKE_C_{name} "{pointer_size if name == "SIZEOF_DATA_PTR" else "x"}")\n'
        for name in names
    ]
    return compilers.Detection("4.4.5", {"CMakeCCompiler.cmake": "".join(lines)}, "")


def test_a_newer_detection_of_the_same_cmake_replaces_the_shared_one() -> None:
    newest = identify(str(cmake(NEW_CMAKE_VERSION)))
    older = identify(str(cmake(OLD_CMAKE_VERSION)))
    key = "a toolchain of this test's own"
    # The toolchain changed between two runs of one process: the newest CMake detected
    # it again, and the older one is given what that detection found.
    abi_sharing.offer(newest, key, _gnu_detection("4"))
    abi_sharing.offer(newest, key, _gnu_detection("8"))
    assert abi_sharing.shared_abi(older, key, ("C",))["CMAKE_C_SIZEOF_DATA_PTR"] == "8"
    # An older CMake's detection never replaces a newer one's.
    abi_sharing.offer(older, key, _gnu_detection("2"))
    assert abi_sharing.shared_abi(older, key, ("C",))["CMAKE_C_SIZEOF_DATA_PTR"] == "8"
