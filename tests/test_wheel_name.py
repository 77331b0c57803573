"""A wheel's version comes from its METADATA; a file name that is no wheel's, or that
disagrees with METADATA, is said (SL324, SL325), never a silent skip.

Renamed copies of the real tbb-devel 2021.13.1 wheel, whose version file says 2021.13.0
(SL124 on the wheel under its own name): the renamed copies are checked against the
version their METADATA states, with both real CMake releases.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from shiplint.cli import main

from tests.material import (
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    example_manifest,
    other_wheel,
)


def _check(wheel: Path, output: Path) -> list[dict[str, Any]]:
    main(
        [
            "check", "--no-sources",
            "--manifest", str(example_manifest("tbb-devel")),
            "--root", str(REPO),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)),
            "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--select", "SL124,SL324,SL325",
            "--format", "json", "--output", str(output),
            str(wheel),
        ]
    )  # fmt: skip
    diagnostics: list[dict[str, Any]] = json.loads(output.read_text(encoding="utf-8"))[
        "diagnostics"
    ]
    return diagnostics


def _renamed(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copyfile(other_wheel("tbb-devel"), copy)
    return copy


def _codes(diagnostics: list[dict[str, Any]]) -> list[str]:
    return sorted(d["code"] for d in diagnostics)


def test_under_its_own_name_the_name_is_quiet(tmp_path: Path) -> None:
    diagnostics = _check(other_wheel("tbb-devel"), tmp_path / "r.json")
    assert _codes(diagnostics) == ["SL124", "SL124"]


def test_a_wheel_renamed_to_no_wheel_name_keeps_its_version_rules(tmp_path: Path) -> None:
    diagnostics = _check(_renamed(tmp_path, "tbb_devel.whl"), tmp_path / "r.json")
    assert _codes(diagnostics) == ["SL124", "SL124", "SL324"]
    for finding in diagnostics:
        if finding["code"] == "SL124":
            # The version is METADATA's, not a guess from the name.
            assert "but the wheel is version 2021.13.1" in finding["message"]
    (unusable,) = [d for d in diagnostics if d["code"] == "SL324"]
    assert unusable["severity"] == "error"
    assert unusable["location"]["path"].endswith("tbb_devel.whl")
    assert "tbb_devel.whl is not a wheel file name" in unusable["message"]
    assert "METADATA says tbb-devel 2021.13.1" in unusable["message"]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        (
            "tbb_devel-2021.12.0-py2.py3-none-manylinux1_x86_64.whl",
            "the file name says version 2021.12.0, METADATA's Version is 2021.13.1",
        ),
        (
            "tbb-2021.13.1-py2.py3-none-manylinux1_x86_64.whl",
            "the file name says distribution tbb, METADATA's Name is tbb-devel",
        ),
    ],
)
def test_a_name_that_disagrees_with_metadata_is_said(tmp_path: Path, name: str, said: str) -> None:
    diagnostics = _check(_renamed(tmp_path, name), tmp_path / "r.json")
    assert _codes(diagnostics) == ["SL124", "SL124", "SL325"]
    for finding in diagnostics:
        if finding["code"] == "SL124":
            assert "but the wheel is version 2021.13.1" in finding["message"]
    (disagrees,) = [d for d in diagnostics if d["code"] == "SL325"]
    assert disagrees["severity"] == "warning"
    assert said in disagrees["message"]
    assert disagrees["location"]["member"] == "tbb_devel-2021.13.1.dist-info/METADATA"
