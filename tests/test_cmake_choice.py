"""Which CMake a run uses: paths as people type them, and CMakes that cannot be used.

A relative `--cmake` is relative to the current directory, a relative
`[tool.shiplint] cmake` entry to its pyproject.toml, whatever directory CMake then
runs in. A CMake that is missing, not executable or not a CMake is the caller's
mistake: exit 2 naming it and what is wrong, before anything is evaluated.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synthpkg"


def _repo(tmp_path: Path, pyproject: str = "") -> Path:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    if pyproject:
        (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return repo


def _elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current directory that is neither the repository nor where CMake lies."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def _install_cmakes(directory: Path) -> tuple[str, str]:
    """Both CMake releases under `directory` as the README's `pip install --target
    cmake-3.24 ...` lays them out; their paths relative to `directory`."""
    paths = []
    for version, name in ((OLD_CMAKE_VERSION, "cmake-3.24"), (NEW_CMAKE_VERSION, "cmake-4.4")):
        (directory / name).symlink_to(cmake(version).parents[3], target_is_directory=True)
        paths.append(f"{name}/cmake/data/bin/cmake")
    return paths[0], paths[1]


def _check(repo: Path, *args: str) -> int:
    return main(["check", "--root", str(repo), "--select", "SL1", *args])


def test_relative_cmake_paths_are_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    old, new = _install_cmakes(_elsewhere(tmp_path, monkeypatch))
    assert _check(repo, "--cmake", old, "--cmake", f"./{new}") == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert "shiplint: passed" in out and err == ""


def test_relative_config_cmake_entries_are_relative_to_their_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    old, new = _install_cmakes(repo)
    (repo / "pyproject.toml").write_text(f'[tool.shiplint]\ncmake = ["{old}", "./{new}"]\n')
    _elsewhere(tmp_path, monkeypatch)
    assert _check(repo) == 0, capsys.readouterr().err
    assert "shiplint: passed" in capsys.readouterr().out


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _pip_launcher(env: Path) -> Path:
    """What `pip install --target env cmake` puts in env/bin/cmake: a Python script that
    imports the `cmake` package of the environment it was made for, which this
    interpreter does not have."""
    launcher = _script(
        env / "bin" / "cmake",
        f"#!{sys.executable}\nimport sys\nfrom shiplint_absent_cmake_package import cmake\n"
        "sys.exit(cmake())\n",
    )
    real = env / "cmake" / "data" / "bin" / "cmake"
    real.parent.mkdir(parents=True)
    real.symlink_to(cmake(NEW_CMAKE_VERSION))
    return launcher


def test_a_pip_launcher_of_another_environment_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    _elsewhere(tmp_path, monkeypatch)
    launcher = _pip_launcher(tmp_path / "env")
    assert _check(repo, "--cmake", "../env/bin/cmake") == 2
    out, err = capsys.readouterr()
    assert out == ""  # never an SL111 against the package's config
    assert err == (
        f"shiplint: error: --cmake ../env/bin/cmake ({launcher}): `cmake --version` failed "
        "(exit 1): ModuleNotFoundError: No module named 'shiplint_absent_cmake_package' "
        "(a Python launcher of another environment; the CMake binary is "
        f"{tmp_path / 'env' / 'cmake' / 'data' / 'bin' / 'cmake'})\n"
    )
    assert "Traceback" not in err and "File " not in err


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        pytest.param(lambda d: d / "no-such-cmake", "not found", id="missing"),
        pytest.param(lambda d: d, "is a directory, not a CMake binary", id="directory"),
        pytest.param(
            lambda d: (d / "cmake.txt", (d / "cmake.txt").write_text("x"))[0],
            "not executable",
            id="not-executable",
        ),
        pytest.param(
            lambda d: _script(d / "true", "#!/bin/sh\nexit 0\n"),
            "`cmake --version` printed no CMake version (it printed nothing)",
            id="silent",
        ),
        pytest.param(
            lambda d: _script(d / "other", "#!/bin/sh\necho 'other 1.0'\n"),
            "`cmake --version` printed no CMake version (it printed: other 1.0)",
            id="another-program",
        ),
        pytest.param(
            lambda d: _script(d / "failing", "#!/bin/sh\necho 'cannot start' >&2\nexit 3\n"),
            "`cmake --version` failed (exit 3): cannot start",
            id="failing",
        ),
    ],
)
def test_an_unusable_cmake_is_a_usage_error_naming_it(
    make: object, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    bad = (tmp_path / "tools").resolve()
    bad.mkdir()
    path = make(bad)  # type: ignore[operator]
    assert _check(repo, "--cmake", str(cmake(NEW_CMAKE_VERSION)), "--cmake", str(path)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"shiplint: error: --cmake {path}: {reason}\n"


def test_an_unusable_config_entry_is_located_in_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, '[tool.shiplint]\nselect = ["SL1"]\ncmake = ["tools/cmake"]\n')
    _elsewhere(tmp_path, monkeypatch)
    assert _check(repo) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"shiplint: error: {repo / 'pyproject.toml'}:3:1: CMake {repo / 'tools' / 'cmake'}: "
        "not found (at tool.shiplint.cmake)\n"
    )


def test_an_unusable_cmake_on_path_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    shim = _pip_launcher(tmp_path / "env")
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    assert _check(repo) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"shiplint: error: cmake on PATH ({shim}): `cmake --version` failed")


def test_a_run_that_starts_no_cmake_does_not_ask_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only the source rules: no config is evaluated, so the CMake given is never run.
    repo = _repo(tmp_path)
    code = main(["check", "--root", str(repo), "--select", "SL2", "--cmake", "/no/such/cmake"])
    assert code in (0, 1)
    assert "no/such/cmake" not in capsys.readouterr().err


def test_a_hostile_cmake_name_prints_no_terminal_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, '[tool.shiplint]\ncmake = ["tools/\\u001b]0;pwned\\u0007"]\n')
    assert _check(repo) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert f"CMake {repo / 'tools'}/\\x1b]0;pwned\\x07: not found" in err
