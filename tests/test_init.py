"""`shiplint init` on real wheels: the manifest it writes, then `check` with it.

Round trips on the real ExecuTorch 1.5.1 Linux wheel and on the other projects'
wheels (OpenVINO, mlx-metal, tbb-devel), with real CMake on both sides of 3.28:
every finding the written manifest leaves is one the wheel's pinned report
(tests/golden/full/, explained in docs/findings/) already has at the same place,
so init adds no false finding. ExecuTorch's real route drift (backend_qnn missing
from EXECUTORCH_LIBRARIES below CMake 3.28) is printed by init and reported by
the first check.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from shiplint.cli import main
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest

from tests.material import (
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    OTHER_WHEELS,
    REPO,
    cmake,
    other_wheel,
    wheel,
)
from tests.test_end_to_end import _line

GOLDEN = REPO / "tests" / "golden" / "full"
CMAKES = ("--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)))


def _init(output: Path, *artifacts: Path, extra: tuple[str, ...] = ()) -> int:
    return main(["init", *CMAKES, "--output", str(output), *extra, *map(str, artifacts)])


def _check(manifest: Path, artifact: Path, report: Path) -> list[dict[str, Any]]:
    main(
        [
            "check", "--no-sources", "--manifest", str(manifest), *CMAKES,
            "--format", "json", "--output", str(report), str(artifact),
        ]
    )  # fmt: skip
    diagnostics: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))[
        "diagnostics"
    ]
    return diagnostics


def _place(line: str) -> tuple[str, str]:
    """(code, location) of a pinned report line: the same finding, whatever the
    manifest calls its routes and components."""
    code, _, where, _ = line.split(" ", 3)
    return code, where


def _unexplained(diagnostics: list[dict[str, Any]], golden: str) -> list[str]:
    pinned = {_place(line) for line in (GOLDEN / golden).read_text(encoding="utf-8").splitlines()}
    return [_line(d) for d in diagnostics if _place(_line(d)) not in pinned]


@pytest.fixture(scope="module")
def executorch_round_trip(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, str, list[dict[str, Any]], str]:
    """init, then check, on the real 1.5.1 Linux wheel: the manifest, its text, the
    check's findings and what init printed."""
    import contextlib
    import io

    work = tmp_path_factory.mktemp("init-executorch")
    manifest = work / "shiplint.yaml"
    artifact = wheel("1.5.1", "manylinux_2_28_x86_64")
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        assert _init(manifest, artifact) == 0
    return (
        manifest,
        manifest.read_text(encoding="utf-8"),
        _check(manifest, artifact, work / "r.json"),
        printed.getvalue(),
    )


def test_executorch_round_trip_reports_only_the_real_route_drift(
    executorch_round_trip: tuple[Path, str, list[dict[str, Any]], str],
) -> None:
    manifest, text, diagnostics, _ = executorch_round_trip
    errors = [d for d in diagnostics if d["severity"] == "error"]
    drift = {(d["code"], d["subject"].get("component")) for d in errors if d["code"] < "SL2"}
    # Below 3.28 the shipped config's hand-kept list forgets the QNN delegate.
    assert drift == {("SL102", "backend_qnn"), ("SL103", "backend_qnn")}
    sl102 = next(d for d in errors if d["code"] == "SL102")
    assert sl102["subject"]["cmake_version"] == OLD_CMAKE_VERSION
    assert _unexplained(diagnostics, "executorch-1.5.1-manylinux_2_28_x86_64.txt") == []
    # Written as the newer route publishes it: the aggregate carries backend_qnn.
    assert "carries: {all_except: [kernels_quantized]}" in text
    assert "imported_targets: false" in text
    loaded = load_manifest(manifest)
    assert [r.name for r in loaded.cmake.routes] == ["below-3.28", "since-3.28"]
    quantized = loaded.component("kernels_quantized")
    assert quantized is not None and quantized.opt_in


def test_init_prints_the_routes_disagreement(
    executorch_round_trip: tuple[Path, str, list[dict[str, Any]], str],
) -> None:
    printed = executorch_round_trip[3]
    assert "routes disagree" in printed
    assert "EXECUTORCH_LIBRARIES on route below-3.28 lacks backend_qnn" in printed


def _openvino(manifest: Manifest) -> None:
    # Nested targets, and the request names the config answers to.
    onnx = manifest.component("frontend_onnx")
    assert onnx is not None and onnx.target == "openvino::frontend::onnx"
    assert manifest.request_name("runtime_c") == "Runtime"
    tbb = manifest.library("tbb")
    assert tbb is not None and tbb.kind.value == "bundled"


def _mlx(manifest: Manifest) -> None:
    # One target, no namespace.
    assert manifest.cmake.namespace == "" and manifest.target_name("mlx") == "mlx"


def _tbb(manifest: Manifest) -> None:
    # A target only its own request publishes; versioned files with byte-identical copies.
    tbbbind = manifest.component("tbbbind")
    assert tbbbind is not None and tbbbind.only_on_request and tbbbind.opt_in
    library = manifest.library("tbb_debug")
    assert library is not None and library.placements[0].file == "libtbb_debug.so.*"


def _pybind11(manifest: Manifest) -> None:
    # No library at all: every target is an INTERFACE target no COMPONENTS names.
    assert manifest.libraries == ()
    names = {c.name for c in manifest.components}
    assert {"headers", "module", "embed"} <= names
    assert all(c.header_only and not c.requestable for c in manifest.components)


def _fmt(manifest: Manifest) -> None:
    # fmt::fmt imports a byte-identical copy of the library; fmt's config takes no
    # COMPONENTS, so neither target is requestable.
    library = manifest.owner_of("fmt")
    assert library is not None and library.name == "fmt"
    header_only = manifest.component("fmt-header-only")
    assert header_only is not None and header_only.header_only
    assert not any(c.requestable for c in manifest.components)


def _eigen(manifest: Manifest) -> None:
    # Eigen3::Eigen imports nothing; the config accepts any component name, so the
    # target is no component to ask for.
    (component,) = manifest.components
    assert (component.name, component.header_only, component.requestable) == (
        "Eigen",
        True,
        False,
    )


def _torch(manifest: Manifest) -> None:
    # A 368 MiB libtorch_cpu.dylib read without holding it; INTERFACE targets beside
    # the libraries' own.
    assert {"c10", "torch", "torch_cpu"} <= {c.name for c in manifest.components}
    headeronly = manifest.component("headeronly")
    assert headeronly is not None and headeronly.header_only
    library = manifest.library("torch_cpu")
    assert library is not None and library.placements[0].selector.os == "macos"


SHAPES = {
    "openvino": _openvino,
    "mlx": _mlx,
    "tbb-devel": _tbb,
    "pybind11": _pybind11,
    "fmt": _fmt,
    "eigen": _eigen,
    "torch": _torch,
}


@pytest.mark.parametrize("example", sorted(OTHER_WHEELS))
def test_other_projects_round_trip_adds_no_false_finding(
    example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_init_every_wheel import consumer_python

    manifest = tmp_path / "shiplint.yaml"
    artifact = other_wheel(example)
    consumer_python(monkeypatch, artifact)
    assert _init(manifest, artifact) == 0
    SHAPES[example](load_manifest(manifest))
    diagnostics = _check(manifest, artifact, tmp_path / "r.json")
    assert _unexplained(diagnostics, f"{example}.txt") == []


PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_14_0_arm64", "win_amd64")


def test_one_wheel_per_platform_gives_per_platform_placement(tmp_path: Path) -> None:
    """The four 1.5.1 wheels together: one manifest whose placements say where each
    library ships, and whose check of each wheel adds nothing to its pinned report."""
    out = tmp_path / "m.yaml"
    wheels = {platform: wheel("1.5.1", platform) for platform in PLATFORMS}
    assert _init(out, *wheels.values()) == 0
    loaded = load_manifest(out)

    def selectors(name: str) -> list[str]:
        library = loaded.library(name)
        assert library is not None, name
        return [str(p.selector) for p in library.placements]

    assert selectors("executorch") == ["linux", "macos"]
    assert selectors("executorch_backend_qnn") == ["linux-x86_64"]
    assert selectors("executorch_backend_coreml") == ["macos"]
    assert selectors("quantized_ops_aot_lib") == ["linux", "macos", "windows"]
    extension = loaded.library("_C")
    assert extension is not None
    assert {p.file for p in extension.placements} == {"_C.*.so", "_C.*.pyd"}
    for platform, artifact in wheels.items():
        diagnostics = _check(out, artifact, tmp_path / f"{platform}.json")
        assert _unexplained(diagnostics, f"executorch-1.5.1-{platform}.txt") == [], platform


def test_second_run_is_byte_identical(tmp_path: Path) -> None:
    out = tmp_path / "shiplint.yaml"
    artifact = other_wheel("tbb-devel")
    assert _init(out, artifact) == 0
    first = out.read_bytes()
    assert _init(out, artifact, extra=("--force",)) == 0
    assert out.read_bytes() == first


def test_existing_file_is_kept_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "shiplint.yaml"
    out.write_text("mine\n", encoding="utf-8")
    artifact = other_wheel("tbb-devel")
    assert _init(out, artifact) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert _init(out, artifact, extra=("--force",)) == 0
    assert out.read_text(encoding="utf-8").startswith("# A starting manifest")


def test_sentinels_and_externals(
    executorch_round_trip: tuple[Path, str, list[dict[str, Any]], str],
) -> None:
    manifest, _, diagnostics, _ = executorch_round_trip
    loaded = load_manifest(manifest)
    runtime = loaded.library("executorch")
    assert runtime is not None and runtime.kind.value == "runtime"
    assert 1 <= len(runtime.owns.symbols) <= 3
    assert all(s.startswith("executorch::") for s in runtime.owns.symbols)
    # No sentinel is reported missing or copied (SL318, SL306).
    assert not [d for d in diagnostics if d["code"] in ("SL306", "SL318")]
    # torch's libraries: found through RUNPATH in torch/lib beside the package, so
    # provided by the torch distribution (which the check then asks the metadata for).
    (torch,) = loaded.externals.provided
    assert (torch.provider, torch.distribution) == ("torch", "torch")
    assert "libtorch.so" in torch.patterns and "libtorch" not in " ".join(loaded.externals.system)
    assert "SL321" in {d["code"] for d in diagnostics}
    assert loaded.externals.policies == ("platform-tag",)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.whl", "missing.whl"),
        (lambda d: _empty_wheel(d), "holds no shared library"),
        (lambda d: _wheel_without_config(d), "no CMake package config"),
        (lambda d: _not_a_zip(d), "must be a zip archive"),
    ],
)
def test_bad_input_exits_2_with_the_path(
    make: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = make(tmp_path)
    assert _init(tmp_path / "out.yaml", artifact) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out.yaml").exists()


def _empty_wheel(directory: Path) -> Path:
    path = directory / "empty-1.0-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("empty/__init__.py", "")
    return path


EXPORTPKG = REPO / "tests" / "fixtures" / "exportpkg"


def test_root_adds_build_targets_and_declarations(tmp_path: Path) -> None:
    """A real build and install of the fixture project, then init with its sources: each
    library's target is found by its OUTPUT_NAME, and the first check with sources,
    config and binaries finds only the project's real defect."""
    import shutil
    import subprocess

    tool = shutil.which("cmake") or str(cmake(NEW_CMAKE_VERSION))
    build, prefix = tmp_path / "build", tmp_path / "prefix"
    configure = [tool, "-S", str(EXPORTPKG), "-B", str(build), "-DEXPO_BUILD_OPS=ON"]
    configure.append(f"-DCMAKE_INSTALL_PREFIX={prefix}")
    for step in (configure, [tool, "--build", str(build)], [tool, "--install", str(build)]):
        subprocess.run(step, check=True, capture_output=True)
    out = tmp_path / "shiplint.yaml"
    assert _init(out, prefix, extra=("--root", str(EXPORTPKG))) == 0
    loaded = load_manifest(out)
    assert {lib.name: lib.build_target for lib in loaded.libraries} == {
        "expo_core": "core",
        "expo_ops": "ops",
    }
    assert [d.kind for d in loaded.sources.build_declarations] == ["all"]
    report = tmp_path / "r.json"
    code = main(
        [
            "check", "--root", str(EXPORTPKG), "--manifest", str(out), *CMAKES,
            "--format", "json", "--output", str(report), str(prefix),
        ]
    )  # fmt: skip
    diagnostics = json.loads(report.read_text(encoding="utf-8"))["diagnostics"]
    # The one real defect of the fixture's install: it ships no config-version file.
    assert code == 1
    assert [d["code"] for d in diagnostics if d["severity"] != "info"] == ["SL123"]


def test_declarations_are_the_files_that_name_targets() -> None:
    from shiplint.init.build import declarations

    found = declarations(REPO / "tests" / "fixtures" / "srcproject")
    assert [(d.kind, d.path) for d in found] == [
        ("setup-py", "setup.py"),
        ("scikit-build", "pyproject.toml"),
    ]
    assert [d.kind for d in declarations(EXPORTPKG)] == ["all"]


def test_root_without_cmake_lists_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        _init(tmp_path / "m.yaml", other_wheel("tbb-devel"), extra=("--root", str(tmp_path))) == 2
    )
    assert "no CMakeLists.txt" in capsys.readouterr().err


def _wheel_without_config(directory: Path) -> Path:
    """A wheel holding a real shared library (built by gcc) and no CMake config."""
    import subprocess

    source = directory / "lone.c"
    source.write_text("int lone(void) { return 1; }\n", encoding="utf-8")
    library = directory / "liblone.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,liblone.so", "-o", str(library), str(source)],
        check=True,
        capture_output=True,
    )
    path = directory / "lone-1.0-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(library, "lone/lib/liblone.so")
    return path


def _not_a_zip(directory: Path) -> Path:
    path = directory / "broken-1.0-py3-none-any.whl"
    path.write_text("not a zip\n", encoding="utf-8")
    return path


def test_output_in_a_missing_directory_is_refused_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "shiplint.yaml"
    assert _init(out, tmp_path / "never-read.whl") == 2
    assert "is not a directory" in capsys.readouterr().err


# What init says when it cannot start: the cause, then the next step.


def _refused(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> str:
    assert main(["init", "--output", str(out), *args]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_cmake_below_the_configs_boundary_alone_asks_for_a_newer_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ExecuTorch's config defines imported targets only from CMake 3.28 on: with one
    older CMake, init names the boundary and how to get a CMake past it."""
    artifact = wheel("1.5.1", "manylinux_2_28_x86_64")
    err = _refused(
        capsys, tmp_path / "m.yaml", "--cmake", str(cmake(OLD_CMAKE_VERSION)), str(artifact)
    )
    assert f"no imported target on CMake {OLD_CMAKE_VERSION}" in err
    assert "give a CMake 3.28 or newer too" in err
    assert "--cmake cmake-4/cmake/data/bin/cmake" in err


def test_a_platform_whose_config_reports_not_found_says_the_configs_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Windows wheel ships the config but no linkable library: the config says so
    (NOT FOUND, with its message), and init passes that on with what to give it."""
    artifact = wheel("1.5.1", "win_amd64")
    err = _refused(
        capsys, tmp_path / "m.yaml", "--cmake", str(cmake(NEW_CMAKE_VERSION)), str(artifact)
    )
    assert "reports executorch NOT FOUND" in err
    assert "ships the headers but no linkable library" in err
    assert "together with this one" in err


def test_with_a_platform_that_finds_it_the_not_found_one_is_a_warning_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.yaml"
    windows, linux = wheel("1.5.1", "win_amd64"), wheel("1.5.1", "manylinux_2_28_x86_64")
    assert _init(out, windows, linux) == 0
    err = capsys.readouterr().err
    assert "win_amd64.whl: on CMake 4.4.5 the config reports the package NOT FOUND" in err
    assert "no linkable library" in err


def test_a_runtime_wheel_without_its_config_names_the_companion_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """oneTBB's runtime wheel ships the libraries; its config is in tbb-devel."""
    from tests.material import TBB_RUNTIME, cached_wheel

    err = _refused(capsys, tmp_path / "m.yaml", *CMAKES, str(cached_wheel(*TBB_RUNTIME)))
    assert "no CMake package config" in err and "give init both in the same run" in err


def test_the_header_command_checks_the_written_manifest_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header's command, run as written in a directory with no CMake sources, reports
    only the wheel's own findings: nothing about the manifest or sources it never named."""
    import shlex

    monkeypatch.chdir(tmp_path)
    artifact = other_wheel("mlx")
    assert main(["init", *CMAKES, str(artifact)]) == 0
    text = (tmp_path / "shiplint.yaml").read_text(encoding="utf-8")
    assert "sources:" not in text
    command = next(
        line.removeprefix("#   ") for line in text.splitlines() if "shiplint check" in line
    )
    words = shlex.split(command)
    assert words[:2] == ["shiplint", "check"] and "--no-sources" in words
    main([*words[1:], "--format", "json", "--output", "r.json"])
    found = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["diagnostics"]
    assert not [d["code"] for d in found if d["code"][:3] in ("SL0", "SL2")]
    assert _unexplained(found, "mlx.txt") == []
