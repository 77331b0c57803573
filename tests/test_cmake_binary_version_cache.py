"""A CMake binary's version is asked once and kept in the user cache; a changed binary is
asked again, and a script (whose answer depends on what it runs) is asked every time.

The "CMake" here is a real compiled program that prints the version given in its
environment, so a test sees whether it was asked or the kept answer was used."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from shiplint.cmake_eval import cmake_binary
from shiplint.cmake_eval.cmake_binary import identify

_SOURCE = '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { printf("cmake version %s\\n", getenv("FAKE_VERSION")); return 0; }\n'


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user cache of this test's own, and no answer remembered by this process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    cmake_binary._identify.cache_clear()


def _compiled(directory: Path) -> Path:
    compiler = shutil.which("gcc")
    assert compiler is not None, "the tests need a C compiler"
    source = directory / "fake.c"
    source.write_text(_SOURCE)
    binary = directory / "cmake"
    subprocess.run([compiler, "-o", str(binary), str(source)], check=True)
    return binary


def _asked(binary: Path, version: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("FAKE_VERSION", version)
    cmake_binary._identify.cache_clear()  # a later shiplint process
    return identify(str(binary)).version_text


@pytest.mark.usefixtures("fresh")
def test_a_binary_is_asked_once_then_its_kept_version_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = _compiled(tmp_path)
    assert _asked(binary, "3.24.3", monkeypatch) == "3.24.3"
    # Not asked again: it would now say 4.4.5.
    assert _asked(binary, "4.4.5", monkeypatch) == "3.24.3"


@pytest.mark.usefixtures("fresh")
def test_a_changed_binary_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = _compiled(tmp_path)
    assert _asked(binary, "3.24.3", monkeypatch) == "3.24.3"
    replacement = tmp_path / "replacement"
    replacement.mkdir()
    os.replace(_compiled(replacement), binary)  # another file at the same path
    assert _asked(binary, "4.4.5", monkeypatch) == "4.4.5"


@pytest.mark.usefixtures("fresh")
def test_a_script_is_asked_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "cmake"
    script.write_text('#!/bin/sh\necho "cmake version $FAKE_VERSION"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    assert _asked(script, "3.24.3", monkeypatch) == "3.24.3"
    assert _asked(script, "4.4.5", monkeypatch) == "4.4.5"


@pytest.mark.usefixtures("fresh")
def test_a_binary_that_fails_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = _compiled(tmp_path)
    monkeypatch.setenv("FAKE_VERSION", "unknown")
    with pytest.raises(cmake_binary.CMakeUnusable, match="printed no CMake version"):
        identify(str(binary))
    assert _asked(binary, "4.4.5", monkeypatch) == "4.4.5"
