"""The lief reader on real compiled libraries and on the real wheels' ELF, Mach-O and PE files."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.demangle import base_name, demangle
from shiplint.artifacts.headers import SNIFF_BYTES, sniff
from shiplint.artifacts.reading import read_binary
from shiplint.artifacts.records import (
    BinaryError,
    BinaryFormat,
    BinaryRecord,
    Binding,
    FileType,
    SymbolKind,
)
from shiplint.platforms import Platform

from tests.artifact_libs import built_libs
from tests.material import REPO, wheel

__all__ = ["built_libs"]


def _record(libs: dict[str, Path], name: str) -> BinaryRecord:
    record = read_binary(libs[name].read_bytes(), name)
    assert isinstance(record, BinaryRecord), record
    return record


def test_runtime_library_record(built_libs: dict[str, Path]) -> None:
    record = _record(built_libs, "libpkg.so")
    assert record.format is BinaryFormat.ELF
    assert record.file_type is FileType.SHARED_LIBRARY
    assert record.arches == ("x86_64",)
    assert record.soname == "libpkg.so"
    assert record.runpath == ("$ORIGIN",) and record.rpath == ()
    symbols = {s.name: s for s in record.defined}
    register = symbols["_ZN3pkg7runtime15register_kernelEi"]
    assert register.binding is Binding.GLOBAL and register.strong
    assert register.demangled == "pkg::runtime::register_kernel(int)"
    assert register.base == "pkg::runtime::register_kernel"
    assert register.kind is SymbolKind.FUNCTION
    # An out-of-line inline function is a weak (vague) definition, not a copy.
    assert symbols["_ZN3pkg7runtime11weak_helperEv"].binding is Binding.WEAK
    # A template's static member and a function-local static are GNU_UNIQUE.
    assert symbols["_ZN3pkg7runtime8RegistryIiE5slotsE"].binding is Binding.UNIQUE
    assert not symbols["_ZN3pkg7runtime8RegistryIiE5slotsE"].strong
    assert symbols["pkg_runtime_version"].demangled is None
    assert symbols["pkg_runtime_version"].base == "pkg_runtime_version"


def test_component_needs_the_runtime(built_libs: dict[str, Path]) -> None:
    record = _record(built_libs, "libpkg_comp.so")
    assert record.needed[0] == "libpkg.so"
    assert "_ZN3pkg7runtime15register_kernelEi" in record.undefined
    assert "_ZN3pkg7runtime15register_kernelEi" not in record.strong_symbols()


def test_fat_component_defines_the_runtime_symbol(built_libs: dict[str, Path]) -> None:
    record = _record(built_libs, "libpkg_fat.so")
    assert "libpkg.so" not in record.needed
    assert "_ZN3pkg7runtime15register_kernelEi" in record.strong_symbols()


def test_overload_shares_the_base_name_not_the_symbol(built_libs: dict[str, Path]) -> None:
    runtime = _record(built_libs, "libpkg.so").strong_symbols()
    overload = _record(built_libs, "libpkg_overload.so").strong_symbols()
    (name,) = (n for n in overload if "register_kernel" in n)
    assert name not in runtime
    assert overload[name].base == runtime["_ZN3pkg7runtime15register_kernelEi"].base


def test_rpath_and_runpath_are_kept_apart(built_libs: dict[str, Path]) -> None:
    record = _record(built_libs, "libpkg_rpath.so")
    assert (record.rpath, record.runpath) == (("$ORIGIN",), ())
    assert _record(built_libs, "libpkg_abs.so").runpath == ("/home/build/pkg/build/lib",)


def test_wrong_soname_and_missing_dependency(built_libs: dict[str, Path]) -> None:
    assert _record(built_libs, "libpkg_badname.so").soname == "libwrong.so"
    assert _record(built_libs, "libpkg_missing.so").needed == ("libnothere.so",)


@pytest.mark.parametrize(
    ("name", "file_type", "members"),
    [
        ("libpkg_static.a", FileType.STATIC_ARCHIVE, 1),
        ("comp.o", FileType.OBJECT, 0),
        ("pkg_tool", FileType.EXECUTABLE, 0),
    ],
)
def test_file_types(
    built_libs: dict[str, Path], name: str, file_type: FileType, members: int
) -> None:
    record = _record(built_libs, name)
    assert record.file_type is file_type
    assert record.archive_members == members
    assert record.arches == ("x86_64",)


def test_truncated_library_is_an_error_not_a_partial_record(built_libs: dict[str, Path]) -> None:
    data = built_libs["libpkg_comp.so"].read_bytes()
    for cut in (10, 63, 200, len(data) // 2, len(data) - 1):
        result = read_binary(data[:cut], "lib/libpkg_comp.so")
        assert isinstance(result, BinaryError), cut
        assert "truncated" in result.reason


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"INPUT(-lpkg)\n", "not a binary"),
        (b"MZ" + bytes(200), "PE"),
        (b"\xcf\xfa\xed\xfe" + bytes(12), "Mach-O"),
        (b"!<arch>\nbroken-header-here-not-sixty-bytes", "static archive"),
    ],
)
def test_non_binaries_and_corrupt_headers(data: bytes, reason: str) -> None:
    result = read_binary(data, "lib/libx.so")
    assert isinstance(result, BinaryError)
    assert reason in result.reason


def test_corrupted_real_library_never_raises() -> None:
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        data = bytearray(tree.read("executorch/lib/libexecutorch_etdump.so"))
    # Scribble over the section and program headers: a parse that must come back as a value.
    for offset in range(64, 64 + 56 * 4, 7):
        data[offset] ^= 0xA5
    assert isinstance(read_binary(bytes(data), "x.so"), BinaryRecord | BinaryError)


def test_macho_install_name_is_not_a_dependency() -> None:
    with open_artifact(wheel("1.5.1", "macosx_14_0_arm64")) as tree:
        record = read_binary(tree.read("executorch/lib/libexecutorch_threadpool.dylib"), "t")
    assert isinstance(record, BinaryRecord)
    assert record.format is BinaryFormat.MACHO and record.arches == ("aarch64",)
    assert record.soname == "@rpath/libexecutorch_threadpool.dylib"
    assert record.soname not in record.needed
    assert "@rpath/libexecutorch.dylib" in record.needed
    assert record.runpath[0] == "@loader_path"
    # Mach-O's leading underscore is dropped so names compare with ELF's.
    assert all(not s.name.startswith("__Z") for s in record.defined)
    assert any(s.demangled and s.demangled.startswith("executorch::") for s in record.defined)


def test_macho_bundle_and_weak_definitions() -> None:
    with open_artifact(wheel("1.5.1", "macosx_14_0_arm64")) as tree:
        bundle = read_binary(
            tree.read(
                "executorch/backends/cortex_m/library/_cmsis_nn/cmsis_nn.cpython-311-darwin.so"
            ),
            "b",
        )
        optimized = read_binary(
            tree.read("executorch/lib/libexecutorch_kernels_optimized.dylib"), "o"
        )
    assert isinstance(bundle, BinaryRecord) and bundle.file_type is FileType.BUNDLE
    assert isinstance(optimized, BinaryRecord)
    bindings = {s.binding for s in optimized.defined}
    assert bindings == {Binding.GLOBAL, Binding.WEAK}


def test_pe_dll_imports_and_exports() -> None:
    with open_artifact(wheel("1.5.1", "win_amd64")) as tree:
        record = read_binary(
            tree.read("executorch/kernels/quantized/quantized_ops_aot_lib.dll"), "q"
        )
    assert isinstance(record, BinaryRecord)
    assert record.format is BinaryFormat.PE and record.arches == ("x86_64",)
    assert record.file_type is FileType.SHARED_LIBRARY
    assert record.soname == "quantized_ops_aot_lib.dll"
    assert "torch_cpu.dll" in record.needed
    assert len(record.defined) == 77


def test_aarch64_elf() -> None:
    with open_artifact(wheel("1.5.1", "manylinux_2_28_aarch64")) as tree:
        record = read_binary(tree.read("executorch/lib/libexecutorch.so"), "r")
    assert isinstance(record, BinaryRecord) and record.arches == ("aarch64",)


@pytest.mark.parametrize(
    ("mangled", "base"),
    [
        ("_ZN3pkg7runtime15register_kernelEi", "pkg::runtime::register_kernel"),
        ("_ZNK3foo3barEv", "foo::bar"),
        ("_Z1fIiEvT_", "f<int>"),
        ("_ZN3fooclEv", "foo::operator()"),
        ("_ZN2nsltERKiS1_", "ns::operator<"),
        ("_ZTV3Foo", "vtable for Foo"),
        ("_ZThn8_N3Foo3barEv", "non-virtual thunk to Foo::bar"),
        ("_ZnwmRKSt9nothrow_t", "operator new"),
    ],
)
def test_base_names(mangled: str, base: str) -> None:
    demangled = demangle(mangled)
    assert demangled is not None
    assert base_name(demangled) == base


def test_a_run_without_artifacts_never_imports_lief() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from shiplint.pipeline import collect_models\n"
        "from shiplint.request import QUIET, RunRequest\n"
        "from tests.builders import manifest\n"
        "request = RunRequest(root=Path('.'), check_sources=True, artifacts=(), cmake=())\n"
        "from shiplint.registry import RULES\n"
        "collect_models(request, manifest(), RULES, QUIET)\n"
        "import shiplint.registry, shiplint.checks.artifacts, shiplint.artifacts.archive\n"
        "assert 'lief' not in sys.modules, 'lief imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


FUZZ = """
import random, sys, zipfile
from shiplint.artifacts.reading import read_binary
from shiplint.artifacts.records import BinaryError, BinaryRecord
wheel, member = sys.argv[1], sys.argv[2]
data = zipfile.ZipFile(wheel).read(member)
rnd = random.Random(20261130)
for i in range(40):
    mutated = bytearray(data)
    if i % 2:
        mutated = mutated[: rnd.randrange(64, len(mutated))]
    for _ in range(rnd.randrange(1, 64)):
        mutated[rnd.randrange(min(len(mutated), 16384))] = rnd.randrange(256)
    assert isinstance(read_binary(bytes(mutated), member), BinaryRecord | BinaryError)
"""


@pytest.mark.parametrize(
    ("platform", "member"),
    [
        ("manylinux_2_28_x86_64", "executorch/lib/libexecutorch_etdump.so"),
        ("macosx_14_0_arm64", "executorch/lib/libexecutorch_etdump.dylib"),
        ("win_amd64", "executorch/kernels/quantized/quantized_ops_aot_lib.dll"),
    ],
)
def test_mutated_real_binaries_never_crash_the_process(platform: str, member: str) -> None:
    """Corrupted headers and truncations, in a child process so a crash inside lief
    (not only an exception) would fail the test instead of the test run."""
    result = subprocess.run(
        [sys.executable, "-c", FUZZ, str(wheel("1.5.1", platform)), member],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""


def test_lief_is_imported_by_the_lief_reader_only() -> None:
    package = REPO / "linter" / "shiplint"
    importers = set()
    for source in package.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "lief" or n.startswith("lief.") for n in names):
                importers.add(source.relative_to(package).as_posix())
    assert importers == {"artifacts/reading/lief_reader.py"}


@pytest.mark.parametrize(
    "platform",
    ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_14_0_arm64", "win_amd64"],
)
def test_header_sniff_agrees_with_lief_on_every_shared_object(platform: str) -> None:
    """The platform an artifact without a wheel tag gets is what lief would say, per file."""
    from shiplint.artifacts.placement import is_shared_object_name

    with open_artifact(wheel("1.5.1", platform)) as tree:
        members = [m for m in tree.names() if is_shared_object_name(m)]
        assert members
        for member in members:
            record = read_binary(tree.read(member), member)
            assert isinstance(record, BinaryRecord), record
            sniffed = sniff(tree.head(member, SNIFF_BYTES))
            assert sniffed == Platform(record.format.os or "", record.arch), member


def test_header_sniff_of_what_is_no_binary() -> None:
    assert sniff(b"") is None
    assert sniff(b"!<arch>\n") is None
    assert sniff(b"\x7fELF") is None  # cut short before e_machine
    assert sniff(b"MZ" + b"\0" * 100) is None  # no PE header where e_lfanew points
