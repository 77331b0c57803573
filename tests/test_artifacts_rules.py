"""Each SL3xx rule fires on a real compiled library packed into a wheel, and stays quiet on a good one.

The libraries come from `tests.artifact_libs` (gcc/g++ in a session fixture);
the manifests from `tests.builders`. Mach-O cases use hand-built records (no
macOS linker here); the real macOS wheel is covered by the golden reports.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.records import BinaryFormat, BinaryRecord, FileType
from shiplint.diagnostics import Diagnostic, Severity
from shiplint.engine import Selection, lint
from shiplint.manifest.model import (
    Conflict,
    Externals,
    Library,
    LibraryKind,
    Manifest,
    Ownership,
    Placement,
)
from shiplint.platforms import Platform, PlatformSelector
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import inventory, library, library_file, manifest
from tests.load_scope_libs import dlopen_now

__all__ = ["built_libs"]

TAG = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
MACOS = Platform("macos", "aarch64")
RUNTIME_SENTINEL = "pkg::runtime::register_kernel"


def _runtime(**extra: Any) -> Library:
    return library(
        "pkg",
        LibraryKind.RUNTIME,
        components=("runtime",),
        **{"owns": Ownership(components=("runtime",), symbols=(RUNTIME_SENTINEL,)), **extra},
    )


def _component(name: str, **extra: Any) -> Library:
    return library(name, components=(name.removeprefix("pkg_"),), **extra)


def _manifest(*libraries: Library, **extra: Any) -> Manifest:
    return manifest(libraries=libraries, **extra)


def _check(
    tmp_path: Path,
    built: dict[str, Path],
    files: Mapping[str, str | bytes],
    mf: Manifest,
    name: str = TAG,
) -> list[Diagnostic]:
    """Pack `files` (member -> built library name, or raw bytes) into a wheel and lint it."""
    members = {m: (built[src] if isinstance(src, str) else src) for m, src in files.items()}
    path = pack_wheel(tmp_path / name, members)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL3",)))


def _codes(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


GOOD = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_comp.so"}


def test_a_good_wheel_is_clean(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    assert _check(tmp_path, built_libs, GOOD, mf) == []


# ---------------------------------------------------------------- SL301


def test_sl301_missing_required_component(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.a": "libpkg_static.a"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL301")
    assert diag.subject.library == "pkg_comp" and diag.subject.component == "comp"
    assert diag.subject.artifact == TAG
    assert diag.location.path == str(tmp_path / TAG)
    assert diag.location.member == "pkg/lib/libpkg_comp.so"
    assert "found instead: libpkg_comp.a" in diag.message


def test_sl301_quiet_when_optional_or_other_platform(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(
        _runtime(),
        _component("pkg_comp", required=False),
        _component("pkg_mac", platforms=("macos",)),
    )
    assert (
        _codes(_check(tmp_path, built_libs, {"pkg/lib/libpkg.so": "libpkg.so"}, mf), "SL301") == []
    )


# ---------------------------------------------------------------- SL302


def test_sl302_undeclared_and_misplaced(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp", required=False))
    files = {
        "pkg/lib/libpkg.so": "libpkg.so",
        "pkg/lib/libpkg_fat.so": "libpkg_fat.so",
        "pkg/other/libpkg_comp.so": "libpkg_comp.so",
    }
    found = {d.subject.library: d for d in _codes(_check(tmp_path, built_libs, files, mf), "SL302")}
    assert set(found) == {"libpkg_fat.so", "libpkg_comp.so"}
    assert "does not declare" in found["libpkg_fat.so"].message
    assert "places pkg_comp in pkg/lib/" in found["libpkg_comp.so"].message


def test_sl302_sl304_byte_identical_versioned_copies_are_one_library(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    """A wheel holds no symlinks: libpkg.so.1.2 beside libpkg.so is the same file."""
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {**GOOD, "pkg/lib/libpkg.so.1.2": "libpkg.so", "pkg/lib/libpkg_comp.so.1": "libpkg.so"}
    diagnostics = _check(tmp_path, built_libs, files, mf)
    # The identical copy is silent; the same-named file with other bytes is not.
    (undeclared,) = _codes(diagnostics, "SL302")
    assert undeclared.location.member == "pkg/lib/libpkg_comp.so.1"
    assert _codes(diagnostics, "SL304") == []


def test_sl302_second_match_in_the_placed_directory(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    """Not "the manifest places X in dir/" about a file that is in dir/."""
    placement = Placement(PlatformSelector.parse("linux"), "pkg/lib", "libpkg_comp.so*", True)
    mf = _manifest(_runtime(), _component("pkg_comp", placements=(placement,)))
    files = {**GOOD, "pkg/lib/libpkg_comp.so.2": "libpkg_fat.so"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL302")
    assert "also matches pkg_comp's file pattern libpkg_comp.so*" in diag.message
    assert "pkg/lib/libpkg_comp.so" in diag.message and "places" not in diag.message


# ---------------------------------------------------------------- SL303


def test_sl303_static_archive_in_place_of_a_component(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_static.a"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL303")
    assert diag.subject.library == "pkg_comp"
    assert "static archive holding 1 object file" in diag.message


def test_sl303_executable_plugin(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), library("pkg_plugin", LibraryKind.PLUGIN))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_plugin.so": "pkg_tool"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL303")
    assert "is a executable" not in diag.message and "executable" in diag.message


# ---------------------------------------------------------------- SL304


def test_sl304_wrong_soname(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_badname.so"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL304")
    assert diag.subject.library == "pkg_comp"
    assert "'libwrong.so' differs from the file name 'libpkg_comp.so'" in diag.message


def _dylib(
    name: str, soname: str | None, needed: tuple[str, ...] = (), rpaths: tuple[str, ...] = ()
) -> BinaryRecord:
    return BinaryRecord(
        name=name,
        format=BinaryFormat.MACHO,
        arches=("aarch64",),
        file_type=FileType.SHARED_LIBRARY,
        soname=soname,
        needed=needed,
        runpath=rpaths,
        rpath=(),
        defined=(),
        undefined=(),
    )


@pytest.mark.parametrize(
    ("install_name", "fires"),
    [
        ("@rpath/libpkg.dylib", None),
        ("/Users/runner/work/pkg/build/libpkg.dylib", "is absolute"),
        ("@rpath/libpkg.1.dylib", "differs from the file name"),
        (None, "install name is missing"),
    ],
)
def test_sl304_macos_install_names(install_name: str | None, fires: str | None) -> None:
    mf = _manifest(library("pkg", LibraryKind.RUNTIME, platforms=("macos",)))
    record = _dylib("pkg/lib/libpkg.dylib", install_name, rpaths=("@loader_path",))
    model = inventory(
        binaries=(record,),
        platform=MACOS,
        libraries=(library_file(library="pkg", member=record.name),),
    )
    found = _codes(lint(RULES, mf, [model], Selection(("SL3",))), "SL304")
    if fires is None:
        assert found == []
    else:
        (diag,) = found
        assert fires in diag.message and diag.subject.library == "pkg"


# ---------------------------------------------------------------- SL305 / SL306 / SL307 / SL318


def test_component_with_the_runtime_compiled_in(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_fat.so"}
    diagnostics = _check(tmp_path, built_libs, files, mf)
    (no_needed,) = _codes(diagnostics, "SL305")
    assert no_needed.subject.library == "pkg_comp"
    assert "no NEEDED entry for libpkg.so (pkg)" in no_needed.message
    (copy,) = _codes(diagnostics, "SL306")
    assert copy.subject.symbol == RUNTIME_SENTINEL and copy.subject.library == "pkg_comp"
    assert "_ZN3pkg7runtime15register_kernelEi" in copy.message
    (duplicate,) = _codes(diagnostics, "SL307")
    # The sentinel is SL306's; the other strong copies are SL307's. Weak and unique ones are neither.
    assert "both strongly define 3 symbols" in duplicate.message
    assert "register_kernel" not in duplicate.message
    assert "weak_helper" not in duplicate.message and "Registry" not in duplicate.message
    assert _codes(diagnostics, "SL318") == []


def test_overload_with_the_same_base_name_is_not_a_copy(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"), _component("pkg_overload"))
    files = {**GOOD, "pkg/lib/libpkg_overload.so": "libpkg_overload.so"}
    diagnostics = _check(tmp_path, built_libs, files, mf)
    assert [d.code for d in diagnostics] == []


def test_sl307_quiet_for_libraries_declared_in_conflict(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(
        _runtime(),
        library("pkg_fat", LibraryKind.PLUGIN),
        conflicts=(Conflict(("pkg", "pkg_fat"), "a second copy of the runtime"),),
    )
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_fat.so": "libpkg_fat.so"}
    assert _codes(_check(tmp_path, built_libs, files, mf), "SL307") == []


def test_sl307_quiet_for_plugins_nothing_loads_together(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    # Two plugins (dlopen'ed, each its own load group) that no binary loads together.
    mf = _manifest(library("pkg_fat", LibraryKind.PLUGIN), library("pkg", LibraryKind.PLUGIN))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_fat.so": "libpkg_fat.so"}
    assert _codes(_check(tmp_path, built_libs, files, mf), "SL307") == []


def test_sl307_vague_linkage_is_one_copy_by_design() -> None:
    """Guard variables, typeinfo, vtables, inline statics and std:: instantiations that a
    version script left global interpose to one copy; a real function twice is reported."""
    from shiplint.artifacts.records import Binding, SymbolKind, SymbolRecord

    vague = (
        "_ZGVZN2ov3Any4ImplIiE19get_type_info_staticEvE16type_info_static",
        "_ZTIN2ov12PartialShapeE",
        "_ZTSN2ov12PartialShapeE",
        "_ZTVN2ov4NodeE",
        "_ZZN2ov3Any4ImplIiE19get_type_info_staticEvE16type_info_static",
        "_ZNSt6vectorISsSaISsEE17_M_realloc_insertIJRKSsEEEvN9__gnu_cxx17__normal_iteratorIPSsS1_EEDpOT_",
    )
    real = "get_api_version"
    symbols = tuple(
        SymbolRecord(name, Binding.GLOBAL, "default", SymbolKind.FUNCTION)
        for name in (*vague, real)
    )

    def elf(name: str) -> BinaryRecord:
        return BinaryRecord(
            name=name, format=BinaryFormat.ELF, arches=("x86_64",),
            file_type=FileType.SHARED_LIBRARY, soname=name.rsplit("/", 1)[-1], needed=(),
            runpath=(), rpath=(), defined=symbols, undefined=(),
        )  # fmt: skip

    mf = _manifest(_component("pkg_a"), _component("pkg_b"))
    records = (elf("pkg/lib/libpkg_a.so"), elf("pkg/lib/libpkg_b.so"))
    model = inventory(
        binaries=records,
        platform=Platform("linux", "x86_64"),
        label=TAG,
        libraries=tuple(
            library_file(library=f"pkg_{x}", member=f"pkg/lib/libpkg_{x}.so") for x in "ab"
        ),
    )
    (duplicate,) = _codes(lint(RULES, mf, [model], Selection(("SL307",))), "SL307")
    assert "both strongly define 1 symbol: get_api_version" in duplicate.message


def test_sl318_sentinel_the_owner_does_not_define(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    owns = Ownership(components=("runtime",), symbols=(RUNTIME_SENTINEL, "pkg::runtime::gone"))
    mf = _manifest(_runtime(owns=owns), _component("pkg_comp"))
    (diag,) = _codes(_check(tmp_path, built_libs, GOOD, mf), "SL318")
    assert diag.subject.symbol == "pkg::runtime::gone" and diag.subject.library == "pkg"


# ---------------------------------------------------------------- SL308 .. SL311


def test_sl308_missing_dependency(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_missing"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_missing.so": "libpkg_missing.so"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL308")
    assert diag.subject.library == "pkg_missing"
    assert "needs libnothere.so" in diag.message and "[$ORIGIN]" in diag.message


def test_sl308_allowed_external_and_provider(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    from shiplint.manifest.model import ProvidedLibraries

    externals = Externals(
        system=("libc.so.6",), provided=(ProvidedLibraries("other", ("libnothere.so",)),)
    )
    mf = _manifest(_runtime(), _component("pkg_missing"), externals=externals)
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_missing.so": "libpkg_missing.so"}
    assert _codes(_check(tmp_path, built_libs, files, mf), "SL308") == []


def test_sl309_absolute_build_tree_runpath(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_abs.so"}
    diagnostics = _check(tmp_path, built_libs, files, mf)
    (diag,) = _codes(diagnostics, "SL309")
    assert "/home/build/pkg/build/lib (absolute, a build tree)" in diag.message
    # Without an $ORIGIN entry, libpkg.so is not found inside the package either.
    (unresolved,) = _codes(diagnostics, "SL308")
    assert "needs libpkg.so" in unresolved.message


def test_sl311_rpath_instead_of_runpath(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files = {"pkg/lib/libpkg.so": "libpkg.so", "pkg/lib/libpkg_comp.so": "libpkg_rpath.so"}
    diagnostics = _check(tmp_path, built_libs, files, mf)
    (diag,) = _codes(diagnostics, "SL311")
    assert diag.subject.library == "pkg_comp" and "DT_RPATH [$ORIGIN]" in diag.message
    # DT_RPATH still resolves the runtime: no SL308, and the real loader agrees (libpkg.so
    # sits beside it), so it is said, never counted as a defect.
    assert _codes(diagnostics, "SL308") == []
    assert dlopen_now(built_libs["libpkg_rpath.so"]).returncode == 0
    assert diag.severity is Severity.INFO


@pytest.mark.parametrize(
    ("rpaths", "codes"),
    [
        (("@loader_path",), set()),
        (("@loader_path", "@loader_path/../src/pkg/lib"), {"SL310"}),
        (("@loader_path/../../torch/lib", "@loader_path"), set()),
        (("@loader_path/../../../../..",), {"SL309", "SL308"}),
        (("/opt/homebrew/lib",), {"SL309", "SL308"}),
        (("@executable_path/../lib",), {"SL308"}),
    ],
)
def test_macos_rpaths(rpaths: tuple[str, ...], codes: set[str]) -> None:
    from shiplint.manifest.model import ProvidedLibraries

    mf = _manifest(
        library("pkg", LibraryKind.RUNTIME, platforms=("macos",)),
        _component("pkg_comp", platforms=("macos",)),
        externals=Externals(provided=(ProvidedLibraries("torch", ("libtorch*.dylib",)),)),
    )
    runtime = _dylib("pkg/lib/libpkg.dylib", "@rpath/libpkg.dylib", ("/usr/lib/libSystem.B.dylib",))
    comp = _dylib(
        "pkg/lib/libpkg_comp.dylib",
        "@rpath/libpkg_comp.dylib",
        ("@rpath/libpkg.dylib", "/usr/lib/libc++.1.dylib"),
        rpaths,
    )
    model = inventory(
        binaries=(runtime, comp),
        platform=MACOS,
        libraries=(
            library_file(library="pkg", member=runtime.name),
            library_file(library="pkg_comp", member=comp.name),
        ),
        externals=mf.externals,
    )
    found = lint(RULES, mf, [model], Selection(("SL3",)))
    assert {d.code for d in found} == codes
    assert all(d.subject.library == "pkg_comp" for d in found)


# ---------------------------------------------------------------- SL312


def test_sl312_architecture_against_the_wheel_tag(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(_runtime(), _component("pkg_comp"))
    name = "pkg-1.0-cp311-cp311-manylinux_2_28_aarch64.whl"
    found = _codes(_check(tmp_path, built_libs, GOOD, mf, name=name), "SL312")
    assert {d.subject.library for d in found} == {"pkg", "pkg_comp"}
    assert (
        "built as ELF for x86_64, but the wheel is for" in found[0].message
        and "linux-aarch64" in found[0].message
    )
    assert _codes(_check(tmp_path, built_libs, GOOD, mf), "SL312") == []


# ---------------------------------------------------------------- SL313 / SL314


def test_sl313_forbidden_dependency_through_the_chain(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    ext = library("pkg_ext", LibraryKind.PYTHON_EXTENSION, must_not_depend_on=("pkg",))
    mf = _manifest(_runtime(), _component("pkg_comp"), ext)
    files = {**GOOD, "pkg/lib/libpkg_ext.so": "libpkg_comp.so"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL313")
    assert diag.subject.library == "pkg_ext"
    assert "libpkg_ext.so -> libpkg.so" in diag.message
    quiet = _manifest(_runtime(), _component("pkg_comp"), replace(ext, must_not_depend_on=("x",)))
    assert _codes(_check(tmp_path, built_libs, files, quiet), "SL313") == []


def test_sl314_conflicting_libraries_reported_where_they_meet(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    mf = _manifest(
        _runtime(),
        _component("pkg_comp"),
        library("pkg_ext", LibraryKind.PYTHON_EXTENSION),
        conflicts=(Conflict(("pkg", "pkg_comp"), "both register the same kernels"),),
    )
    # pkg_ext loads pkg_comp, which loads pkg: reported once, at pkg_comp.
    files = {**GOOD, "pkg/lib/libpkg_ext.so": "libpkg_overload.so"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL314")
    assert diag.subject.library == "pkg_comp"
    assert "libpkg_comp.so -> libpkg.so" in diag.message
    assert "both register the same kernels" in diag.message


# ---------------------------------------------------------------- SL315 / SL316 / SL317


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"INPUT(-lpkg_real)\n", "not a binary"),
        (b"", "empty file"),
        ("truncated", "truncated"),
    ],
)
def test_sl315_unreadable_component(
    tmp_path: Path, built_libs: dict[str, Path], content: bytes | str, reason: str
) -> None:
    if content == "truncated":
        content = built_libs["libpkg_comp.so"].read_bytes()[:3000]
    assert isinstance(content, bytes)
    mf = _manifest(_runtime(), _component("pkg_comp"))
    files: dict[str, str | bytes] = {
        "pkg/lib/libpkg.so": "libpkg.so",
        "pkg/lib/libpkg_comp.so": content,
    }
    diagnostics = _check(tmp_path, built_libs, files, mf)
    (diag,) = _codes(diagnostics, "SL315")
    assert diag.subject.library == "pkg_comp" and reason in diag.message
    # Nothing else is said of a file nobody could read.
    assert [d.code for d in diagnostics] == ["SL315"]


def test_sl316_unsafe_member(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime())
    files: dict[str, str | bytes] = {"pkg/lib/libpkg.so": "libpkg.so", "../../evil.so": b"x"}
    (diag,) = _codes(_check(tmp_path, built_libs, files, mf), "SL316")
    assert diag.subject.artifact == TAG and "../../evil.so" in diag.message


def test_sl317_platform_unknown_and_derived(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    mf = _manifest(_runtime())
    configs = tmp_path / "configs.tar.gz"
    with tarfile.open(configs, "w:gz") as archive:
        data = b"set(x 1)\n"
        info = tarfile.TarInfo("share/cmake/pkg-config.cmake")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    with open_artifact(configs) as tree:
        model = read_inventory(tree, mf)
    (diag,) = lint(RULES, mf, [model], Selection(("SL3",)))
    assert diag.code == "SL317" and diag.subject.artifact == "configs.tar.gz"
    # An install tree names its platform through its binaries.
    prefix = tmp_path / "prefix" / "pkg" / "lib"
    prefix.mkdir(parents=True)
    (prefix / "libpkg.so").write_bytes(built_libs["libpkg.so"].read_bytes())
    with open_artifact(tmp_path / "prefix") as tree:
        model = read_inventory(tree, mf)
    assert (str(model.platform), model.platform_source) == ("linux-x86_64", "binaries")
    assert lint(RULES, mf, [model], Selection(("SL3",))) == []


# ---------------------------------------------------------------- SL319


def _dll(name: str) -> BinaryRecord:
    return BinaryRecord(
        name=name,
        format=BinaryFormat.PE,
        arches=("x86_64",),
        file_type=FileType.SHARED_LIBRARY,
        soname=name.rsplit("/", 1)[-1],
        needed=("KERNEL32.dll",),
        runpath=(),
        rpath=(),
        defined=(),
        undefined=(),
    )


@pytest.mark.parametrize(
    ("extra_members", "kind", "fires"),
    [
        ((), LibraryKind.COMPONENT, True),
        (("pkg/lib/PKG_COMP.LIB",), LibraryKind.COMPONENT, False),
        ((), LibraryKind.PLUGIN, False),
    ],
)
def test_sl319_windows_dll_without_import_library(
    extra_members: tuple[str, ...], kind: LibraryKind, fires: bool
) -> None:
    from shiplint.platforms import Platform

    mf = _manifest(
        library("pkg_comp", kind, platforms=("windows",), directory="pkg/bin"),
        externals=Externals(system=("KERNEL32.dll",)),
    )
    dll = _dll("pkg/bin/pkg_comp.dll")
    model = inventory(
        binaries=(dll,),
        platform=Platform("windows", "x86_64"),
        members=(dll.name, *extra_members),
        libraries=(library_file(library="pkg_comp", member=dll.name),),
        externals=mf.externals,
        path="dist/pkg-1.0-cp311-cp311-win_amd64.whl",
    )
    found = lint(RULES, mf, [model], Selection(("SL3",)))
    assert [d.code for d in found] == (["SL319"] if fires else [])
    if fires:
        assert found[0].subject.library == "pkg_comp" and "pkg_comp.lib" in found[0].message


# ---------------------------------------------------------------- the link graph


def test_link_graph_closure_is_breadth_first_with_chains() -> None:
    k = _dylib("lib/libk.dylib", "@rpath/libk.dylib", ("@rpath/liba.dylib", "@rpath/libc.dylib"))
    a = _dylib("lib/liba.dylib", "@rpath/liba.dylib", ("@rpath/libb.dylib",))
    b = _dylib("lib/libb.dylib", "@rpath/libb.dylib")
    c = _dylib("lib/libc.dylib", "@rpath/libc.dylib", ("@rpath/libb.dylib",))
    k, a, b, c = (replace(r, runpath=("@loader_path",)) for r in (k, a, b, c))
    links = inventory(binaries=(k, a, b, c), platform=MACOS).links
    assert list(links.closure(k.name)) == [k.name, a.name, c.name, b.name]
    assert links.closure(k.name)[b.name] == (k.name, a.name, b.name)
    assert links.of(k.name).loads == (a.name, c.name, b.name)
    assert links.of(k.name).dependencies == (a.name, c.name)


def test_link_graph_cycles_terminate() -> None:
    a = _dylib("lib/liba.dylib", None, ("@loader_path/libb.dylib",))
    b = _dylib("lib/libb.dylib", None, ("@loader_path/liba.dylib",))
    links = inventory(binaries=(a, b), platform=MACOS).links
    assert links.of(a.name).loads == (b.name,)
    assert links.of(b.name).loads == (a.name,)
