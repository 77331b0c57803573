"""SL320 on Mach-O and PE: a reference bound to a shipped library must be exported by it.

PE: real DLLs assembled and linked in a session fixture (`tests.pe_libs`), a DLL made to
miss an export by shipping another real DLL under the name the import names. Mach-O:
no Mach-O linker runs here, so the defects are planted in copies of the real 1.5.1
macOS wheel's dylibs (`tests.macho_doctor`: one symbol renamed or rebound, one load
command turned into a re-export), and the whole real macOS and Windows wheels stay quiet.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.records import BinaryFormat
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Externals, Manifest
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.builders import library, manifest
from tests.macho_doctor import ordinal_of, rebind, reexport, rename_symbol
from tests.material import EXAMPLE_MANIFEST, wheel
from tests.pe_libs import pe_dlls

__all__ = ["pe_dlls"]

WINDOWS_TAG = "pkg-1.0-cp311-cp311-win_amd64.whl"
MAC_TAG = "executorch-1.5.1-cp311-cp311-macosx_14_0_arm64.whl"
LIB = "executorch/lib/"
# A runtime function the etdump and quantized-kernel dylibs import from libexecutorch.dylib.
ABORT = "__ZN10executorch7runtime13runtime_abortEv"
ABORT_GONE = ABORT.replace("abort", "abxrt")


def _lint(path: Path, mf: Manifest) -> list[Diagnostic]:
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL320",)))


# ---------------------------------------------------------------- PE


def _windows(tmp_path: Path, members: dict[str, Path]) -> list[Diagnostic]:
    mf = manifest(
        libraries=(library("user", platforms=("windows",)),),
        externals=Externals(policies=("platform-tag",)),
    )
    return _lint(pack_wheel(tmp_path / WINDOWS_TAG, members), mf)


@pytest.mark.parametrize("user", ["user.dll", "user_ordinal.dll"])
def test_pe_quiet_when_the_shipped_dll_exports_every_import(
    tmp_path: Path, pe_dlls: dict[str, Path], user: str
) -> None:
    members = {"pkg/lib/user.dll": pe_dlls[user], "pkg/lib/core.dll": pe_dlls["core.dll"]}
    assert _windows(tmp_path, members) == []


@pytest.mark.parametrize(("user", "shown"), [("user.dll", "core_mul"), ("user_ordinal.dll", "#7")])
def test_pe_fires_when_the_shipped_dll_lacks_an_import(
    tmp_path: Path, pe_dlls: dict[str, Path], user: str, shown: str
) -> None:
    # core_v1.dll is named core.dll but exports core_add (ordinal 1) alone.
    members = {"pkg/lib/user.dll": pe_dlls[user], "pkg/lib/CORE.DLL": pe_dlls["core_v1.dll"]}
    (diag,) = _windows(tmp_path, members)
    assert diag.location.member == "pkg/lib/user.dll"
    assert diag.subject.library == "user"
    assert f"1 undefined symbol unresolved when it loads: {shown};" in diag.message
    assert "bound to pkg/lib/CORE.DLL, which does not export them" in diag.message


def test_pe_import_from_a_dll_not_shipped_is_not_read(
    tmp_path: Path, pe_dlls: dict[str, Path]
) -> None:
    # core.dll is neither shipped nor allowed: SL308 reports the DLL, not each name.
    assert _windows(tmp_path, {"pkg/lib/user.dll": pe_dlls["user.dll"]}) == []


# ---------------------------------------------------------------- Mach-O


def _mac_members(*names: str) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel("1.5.1", "macosx_14_0_arm64")) as real:
        return {LIB + n: real.read(LIB + n) for n in names}


def _mac(tmp_path: Path, members: dict[str, bytes]) -> list[Diagnostic]:
    return _lint(pack_wheel(tmp_path / MAC_TAG, members), load_manifest(EXAMPLE_MANIFEST))


def test_macho_quiet_on_the_real_dylibs(tmp_path: Path) -> None:
    members = _mac_members("libexecutorch.dylib", "libexecutorch_etdump.dylib")
    assert _mac(tmp_path, members) == []


def test_macho_fires_when_the_bound_dylib_lacks_the_export(tmp_path: Path) -> None:
    members = _mac_members("libexecutorch.dylib", "libexecutorch_etdump.dylib")
    core = LIB + "libexecutorch.dylib"
    members[core] = rename_symbol(members[core], ABORT, ABORT_GONE)
    (diag,) = _mac(tmp_path, members)
    assert diag.location.member == LIB + "libexecutorch_etdump.dylib"
    assert diag.subject.library == "executorch_etdump"
    assert "executorch::runtime::runtime_abort()" in diag.message
    assert f"bound to {core}, which does not export them" in diag.message


def test_macho_reference_bound_to_another_dylib_is_not_found_in_the_first(
    tmp_path: Path,
) -> None:
    # Two-level namespace: bound to the threadpool, the name is not looked up in
    # libexecutorch.dylib, which defines it and is loaded too.
    members = _mac_members(
        "libexecutorch.dylib",
        "libexecutorch_threadpool.dylib",
        "libexecutorch_kernels_quantized.dylib",
    )
    quantized = LIB + "libexecutorch_kernels_quantized.dylib"
    assert ordinal_of(members[quantized], ABORT) == 2
    members[quantized] = rebind(members[quantized], ABORT, 1)
    (diag,) = _mac(tmp_path, members)
    assert diag.location.member == quantized
    assert f"bound to {LIB}libexecutorch_threadpool.dylib" in diag.message
    # A dylib that re-exports libexecutorch.dylib exports its names.
    pool = LIB + "libexecutorch_threadpool.dylib"
    members[pool] = reexport(members[pool], "@rpath/libexecutorch.dylib")
    assert _mac(tmp_path, members) == []


def test_macho_dynamic_lookup_is_looked_up_in_everything_loaded(tmp_path: Path) -> None:
    members = _mac_members("libexecutorch.dylib", "libexecutorch_etdump.dylib")
    etdump, core = LIB + "libexecutorch_etdump.dylib", LIB + "libexecutorch.dylib"
    members[etdump] = rebind(members[etdump], ABORT, 0xFE)
    assert _mac(tmp_path, members) == []
    members[core] = rename_symbol(members[core], ABORT, ABORT_GONE)
    (diag,) = _mac(tmp_path, members)
    assert "runtime_abort()" in diag.message
    assert "nothing in the artifact defines them" in diag.message


# ---------------------------------------------------------------- the real wheels


@pytest.mark.parametrize("platform", ["macosx_14_0_arm64", "win_amd64"])
def test_the_real_wheel_binds_every_reference(platform: str) -> None:
    mf = load_manifest(EXAMPLE_MANIFEST)
    with open_artifact(wheel("1.5.1", platform)) as tree:
        model = read_inventory(tree, mf)
    # The check has something to check: references bound to libraries of the wheel.
    bound = [
        i
        for b in model.binaries
        if b.format is not BinaryFormat.ELF
        for i in b.imports
        if i.library is not None
    ]
    assert bound
    assert lint(RULES, mf, [model], Selection(select=("SL320",))) == []
