"""SL322: an import library whose DLL the wheel does not ship, on a real import library.

The import library is written by llvm-dlltool from a module-definition file (what a
Windows linker writes beside a DLL); the DLL shipped in the quiet case is a real one
from the ExecuTorch Windows wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.import_library import dlls_named
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import LibraryKind
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import wheel

__all__ = ["built_libs"]

TAG = "pkg-1.0-cp311-cp311-win_amd64.whl"
DLL = "executorch/kernels/quantized/quantized_ops_aot_lib.dll"


@pytest.fixture(scope="session")
def import_lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tool = shutil.which("llvm-dlltool")
    if tool is None:
        pytest.fail("llvm-dlltool is required to write the test import library")
    root = tmp_path_factory.mktemp("import-lib")
    definition = root / "pkg_comp.def"
    definition.write_text("LIBRARY pkg_comp.dll\nEXPORTS\n  pkg_comp_run\n  pkg_comp_version\n")
    out = root / "pkg_comp.lib"
    subprocess.run(
        [tool, "-m", "i386:x86-64", "-d", str(definition), "-l", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def _sl322(tmp_path: Path, members: dict[str, Path | bytes]) -> list[Diagnostic]:
    mf = manifest(libraries=(library("pkg_comp", LibraryKind.RUNTIME, platforms=("windows",)),))
    path = pack_wheel(tmp_path / TAG, members)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL322",)))


def test_the_import_library_names_its_dll(import_lib: Path) -> None:
    assert dlls_named(import_lib.read_bytes()) == ("pkg_comp.dll",)


def test_fires_when_the_dll_is_missing(tmp_path: Path, import_lib: Path) -> None:
    (diag,) = _sl322(tmp_path, {"pkg/lib/pkg_comp.lib": import_lib})
    assert diag.location.member == "pkg/lib/pkg_comp.lib"
    assert "import library for pkg_comp.dll, which the wheel does not ship" in diag.message


def test_quiet_when_the_dll_ships(tmp_path: Path, import_lib: Path) -> None:
    with zipfile.ZipFile(wheel("1.5.1", "win_amd64")) as source:
        dll = source.read(DLL)
    members: dict[str, Path | bytes] = {
        "pkg/lib/pkg_comp.lib": import_lib,
        "pkg/bin/PKG_COMP.dll": dll,
    }
    assert _sl322(tmp_path, members) == []


def test_quiet_for_a_static_library(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    # An archive of objects (no import objects) names no DLL.
    assert _sl322(tmp_path, {"pkg/lib/pkg_comp.lib": built_libs["libpkg_static.a"]}) == []
