"""A directory of wheels is the wheels in it; an install tree stays one; both is a usage error.

Real wheels (hard links into the material cache) and a real shared library taken
out of one; `main()` runs as a user runs `shiplint check dist/`.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST, REPO, wheel

LINUX = ("1.5.1", "manylinux_2_28_x86_64")
AARCH64 = ("1.5.1", "manylinux_2_28_aarch64")
LIBRARY = "executorch/lib/libexecutorch.so"


def _place(source: Path, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / source.name
    try:
        os.link(source, target)
    except OSError:  # another filesystem
        shutil.copy(source, target)
    return target


def _library(directory: Path) -> Path:
    """A real shared library, as an install tree holds it."""
    target = directory / "lib" / "libexecutorch.so"
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel(*LINUX)) as archive:
        target.write_bytes(archive.read(LIBRARY))
    return target


def _artifact(diagnostic: dict[str, Any]) -> str:
    return str(diagnostic["location"]["path"]).split("!/")[0].rsplit("/", 1)[-1]


def _report(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[dict[str, Any]]]:
    code = main(
        [
            "check",
            "--no-sources",
            "--manifest",
            str(EXAMPLE_MANIFEST),
            "--root",
            str(REPO),
            "--select",
            "SL3",
            "--format",
            "json",
            *map(str, paths),
        ]
    )
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    return code, json.loads(captured.out)["diagnostics"]


def test_a_directory_of_wheels_checks_each_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dist = tmp_path / "dist"
    linux, aarch64 = _place(wheel(*LINUX), dist), _place(wheel(*AARCH64), dist)
    _, of_directory = _report(capsys, dist)
    codes = {d["code"] for d in of_directory}
    # Not an install tree: no "no binary names an OS" for the directory itself.
    assert "SL317" not in codes
    # The same findings as the wheels given one by one, each against its own wheel.
    _, one_by_one = _report(capsys, linux, aarch64)
    assert of_directory == one_by_one
    assert {_artifact(d) for d in of_directory} == {linux.name, aarch64.name}


def test_an_install_tree_stays_one_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "install"
    _library(tree)
    # An archive deep inside a tree (a fixture, a docs bundle) does not make it a wheelhouse.
    (tree / "share" / "doc").mkdir(parents=True)
    (tree / "share" / "doc" / "examples.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    _, diagnostics = _report(capsys, tree)
    assert diagnostics
    assert {_artifact(d) for d in diagnostics} == {"install"}


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("library", "shared library lib/libexecutorch.so"),
        ("config", "CMake package config share/cmake/demo-config.cmake"),
    ],
)
def test_a_directory_with_wheels_and_an_install_tree_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, named: str
) -> None:
    mixed = tmp_path / "mixed"
    _place(wheel(*LINUX), mixed)
    if content == "library":
        _library(mixed)
    else:
        config = mixed / "share" / "cmake" / "demo-config.cmake"
        config.parent.mkdir(parents=True)
        config.write_text("set(demo_FOUND TRUE)\n")
    code = main(["check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST), str(mixed)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"shiplint: error: {mixed}: ambiguous: it holds artifacts ({wheel(*LINUX).name})" in err
    assert named in err and "Traceback" not in err


def test_help_says_how_a_directory_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a directory of archives (each checked on its own)" in text
    assert "is an install tree when a CMake package config" in text
    assert "A directory holding both is a usage error." in text
