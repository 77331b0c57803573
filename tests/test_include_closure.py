"""SL343-SL348: the public headers' #include closure, read statically.

The conditions and directives are tables; the rules run on the probepkg install tree
(its config evaluated by a real CMake 4.4.5 for the include directories its target
publishes) with headers added for each class, and every error is checked against a
real compiler: a consumer translation unit including the header with the published
`-I` directories fails with "No such file or directory" for exactly the reported
spelling. The real wheels: ExecuTorch 1.5.1 (one Windows-only header shipped on
Linux) and 1.4.1 (its c10 headers outside the published directory, a generated
schema header and pthreadpool's header not shipped).
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.include_closure.conditions import Evaluator, Truth, platform_macros
from shiplint.include_closure.directives import includes
from shiplint.include_closure.model import IncludeClosure, IncludeClosureNotChecked
from shiplint.include_closure.system_headers import is_system_header
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Headers, Manifest
from shiplint.pipeline import collect_models
from shiplint.platforms import Platform
from shiplint.registry import RULES
from shiplint.request import QUIET, RunRequest

from tests.link_probe_support import CONFIG, compile_libraries, make_package, probepkg_manifest
from tests.material import REPO, cmake, wheel

CODES = ("SL343", "SL344", "SL345", "SL346", "SL347", "SL348")
LINUX = Platform("linux", "x86_64")

# ------------------------------------------------------------------ conditions


def _evaluator(platform: Platform, present: frozenset[str] = frozenset()) -> Evaluator:
    ones, undefined = platform_macros(platform)
    return Evaluator(ones, undefined, lambda spelling, angled: spelling in present, ones)


@pytest.mark.parametrize(
    ("platform", "condition", "truth"),
    [
        (LINUX, "defined(_WIN32)", Truth.FALSE),
        (LINUX, "!defined(_WIN32)", Truth.TRUE),
        (LINUX, "defined __linux__ && defined(__x86_64__)", Truth.TRUE),
        (LINUX, "defined(__aarch64__)", Truth.FALSE),
        (LINUX, "(_MSC_VER >= 1900)", Truth.FALSE),
        (LINUX, "defined(__APPLE__) || PKG_OPTION", Truth.UNKNOWN),
        (LINUX, "PKG_OPTION && 0", Truth.FALSE),
        (LINUX, "__cplusplus >= 201703L", Truth.UNKNOWN),
        (LINUX, "__GNUC_PREREQ(4, 8)", Truth.UNKNOWN),
        (LINUX, "__has_include(<present.h>)", Truth.TRUE),
        (LINUX, '__has_include("absent.h")', Truth.FALSE),
        (LINUX, "0x10 > 3", Truth.TRUE),
        (Platform("windows", "x86_64"), "defined(_WIN32) && defined(_WIN64)", Truth.TRUE),
        (Platform("windows", "x86_64"), "defined(__x86_64__)", Truth.UNKNOWN),
        (Platform("windows", "x86_64"), "defined(_MSC_VER)", Truth.UNKNOWN),
        (Platform("macos", "aarch64"), "defined(__APPLE__) && !defined(__linux__)", Truth.TRUE),
        (Platform("macos", "aarch64"), "defined(_M_ARM64)", Truth.FALSE),
        (LINUX, "defined(", Truth.UNKNOWN),
    ],
)
def test_conditions_are_judged_for_the_platform(
    platform: Platform, condition: str, truth: Truth
) -> None:
    assert _evaluator(platform, frozenset({"present.h"})).evaluate(condition) is truth


def test_directives_keep_what_the_platform_compiles() -> None:
    text = "\n".join(
        [
            "#ifndef PKG_H",  # 1: an include guard is true
            "#define PKG_H",
            "#include <a.h>",
            "#ifdef _WIN32",
            "#  include <windows_only.h>",  # 5: false on Linux
            "#elif defined(__APPLE__)",
            "#  include <mac_only.h>",  # 7: false on Linux
            "#else",
            '#  include "linux_only.h"',  # 9: true
            "#endif",
            "#ifdef PKG_USE_CUDA",
            "#include <cuda_runtime.h>",  # 12: unknown
            "#endif",
            "/* #include <commented.h>",
            "#include <still_commented.h> */",
            "#if defined(PKG_A) \\",
            "    || defined(_WIN32)",
            "#include <joined.h>",  # 18: unknown (PKG_A)
            "#endif",
            "#if __has_include(<optional.h>)",
            "#include <optional.h>",  # 21: false (absent)
            "#endif",
            "#endif",
        ]
    )
    found = [(i.line, i.spelling, i.angled, i.truth) for i in includes(text, _evaluator(LINUX))]
    assert found == [
        (3, "a.h", True, Truth.TRUE),
        (9, "linux_only.h", False, Truth.TRUE),
        (12, "cuda_runtime.h", True, Truth.UNKNOWN),
        (18, "joined.h", True, Truth.UNKNOWN),
    ]


def test_a_header_that_refuses_the_platform_asks_nothing_of_it() -> None:
    text = '#pragma once\n#ifndef _WIN32\n#error "Windows only"\n#endif\n#include <d3d11.h>\n'
    assert includes(text, _evaluator(LINUX)) == []
    windows = includes(text, _evaluator(Platform("windows", "x86_64")))
    assert [i.spelling for i in windows] == ["d3d11.h"]


def test_system_headers_are_per_os() -> None:
    assert is_system_header("vector", "linux")
    assert is_system_header("sys/mman.h", "linux")
    assert is_system_header("pthread.h", "macos")
    assert not is_system_header("pthread.h", "windows")
    assert is_system_header("Windows.h", "windows")
    assert is_system_header("Metal/Metal.h", "macos")
    assert not is_system_header("Metal/Metal.h", "linux")
    assert not is_system_header("ATen/Tensor.h", "macos")
    assert not is_system_header("flatbuffers/flatbuffers.h", "linux")


# ------------------------------------------------------------------ the rules, on probepkg

HEADERS = {
    # SL343: a third-party header the package does not ship.
    "probepkg/api.h": "#pragma once\n#include <cstddef>\n#include <flatbuffers/flatbuffers.h>\n",
    # SL344: shipped, but outside the include directory.
    "probepkg/uses_detail.h": "#pragma once\n#include <probepkg/detail/impl.h>\n",
    # SL345: a configured header never installed.
    "probepkg/version_info.h": '#pragma once\n#include "probepkg/probepkg_macros.h"\n',
    # Quiet on Linux; SL346 for the consumer-decided CUDA branch.
    "probepkg/platform.h": (
        "#pragma once\n#ifdef _WIN32\n#include <windows.h>\n#include <win_only_dep.h>\n"
        "#elif defined(__APPLE__)\n#include <mac_only_dep.h>\n#endif\n"
        "#if __has_include(<optional_dep.h>)\n#include <optional_dep.h>\n#endif\n"
        '#include "span.h"\n#include <probepkg.h>\n'
        "#ifdef PROBEPKG_USE_CUDA\n#include <cuda_runtime.h>\n#endif\n"
    ),
    "probepkg/span.h": "#pragma once\n#include <vector>\n#include <sys/types.h>\n",
    # Excluded by the manifest: its missing include is not asked.
    "probepkg/detail/private.h": "#pragma once\n#include <internal_only.h>\n",
}
# Shipped outside the include directory.
OUTSIDE = "probepkg/src/probepkg/detail/impl.h"


@pytest.fixture(scope="session")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    libraries = compile_libraries(tmp_path_factory.mktemp("closure-libs"))
    artifact = make_package(libraries, tmp_path_factory.mktemp("closure"), CONFIG.read_text())
    for name, text in HEADERS.items():
        path = artifact / "probepkg" / "include" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    outside = artifact / OUTSIDE
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_text("#pragma once\n", encoding="utf-8")
    return artifact


def _manifest(**headers: tuple[str, ...]) -> Manifest:
    base = probepkg_manifest()
    fields = {"exclude": ("probepkg/detail/*",), **headers}
    return replace(base, headers=Headers(**fields))  # type: ignore[arg-type]


def _models(artifact: Path, manifest: Manifest) -> list[object]:
    request = RunRequest(
        root=REPO,
        check_sources=False,
        artifacts=(artifact,),
        cmake=(str(cmake("4.4.5")),),
        selection=Selection(select=CODES),
    )
    return list(collect_models(request, manifest, RULES, QUIET))


def _diagnose(models: Sequence[object], manifest: Manifest) -> list[Diagnostic]:
    return lint(RULES, manifest, models, Selection(select=CODES))


def _consumer_fails(
    include_dirs: Sequence[Path], header: str, tmp_path: Path, defines: Sequence[str] = ()
) -> str:
    """A real compile of a consumer including `header` with the published -I dirs:
    its first error line."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.fail("the include closure's confirmations need a C++ compiler on PATH")
    unit = tmp_path / "consumer.cpp"
    unit.write_text(f"#include <{header}>\n", encoding="utf-8")
    run = subprocess.run(
        [
            compiler,
            "-std=c++17",
            "-fsyntax-only",
            *(f"-D{d}" for d in defines),
            *(f"-I{d}" for d in include_dirs),
            str(unit),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0, f"{header} compiled"
    return next(line for line in run.stderr.splitlines() if "error" in line)


def test_each_class_fires_at_its_line_and_a_compiler_agrees(package: Path, tmp_path: Path) -> None:
    manifest = _manifest()
    models = _models(package, manifest)
    (closure,) = [m for m in models if isinstance(m, IncludeClosure)]
    assert closure.include_dirs == ("probepkg/include",)
    found = {
        (d.code, d.location.member, d.location.line): d.message for d in _diagnose(models, manifest)
    }
    assert sorted(found) == [
        ("SL343", "probepkg/include/probepkg/api.h", 3),
        ("SL344", "probepkg/include/probepkg/uses_detail.h", 2),
        ("SL345", "probepkg/include/probepkg/version_info.h", 2),
        ("SL346", "probepkg/include/probepkg/platform.h", 14),
    ]
    assert "<flatbuffers/flatbuffers.h>" in found[("SL343", "probepkg/include/probepkg/api.h", 3)]
    assert OUTSIDE in found[("SL344", "probepkg/include/probepkg/uses_detail.h", 2)]
    assert "<cuda_runtime.h>" in found[("SL346", "probepkg/include/probepkg/platform.h", 14)]
    include = [package / "probepkg" / "include"]
    for header, missing in (
        ("probepkg/api.h", "flatbuffers/flatbuffers.h"),
        ("probepkg/uses_detail.h", "probepkg/detail/impl.h"),
        ("probepkg/version_info.h", "probepkg/probepkg_macros.h"),
    ):
        assert f"{missing}: No such file or directory" in _consumer_fails(include, header, tmp_path)


def test_quiet_when_everything_resolves(package: Path, tmp_path: Path) -> None:
    manifest = _manifest(external=("flatbuffers/*",), required=("probepkg.h", "probepkg/*"))
    models = _models(package, manifest)
    found = [d for d in _diagnose(models, manifest) if d.code in ("SL343", "SL347")]
    assert found == []
    # The platform header compiles for a Linux consumer that sets no option.
    compiler = shutil.which("g++") or "g++"
    unit = tmp_path / "consumer.cpp"
    unit.write_text("#include <probepkg/platform.h>\n", encoding="utf-8")
    include = package / "probepkg" / "include"
    subprocess.run([compiler, "-std=c++17", "-fsyntax-only", f"-I{include}", str(unit)], check=True)


def test_sl347_a_required_header_that_is_gone(package: Path) -> None:
    manifest = _manifest(required=("probepkg.h", "probepkg/runtime/gone.h"))
    (diag,) = [d for d in _diagnose(_models(package, manifest), manifest) if d.code == "SL347"]
    assert "'probepkg/runtime/gone.h' (headers.required)" in diag.message


def test_sl348_headers_but_no_published_include_directory(package: Path, tmp_path: Path) -> None:
    copy = tmp_path / "noinclude"
    shutil.copytree(package, copy, symlinks=True)
    config = copy / "probepkg" / "share" / "cmake" / "probepkg-config.cmake"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('INTERFACE_INCLUDE_DIRECTORIES "${_probepkg_root}/include"', ""),
        encoding="utf-8",
    )
    manifest = _manifest()
    models = _models(copy, manifest)
    assert [type(m) for m in models] == [IncludeClosureNotChecked]
    (diag,) = _diagnose(models, manifest)
    assert diag.code == "SL348"
    assert diag.message.startswith("8 header files ship")


# ------------------------------------------------------------------ the real wheels


def _wheel_findings(path: Path) -> list[Diagnostic]:
    manifest = load_manifest(REPO / "examples" / "executorch" / "shiplint.yaml")
    request = RunRequest(
        root=REPO,
        check_sources=False,
        artifacts=(path,),
        cmake=(str(cmake("3.24.3")), str(cmake("4.4.5"))),
        selection=Selection(select=CODES),
    )
    return _diagnose(collect_models(request, manifest, RULES, QUIET), manifest)


def test_executorch_1_5_1_ships_a_windows_only_header_on_linux() -> None:
    found = _wheel_findings(wheel("1.5.1", "manylinux_2_28_x86_64"))
    errors = [(d.code, d.location.member, d.location.line) for d in found if d.code != "SL346"]
    assert errors == [
        ("SL343", "executorch/include/executorch/extension/data_loader/mman_windows.h", 30)
    ]
    # Everything else a consumer may not find is behind a macro it sets (ATen mode,
    # CUDA, HIP, SYCL): information only.
    assert all(d.severity.value == "info" for d in found if d.code == "SL346")


def test_executorch_1_4_1_shipped_its_c10_headers_outside_the_include_directory(
    tmp_path: Path,
) -> None:
    path = wheel("1.4.1", "manylinux_2_28_x86_64")
    found = {(d.code, d.location.member, d.location.line) for d in _wheel_findings(path)}
    runtime = "executorch/include/executorch/runtime"
    assert ("SL344", f"{runtime}/core/array_ref.h", 32) in found
    assert ("SL345", f"{runtime}/executor/tensor_parser.h", 21) in found
    assert ("SL343", "executorch/include/executorch/extension/threadpool/threadpool.h", 15) in found
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path, [n for n in archive.namelist() if n.endswith(".h")])
    include = tmp_path / "executorch" / "include"
    assert "c10/util/irange.h: No such file" in _consumer_fails(
        [include], "executorch/runtime/core/array_ref.h", tmp_path
    )
    assert "pthreadpool.h: No such file" in _consumer_fails(
        [include], "executorch/extension/threadpool/threadpool.h", tmp_path
    )
    # Past the c10 defect (its directory and the definition 1.5.1's targets add), the
    # generated schema header is the next thing missing.
    c10 = include / "executorch" / "runtime" / "core" / "portable_type" / "c10"
    assert "executorch/schema/program_generated.h: No such file" in _consumer_fails(
        [include, c10],
        "executorch/runtime/executor/tensor_parser.h",
        tmp_path,
        ("C10_USING_CUSTOM_GENERATED_MACROS",),
    )


# ------------------------------------------------------------------ kept in the user cache


def _closure_of(path: Path, manifest: Manifest) -> object:
    from shiplint.artifacts.archive import open_artifact
    from shiplint.artifacts.inventory import list_artifact
    from shiplint.include_closure.build import include_closure

    with open_artifact(path) as tree:
        return include_closure(tree, list_artifact(tree, manifest), ["pkg/include"], manifest)


def test_a_kept_closure_is_the_closure_and_a_changed_header_is_read_again(
    tmp_path: Path,
) -> None:
    from shiplint import cache

    from tests.artifact_libs import pack_wheel
    from tests.builders import manifest as empty_manifest

    manifest = empty_manifest()
    name = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    members: dict[str, Path | bytes] = {
        "pkg/include/pkg/a.h": b"#pragma once\n#include <pkg/b.h>\n#include <gone.h>\n",
        "pkg/include/pkg/b.h": b"#pragma once\n#include <vector>\n",
    }
    (tmp_path / "one").mkdir()
    first = pack_wheel(tmp_path / "one" / name, members)
    kept_dir = cache.cache_dir() / "include-closure"

    def entries() -> set[str]:
        if not kept_dir.is_dir():
            return set()
        return {p.name for p in kept_dir.iterdir() if not p.name.startswith(".")}

    before = entries()
    with cache.refusing_reuse():
        fresh = _closure_of(first, manifest)
    assert len(entries() - before) == 1
    kept = _closure_of(first, manifest)
    assert kept == fresh
    assert isinstance(kept, IncludeClosure)
    assert [(u.header, u.line, u.spelling) for u in kept.unresolved] == [
        ("pkg/include/pkg/a.h", 3, "gone.h")
    ]
    # The same names, another byte in b.h: read again, not taken from the kept closure.
    (tmp_path / "two").mkdir()
    members["pkg/include/pkg/b.h"] = b"#pragma once\n#include <also_gone.h>\n"
    second = pack_wheel(tmp_path / "two" / name, members)
    changed = _closure_of(second, manifest)
    assert isinstance(changed, IncludeClosure)
    assert [u.spelling for u in changed.unresolved] == ["gone.h", "also_gone.h"]
    assert len(entries() - before) == 2


def test_sl348_says_when_no_cmake_evaluated_the_config(package: Path) -> None:
    manifest = _manifest()
    request = RunRequest(
        root=REPO,
        check_sources=False,
        artifacts=(package,),
        cmake=(),
        selection=Selection(select=CODES),
    )
    models = list(collect_models(request, manifest, RULES, QUIET))
    (diag,) = _diagnose(models, manifest)
    assert diag.code == "SL348"
    assert "the installed config could not be evaluated" in diag.message
