"""A kept config evaluation is replayed while nothing it was given or reached changed.

Real CMake of both routes. Whether CMake ran is seen in what the config published:
it runs `shiplint_stamp`, a real script on PATH that prints a value no two runs
share (the kernel's random UUID), and publishes it in PKG_LIBRARIES. A replay
gives back the first run's value; a run gives a new one.
"""

from __future__ import annotations

import marshal
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from shiplint import cache
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation, VersionFileEvaluation
from shiplint.cmake_eval.version_file import evaluate_version_files
from shiplint.manifest.model import Aggregate, Carries

from tests.builders import config_package, listing_as
from tests.cache_forgery import WAYS, forge
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake
from tests.test_cmake_eval_probe import LINUX, _evaluate_as, _manifest

STAMPED = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
CONFIG = (
    "execute_process(COMMAND shiplint_stamp OUTPUT_VARIABLE stamp "
    "OUTPUT_STRIP_TRAILING_WHITESPACE)\n"
    "set(pkg_FOUND TRUE)\n"
    'set(PKG_LIBRARIES "${stamp}")\n'
)
BOTH = [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION]


@pytest.fixture
def stamp_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache of this test's own, and `shiplint_stamp` first on PATH."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    directory = tmp_path / "bin"
    _script(directory / "shiplint_stamp", "cat /proc/sys/kernel/random/uuid")
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    return directory


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _run(
    package: Path,
    version: str = NEW_CMAKE_VERSION,
    reuse: bool = True,
    binary: str | None = None,
    fails: bool = False,
) -> ConfigEvaluation:
    tree = open_artifact(package)
    listing = listing_as(tree, STAMPED, LINUX)
    # reuse=False: as a --no-cache run, nothing kept before is read.
    with cache.refusing_reuse(not reuse):
        models = evaluate_artifact(tree, listing, STAMPED, [binary or str(cmake(version))], 60.0)
    (evaluation,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert (evaluation.failure is not None) is fails, evaluation.failure
    return evaluation


def _stamp(evaluation: ConfigEvaluation) -> str:
    (aggregate,) = evaluation.aggregates
    (entry,) = aggregate.entries
    return entry.raw


@pytest.mark.parametrize("version", BOTH)
def test_a_second_evaluation_replays_the_first(
    tmp_path: Path, stamp_bin: Path, version: str
) -> None:
    package = config_package(tmp_path, CONFIG)
    first, second = _run(package, version), _run(package, version)
    assert not first.reused and second.reused
    assert _stamp(first) == _stamp(second)
    # Everything a rule reads is the same; only how long it took differs.
    assert replace(first, seconds=0.0, reused=True) == replace(second, seconds=0.0)


@pytest.mark.parametrize("version", BOTH)
def test_without_reuse_the_config_runs_again(tmp_path: Path, stamp_bin: Path, version: str) -> None:
    package = config_package(tmp_path, CONFIG)
    first = _run(package, version)
    again = _run(package, version, reuse=False)
    assert not again.reused and _stamp(again) != _stamp(first)
    # The fresh run is kept: the next one replays it.
    assert _stamp(_run(package, version)) == _stamp(again)


def test_an_edited_config_file_is_evaluated_again(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    config = package / "pkg" / "share" / "cmake" / "pkg-config.cmake"
    config.write_text(CONFIG + "# edited\n", encoding="utf-8")
    again = _run(package)
    assert not again.reused and _stamp(again) != _stamp(first)


def test_a_new_file_in_the_package_is_evaluated_again(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    (package / "pkg" / "lib" / "libextra.so").write_bytes(b"")
    again = _run(package)
    assert not again.reused and _stamp(again) != _stamp(first)


def test_a_changed_program_the_config_runs_is_run_again(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    _script(stamp_bin / "shiplint_stamp", "echo rewritten-$(cat /proc/sys/kernel/random/uuid)")
    again = _run(package)
    assert not again.reused and _stamp(again).startswith("rewritten-")
    assert _stamp(_run(package)) == _stamp(again) != _stamp(first)


def test_another_cmake_at_the_same_path_is_a_miss(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    link = tmp_path / "cmake-here" / "cmake"
    link.parent.mkdir()
    link.symlink_to(cmake(OLD_CMAKE_VERSION))
    first = _run(package, binary=str(link))
    link.unlink()
    link.symlink_to(cmake(NEW_CMAKE_VERSION))
    again = _run(package, binary=str(link))
    assert not again.reused and _stamp(again) != _stamp(first)


DEPENDENT = (
    "include(CMakeFindDependencyMacro)\n"
    "find_dependency(shiplintdep)\n"
    "execute_process(COMMAND shiplint_stamp OUTPUT_VARIABLE stamp "
    "OUTPUT_STRIP_TRAILING_WHITESPACE)\n"
    "set(pkg_FOUND TRUE)\n"
    'set(PKG_LIBRARIES "${stamp}")\n'
)


@pytest.mark.parametrize("version", BOTH)
def test_a_changed_dependency_is_evaluated_again(
    tmp_path: Path, stamp_bin: Path, version: str
) -> None:
    # find_package searches <prefix>/lib/cmake/<name>*/ under each PATH entry's parent.
    package = config_package(tmp_path, DEPENDENT)
    dependency = tmp_path / "lib" / "cmake" / "shiplintdep"
    dependency.mkdir(parents=True)
    (dependency / "shiplintdep-config.cmake").write_text("set(shiplintdep_ONE 1)\n")
    first = _run(package, version)
    assert first.found
    assert _run(package, version).reused
    (dependency / "shiplintdep-config.cmake").write_text("set(shiplintdep_TWO 22)\n")
    again = _run(package, version)
    assert not again.reused and _stamp(again) != _stamp(first)


def test_a_dependency_installed_later_is_evaluated_again(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, DEPENDENT)
    (tmp_path / "lib" / "cmake").mkdir(parents=True)
    # Not found: the plain find_package answers so, and each REQUIRED request's
    # find_dependency ends its configure run (the request's answer: isolate.py).
    missing = _run(package)
    assert not missing.found and missing.runs > 1
    assert all(r.fatal and "shiplintdep" in r.fatal for r in missing.requests if not r.shipped)
    assert _run(package).reused
    dependency = tmp_path / "lib" / "cmake" / "shiplintdep"
    dependency.mkdir()
    (dependency / "shiplintdep-config.cmake").write_text("set(shiplintdep_FOUND TRUE)\n")
    installed = _run(package)
    assert not installed.reused and installed.found


def test_a_corrupt_entry_is_a_miss(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    entries = list((cache.cache_dir() / "cmake-evaluations").iterdir())
    assert len(entries) == 1
    data = entries[0].read_bytes()
    entries[0].write_bytes(data[:-10] + b"x" * 10)
    again = _run(package)
    assert not again.reused and _stamp(again) != _stamp(first)


def _kept_entry(name: str) -> dict[str, Any]:
    payload = cache.read("cmake-evaluations", name)
    assert payload is not None
    entry: dict[str, Any] = marshal.loads(payload)
    return entry


def _stamp_planted(entry: dict[str, Any], stamp: str) -> dict[str, Any]:
    """The kept run with the stamp a forger wants rules to read, in the entry's real form."""
    outputs = {
        name: text.replace(stamp, "planted-by-a-forger") for name, text in entry["outputs"].items()
    }
    assert outputs != entry["outputs"]
    return {**entry, "outputs": outputs}


# Entries of another form, written with the user's key (an older format, another kind's
# answer, a hand edit): each is a miss, and the config is evaluated again.
_FOREIGN: list[Any] = [
    pytest.param(lambda e, s: b'{"outcome": {"returncode": "0"}}', id="older-json"),
    pytest.param(lambda e, s: marshal.dumps((True, False, "mounts")), id="another-kinds"),
    pytest.param(
        lambda e, s: marshal.dumps({**e, "outcome": {**e["outcome"], "returncode": "0"}}),
        id="returncode-text",
    ),
    pytest.param(
        lambda e, s: marshal.dumps({**_stamp_planted(e, s), "outputs": [["results", s]]}),
        id="outputs-a-list",
    ),
    pytest.param(
        lambda e, s: marshal.dumps({**e, "outcome": {**e["outcome"], "confinement": "chroot"}}),
        id="unknown-confinement",
    ),
    pytest.param(lambda e, s: marshal.dumps(e)[:-3], id="truncated"),
]


@pytest.mark.parametrize("foreign", _FOREIGN)
def test_an_entry_of_another_form_is_a_miss(
    tmp_path: Path, stamp_bin: Path, foreign: Callable[[dict[str, Any], str], bytes]
) -> None:
    # Authentic (written with the user's key) but not an entry this code wrote.
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    (entry,) = (cache.cache_dir() / "cmake-evaluations").iterdir()
    cache.write("cmake-evaluations", entry.name, foreign(_kept_entry(entry.name), _stamp(first)))
    again = _run(package)
    assert not again.reused and _stamp(again) not in (_stamp(first), "planted-by-a-forger")
    # Evaluated again: the same model but for the stamp (a new run's) and the time.
    assert replace(again, aggregates=first.aggregates, seconds=first.seconds) == first


def test_concurrent_evaluations_keep_one_whole_entry(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, CONFIG)
    found: list[ConfigEvaluation] = []
    threads = [threading.Thread(target=lambda: found.append(_run(package))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 3
    replayed = _run(package)
    assert replayed.reused
    assert _stamp(replayed) in {_stamp(f) for f in found}


def test_a_run_that_timed_out_is_not_kept(tmp_path: Path, stamp_bin: Path) -> None:
    package = config_package(tmp_path, "execute_process(COMMAND sleep 30)\nset(pkg_FOUND TRUE)\n")
    tree = open_artifact(package)
    for _ in range(2):
        (evaluation,) = [
            m
            for m in _evaluate_as(tree, LINUX, STAMPED, [str(cmake(NEW_CMAKE_VERSION))], 3.0)
            if isinstance(m, ConfigEvaluation)
        ]
        assert evaluation.failure is not None and not evaluation.reused
    assert not (cache.cache_dir() / "cmake-evaluations").exists()


VERSION_FILE = (
    "execute_process(COMMAND shiplint_stamp OUTPUT_VARIABLE PACKAGE_VERSION "
    "OUTPUT_STRIP_TRAILING_WHITESPACE)\n"
    "set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
)


def _version_stamp(package: Path, reuse: bool = True) -> str | None:
    tree = open_artifact(package)
    listing = listing_as(tree, STAMPED, LINUX)
    with cache.refusing_reuse(not reuse):
        models = evaluate_version_files(
            tree, listing, STAMPED, [str(cmake(NEW_CMAKE_VERSION))], 60.0
        )
    (evaluation,) = [m for m in models if isinstance(m, VersionFileEvaluation)]
    return evaluation.reported


def test_a_version_file_evaluation_is_replayed_until_its_file_changes(
    tmp_path: Path, stamp_bin: Path
) -> None:
    package = config_package(tmp_path, CONFIG)
    version_file = package / "pkg" / "share" / "cmake" / "pkg-config-version.cmake"
    version_file.write_text(VERSION_FILE, encoding="utf-8")
    first = _version_stamp(package)
    assert first is not None
    assert _version_stamp(package) == first
    assert _version_stamp(package, reuse=False) != first
    version_file.write_text(VERSION_FILE + "# edited\n", encoding="utf-8")
    edited = _version_stamp(package)
    assert edited is not None and edited != first
    _script(stamp_bin / "shiplint_stamp", "echo rewritten")
    assert _version_stamp(package) == "rewritten"


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_entry_is_never_replayed(tmp_path: Path, stamp_bin: Path, way: str) -> None:
    # The kept run with the stamp a forger wants rules to read, in the entry's real form.
    package = config_package(tmp_path, CONFIG)
    first = _run(package)
    (entry,) = (cache.cache_dir() / "cmake-evaluations").iterdir()
    planted = marshal.dumps(_stamp_planted(_kept_entry(entry.name), _stamp(first)))
    forge("cmake-evaluations", entry.name, planted, way)
    again = _run(package)
    assert not again.reused and _stamp(again) not in (_stamp(first), "planted-by-a-forger")
