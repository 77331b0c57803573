"""Files the manifest names must exist: a missing one is one manifest error at its key.

Not a failed CMake run per platform and CMake (none of them ever started), and
only when the run reads the file: `--no-sources` and runs without the config
rules never look for the config source.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synthpkg"


def _repo(tmp_path: Path, old: str, new: str) -> Path:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    manifest = repo / "shiplint.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert old in text
    manifest.write_text(text.replace(old, new), encoding="utf-8")
    return repo


def _check(repo: Path, *args: str) -> int:
    cmakes = ("--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)))
    return main(["check", "--root", str(repo), *cmakes, *args])


def test_a_missing_config_source_is_one_error_at_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        "config_source: cmake/synth-config.cmake.in",
        "config_source: cmake/synth-config.cmake.im",
    )
    assert _check(repo) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "shiplint: error: shiplint.yaml:14:3: the config source cmake/synth-config.cmake.im "
        f"does not exist under the root {repo.resolve()} (at cmake.config_source)\n"
    )


def test_a_missing_config_source_extra_is_located_at_its_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        "config_source_extras: [cmake/synth-components.cmake]",
        "config_source_extras: [cmake, cmake/synth-components.cmake, cmake/gone.cmake]",
    )
    assert _check(repo) == 2
    out, err = capsys.readouterr()
    assert out == ""
    under = f"under the root {repo.resolve()}"
    assert err.splitlines() == [
        f"shiplint: error: shiplint.yaml:15:26: the config source cmake is a directory {under}, "
        "not a file (at cmake.config_source_extras[0])",
        f"shiplint: error: shiplint.yaml:15:63: the config source cmake/gone.cmake does not "
        f"exist {under} (at cmake.config_source_extras[2])",
    ]


@pytest.mark.parametrize("args", [("--no-sources", "--select", "SL1"), ("--select", "SL2")])
def test_a_run_that_never_reads_the_config_source_does_not_look_for_it(
    args: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        "config_source: cmake/synth-config.cmake.in",
        "config_source: cmake/synth-config.cmake.im",
    )
    artifact = tmp_path / "install"
    (artifact / "synth" / "lib").mkdir(parents=True)
    _check(repo, *args, *([str(artifact)] if "--no-sources" in args else []))
    assert "synth-config.cmake.im" not in capsys.readouterr().err
