"""SL123-SL125: the installed config's version file, asked by real CMake as find_package asks.

Real material: the ExecuTorch 1.5.1 wheel (a version file per installed config, right),
1.4.1 (no version file), tbb-devel 2021.13.1 (a version file that says 2021.13.0); and
copies of the 1.5.1 wheel's config directory with its version file doctored, on both
CMake routes (3.24.3 and 4.4.5).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import list_artifact
from shiplint.cmake_eval.model import VersionFileEvaluation
from shiplint.cmake_eval.version_file import evaluate_version_files, version_file_names
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    cmake,
    example_manifest,
    other_wheel,
    wheel,
)

CODES = ("SL123", "SL124", "SL125")
CONFIG_DIR = "executorch/share/cmake/"
VERSION_FILE = CONFIG_DIR + "executorch-config-version.cmake"


def _cmakes() -> list[str]:
    return [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]


def _models(path: Path, mf: Manifest) -> list[object]:
    with open_artifact(path) as tree:
        listing = list_artifact(tree, mf)
        return list(evaluate_version_files(tree, listing, mf, _cmakes(), 30.0))


def _lint(path: Path, mf: Manifest | None = None) -> list[Diagnostic]:
    mf = mf or load_manifest(EXAMPLE_MANIFEST)
    return lint(RULES, mf, _models(path, mf), Selection(select=CODES))


def _doctored(tmp_path: Path, version_text: str | None, name: str = "1.5.1") -> Path:
    """The 1.5.1 wheel's share/cmake config with `version_text` as its version file
    (None: no version file), in a wheel named for version `name`."""
    with zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_x86_64")) as real:
        members: dict[str, bytes] = {
            CONFIG_DIR + "executorch-config.cmake": real.read(
                CONFIG_DIR + "executorch-config.cmake"
            )
        }
    if version_text is not None:
        members[VERSION_FILE] = version_text.encode()
    return pack_wheel(
        tmp_path / f"executorch-{name}-cp311-cp311-manylinux_2_28_x86_64.whl", members
    )


def _real_version_file() -> str:
    with zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_x86_64")) as real:
        return real.read(VERSION_FILE).decode()


def test_find_package_names_both_spellings() -> None:
    assert version_file_names("a/pkg-config.cmake") == (
        "a/pkg-config-version.cmake",
        "a/pkg-configVersion.cmake",
    )
    assert version_file_names("a/PkgConfig.cmake") == (
        "a/PkgConfig-version.cmake",
        "a/PkgConfigVersion.cmake",
    )


@pytest.mark.parametrize("platform", ["manylinux_2_28_x86_64", "macosx_14_0_arm64", "win_amd64"])
def test_quiet_on_the_real_1_5_1_wheels(platform: str) -> None:
    path = wheel("1.5.1", platform)
    models = _models(path, load_manifest(EXAMPLE_MANIFEST))
    # Two installed configs (share/cmake, lib/cmake/executorch), each asked by both CMakes.
    evaluations = [m for m in models if isinstance(m, VersionFileEvaluation)]
    assert len(evaluations) == 4
    for ev in evaluations:
        assert ev.reported == "1.5.1"
        assert ev.same_minor is not None and ev.same_minor.accepted
        assert ev.next_major is not None and not ev.next_major.accepted
    assert _lint(path) == []


def test_sl123_fires_on_the_real_1_4_1_wheel() -> None:
    (diag,) = _lint(wheel("1.4.1", "manylinux_2_28_x86_64"))
    assert diag.code == "SL123"
    assert diag.location.member == CONFIG_DIR + "executorch-config.cmake"
    assert "no executorch-config-version.cmake or executorch-configVersion.cmake" in diag.message


def test_sl123_fires_when_the_version_file_is_removed(tmp_path: Path) -> None:
    assert [d.code for d in _lint(_doctored(tmp_path, None))] == ["SL123"]


def test_sl124_fires_on_the_real_tbb_devel_wheel() -> None:
    diags = _lint(other_wheel("tbb-devel"), load_manifest(example_manifest("tbb-devel")))
    assert [d.code for d in diags] == ["SL124", "SL124"]
    assert {d.subject.cmake_version for d in diags} == {OLD_CMAKE_VERSION, NEW_CMAKE_VERSION}
    assert "sets PACKAGE_VERSION to '2021.13.0'" in diags[0].message
    assert "the wheel is version 2021.13.1" in diags[0].message


def test_sl124_fires_when_the_wheel_is_another_version(tmp_path: Path) -> None:
    diags = _lint(_doctored(tmp_path, _real_version_file(), name="1.5.2"))
    assert [d.code for d in diags] == ["SL124", "SL124"]
    assert "sets PACKAGE_VERSION to '1.5.1'" in diags[0].message


def test_sl124_compares_the_numeric_release_of_a_local_version(tmp_path: Path) -> None:
    assert _lint(_doctored(tmp_path, _real_version_file(), name="1.5.1+cpu")) == []


@pytest.mark.parametrize(
    ("appended", "expected"),
    [
        ("set(PACKAGE_VERSION_COMPATIBLE TRUE)", "accepts find_package(executorch 2.0)"),
        ("set(PACKAGE_VERSION_UNSUITABLE TRUE)", "rejects find_package(executorch 1.5)"),
        ('message(FATAL_ERROR "planted")', "cannot be evaluated"),
    ],
)
def test_sl125_fires_on_each_route(tmp_path: Path, appended: str, expected: str) -> None:
    diags = _lint(_doctored(tmp_path, _real_version_file() + appended + "\n"))
    assert [d.code for d in diags] == ["SL125", "SL125"]
    assert {d.subject.cmake_version for d in diags} == {OLD_CMAKE_VERSION, NEW_CMAKE_VERSION}
    assert all(expected in d.message and d.location.member == VERSION_FILE for d in diags)


def test_a_version_computed_by_the_file_is_cmake_s_answer(tmp_path: Path) -> None:
    # Not readable as text: the version is assembled at evaluation time.
    text = _real_version_file().replace(
        'set(PACKAGE_VERSION "1.5.1")', 'set(_m 1)\nset(PACKAGE_VERSION "${_m}.5.1")'
    )
    assert 'set(PACKAGE_VERSION "1.5.1")' not in text
    assert _lint(_doctored(tmp_path, text)) == []
    # Says 3.5.1: not the wheel's version, and a 3.x file turns away a request for 1.5.
    wrong = text.replace("set(_m 1)", "set(_m 3)")
    codes = sorted(d.code for d in _lint(_doctored(tmp_path, wrong)))
    assert codes == ["SL124", "SL124", "SL125", "SL125"]
