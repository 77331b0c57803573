"""SL321: a wheel whose real compiled library NEEDs a provided distribution's library requires it.

libpkg_comp.so (gcc output) NEEDs libpkg.so, which the manifest says the `pkgbase`
distribution provides; the wheel's METADATA varies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Externals, LibraryKind, ProvidedLibraries
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest

__all__ = ["built_libs"]

TAG = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"


def _sl321(
    tmp_path: Path, built: dict[str, Path], requires: list[str], distribution: str | None
) -> list[Diagnostic]:
    provided = ProvidedLibraries("pkgbase", ("libpkg.so",), distribution)
    mf = manifest(
        libraries=(library("pkg_comp", LibraryKind.RUNTIME),),
        externals=Externals(policies=("platform-tag",), provided=(provided,)),
    )
    text = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    members: dict[str, Path | bytes] = {
        "pkg/lib/libpkg_comp.so": built["libpkg_comp.so"],
        "pkg-1.0.dist-info/METADATA": text.encode(),
    }
    path = pack_wheel(tmp_path / TAG, members)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL321",)))


@pytest.mark.parametrize(
    "requires",
    [
        [],
        ["numpy"],
        ['pkgbase>=2; sys_platform == "darwin"'],
        ['pkgbase; extra == "full"'],
        ['pkgbase; python_version < "3.10"'],
    ],
)
def test_fires_when_no_requirement_covers_the_tag(
    tmp_path: Path, built_libs: dict[str, Path], requires: list[str]
) -> None:
    (diag,) = _sl321(tmp_path, built_libs, requires, "pkgbase")
    assert diag.location.member == "pkg-1.0.dist-info/METADATA"
    assert "pkg/lib/libpkg_comp.so (libpkg.so) loads pkgbase's libraries" in diag.message


@pytest.mark.parametrize(
    "requires",
    [
        ["pkgbase>=2"],
        ['PkgBase; python_version >= "3.10" and platform_machine == "x86_64"'],
        ['pkgbase; sys_platform == "linux"'],
    ],
)
def test_quiet_when_a_requirement_covers_the_tag(
    tmp_path: Path, built_libs: dict[str, Path], requires: list[str]
) -> None:
    assert _sl321(tmp_path, built_libs, requires, "pkgbase") == []


def test_quiet_when_the_provider_names_no_distribution(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    assert _sl321(tmp_path, built_libs, [], None) == []
