"""SL320: undefined dynamic symbols resolve within the NEEDED closure, on real compiled libraries.

The libraries come from `tests.artifact_libs` (gcc/g++ in a session fixture). A
library is made to miss its symbols by shipping another real library under the file
name its NEEDED entry resolves to.
"""

from __future__ import annotations

from pathlib import Path

from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Externals, LibraryKind, Manifest, ProvidedLibraries
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest

__all__ = ["built_libs"]

TAG = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
SYSTEM = Externals(policies=("platform-tag",))


def _manifest(externals: Externals = SYSTEM) -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME), library("pkg_comp")),
        externals=externals,
    )


def _sl320(
    tmp_path: Path, built: dict[str, Path], files: dict[str, str], mf: Manifest | None = None
) -> list[Diagnostic]:
    path = pack_wheel(tmp_path / TAG, {m: built[src] for m, src in files.items()})
    mf = mf or _manifest()
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL320",)))


def test_quiet_when_the_closure_defines_everything(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_comp.so"}
    assert _sl320(tmp_path, built_libs, files) == []


def test_fires_naming_the_library_that_defines_them(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    # libpkg.so is another library (no register_kernel(int)); libpkg_fat.so defines it
    # but nothing NEEDs it.
    files = {
        "pkg/lib/libpkg.so": "libpkg_overload.so",
        "pkg/lib/libpkg_comp.so": "libpkg_comp.so",
        "pkg/lib/libpkg_fat.so": "libpkg_fat.so",
    }
    (diag,) = _sl320(tmp_path, built_libs, files)
    assert diag.location.member == "pkg/lib/libpkg_comp.so"
    assert diag.subject.library == "pkg_comp"
    assert "1 undefined symbol unresolved" in diag.message
    assert "pkg::runtime::register_kernel(int)" in diag.message
    assert "expected from pkg/lib/libpkg_fat.so" in diag.message


def test_fires_when_nothing_defines_them(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    files = {"pkg/lib/libpkg.so": "libpkg_overload.so", "pkg/lib/libpkg_comp.so": "libpkg_comp.so"}
    (diag,) = _sl320(tmp_path, built_libs, files)
    assert "nothing in the artifact defines them" in diag.message


def test_an_unversioned_provided_library_may_define_anything(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    # libpkg.so comes from another wheel: it cannot be read, so its names are accepted.
    provided = Externals(
        policies=("platform-tag",), provided=(ProvidedLibraries("other", ("libpkg.so",)),)
    )
    files = {"pkg/lib/libpkg_comp.so": "libpkg_comp.so"}
    assert _sl320(tmp_path, built_libs, files, _manifest(provided)) == []


def test_a_versioned_reference_needs_its_version(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    wrong = {"pkg/lib/libpkg_comp.so": "libpkg_versioned.so", "pkg/lib/libver.so": "libver_v1.so"}
    (diag,) = _sl320(tmp_path, built_libs, wrong)
    assert "ver_fn@VER_2" in diag.message and "expected from libver.so" in diag.message
    right = {"pkg/lib/libpkg_comp.so": "libpkg_versioned.so", "pkg/lib/libver.so": "libver_v2.so"}
    assert _sl320(tmp_path, built_libs, right) == []
