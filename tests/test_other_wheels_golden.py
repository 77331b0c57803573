"""shiplint on real wheels of projects other than ExecuTorch, each with its example manifest.

OpenVINO (nested targets, request names unlike its targets, a vendored TBB),
mlx-metal (a macOS-only SDK whose one target has no namespace), tbb-devel
(targets published only on request, versioned libraries with byte-identical
copies), pybind11 (header-only: no library, INTERFACE targets, no COMPONENTS),
cmeel-eigen (Eigen3::Eigen, header-only linear algebra, beside Eigen's BLAS and
LAPACK builds) and cmeel-fmt (a library whose target imports the fully versioned
copy, and a header-only target; no COMPONENTS) and torch 2.14.1 for macOS arm64 (a
368 MiB dylib, read through a mapped file). The whole report of each, both CMake routes, is pinned in
tests/golden/full/<example>.txt and every finding is explained in
docs/findings/<example>.md. Regenerate on purpose with
`SHIPLINT_UPDATE_GOLDEN=1 python -m pytest tests/test_other_wheels_golden.py`.

Planted defects in copies of the real wheels (a component's library removed, a
SONAME changed, an opt-in component pulled into the aggregate) are each caught,
named by library, component and variable.
"""

from __future__ import annotations

import json
import os
import re
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shiplint.cli import main

from tests.artifact_libs import record_name, record_text
from tests.material import (
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    OTHER_WHEELS,
    REPO,
    TBB_RUNTIME,
    cached_wheel,
    cmake,
    example_manifest,
    other_wheel,
)
from tests.test_end_to_end import REPORT_SCHEMA, _line

GOLDEN = REPO / "tests" / "golden" / "full"


def _check(example: str, *artifacts: Path, output: Path) -> tuple[int, dict[str, Any]]:
    import jsonschema

    code = main(
        [
            "check", "--no-sources",
            "--manifest", str(example_manifest(example).relative_to(REPO)),
            "--root", str(REPO),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)),
            "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(output),
            *(str(artifact) for artifact in artifacts),
        ]
    )  # fmt: skip
    document = json.loads(output.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
    return code, document


# Configs that ask the host for a Python (pybind11's runs FindPythonInterp, which tries
# `python3.9` and the like before `python3`) are evaluated as a consumer building for
# this interpreter would: its directory first on PATH, then the system's, and no shims
# of other interpreters (a pyenv shim of an uninstalled version answers with an error).
_CONSUMER_PYTHON = {"pybind11"}


@pytest.mark.parametrize("example", sorted(OTHER_WHEELS))
def test_full_report_on_another_projects_wheel(
    example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    if example in _CONSUMER_PYTHON:
        monkeypatch.setenv(
            "PATH", os.pathsep.join((str(Path(sys.executable).parent), "/usr/bin", "/bin"))
        )
    code, document = _check(example, other_wheel(example), output=tmp_path / "report.json")
    lines = [_line(d) for d in document["diagnostics"]]
    golden = GOLDEN / f"{example}.txt"
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        golden.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert golden.is_file(), f"no golden report {golden}; run with SHIPLINT_UPDATE_GOLDEN=1"
    assert lines == golden.read_text(encoding="utf-8").splitlines()
    codes = {d["code"] for d in document["diagnostics"]}
    # The config loads on both CMake routes: nothing stopped the evaluation.
    assert not codes & {"SL111", "SL113", "SL114", "SL116"}
    assert code == (0 if document["summary"]["passed"] else 1)


def _planted(source: Path, target: Path, edit: Callable[[str, bytes], bytes | None]) -> Path:
    """A copy of the wheel with `edit(name, data)` applied to each member (None drops it),
    its RECORD written anew as the build that planted the defect would write it."""
    with zipfile.ZipFile(source) as zin:
        kept = [
            (info.filename, data)
            for info in zin.infolist()
            if (data := edit(info.filename, zin.read(info))) is not None
        ]
    record = record_name(target.name, (name for name, _ in kept))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data in kept:
            zout.writestr(
                name, record_text(record, kept) if name == record else data, compresslevel=1
            )
    return target


def _findings(document: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [d for d in document["diagnostics"] if d["code"] == code]


_TBB_LIB = "tbb_devel-2021.13.1.data/data/lib/"
_TBB_CONFIG = _TBB_LIB + "cmake/tbb/TBBConfig.cmake"


def test_planted_a_components_library_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)

    def drop_tbbmalloc(name: str, data: bytes) -> bytes | None:
        return None if name.startswith(_TBB_LIB + "libtbbmalloc_debug.so") else data

    wheel = _planted(other_wheel("tbb-devel"), tmp_path / other_wheel("tbb-devel").name,
                     drop_tbbmalloc)  # fmt: skip
    _, document = _check("tbb-devel", wheel, output=tmp_path / "r.json")
    (missing,) = _findings(document, "SL301")
    assert missing["subject"]["library"] == "tbbmalloc_debug"
    assert missing["subject"]["component"] == "tbbmalloc"
    assert missing["location"]["member"].endswith("libtbbmalloc_debug.so.2")
    lacking = [d for d in _findings(document, "SL308") if "libtbbmalloc_debug.so.2" in d["message"]]
    assert lacking, "the proxy's dependency on the removed library is reported"


def test_planted_a_soname_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    soname = b"libtbbmalloc_debug.so.2\0"

    def rename(name: str, data: bytes) -> bytes:
        if name == _TBB_LIB + "libtbbmalloc_debug.so.2":
            assert soname in data
            return data.replace(soname, b"libtbbmalloc_debug.so.9\0")
        return data

    wheel = _planted(other_wheel("tbb-devel"), tmp_path / other_wheel("tbb-devel").name, rename)
    _, document = _check("tbb-devel", wheel, output=tmp_path / "r.json")
    (finding,) = _findings(document, "SL304")
    assert finding["subject"]["library"] == "tbbmalloc_debug"
    assert "'libtbbmalloc_debug.so.9' differs from the file name" in finding["message"]
    # The changed file is no longer byte-identical to its copies (still identical to each
    # other): they are one undeclared shared object now.
    (undeclared,) = _findings(document, "SL302")
    assert undeclared["location"]["member"] == _TBB_LIB + "libtbbmalloc_debug.so"
    assert undeclared["message"] == "a shared object the manifest does not declare"


def test_planted_an_opt_in_component_pulled_into_the_aggregate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    default = b'set(TBB_FIND_COMPONENTS "tbb;tbbmalloc;tbbmalloc_proxy")'

    def pull_in(name: str, data: bytes) -> bytes:
        if name == _TBB_CONFIG:
            assert default in data
            return data.replace(default, b'set(TBB_FIND_COMPONENTS "tbb;tbbmalloc;tbbbind")')
        return data

    wheel = _planted(other_wheel("tbb-devel"), tmp_path / other_wheel("tbb-devel").name, pull_in)
    _, document = _check("tbb-devel", wheel, output=tmp_path / "r.json")
    pulled = _findings(document, "SL101")
    assert len(pulled) == 2  # one per CMake
    for finding in pulled:
        assert finding["subject"]["component"] == "tbbbind"
        assert finding["subject"]["variable"] == "TBB_IMPORTED_TARGETS"
        assert "TBB_IMPORTED_TARGETS carries the opt-in component tbbbind" in finding["message"]
        assert "`TBB::tbbbind`" in finding["message"]


def test_planted_only_the_unversioned_copy_ships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SONAME-named file is gone, its copies stay: one finding naming them."""
    monkeypatch.chdir(REPO)

    def drop_soname_file(name: str, data: bytes) -> bytes | None:
        return None if name == _TBB_LIB + "libtbb_debug.so.12" else data

    wheel = _planted(other_wheel("tbb-devel"), tmp_path / other_wheel("tbb-devel").name,
                     drop_soname_file)  # fmt: skip
    _, document = _check("tbb-devel", wheel, output=tmp_path / "r.json")
    (missing,) = _findings(document, "SL301")
    assert missing["subject"]["library"] == "tbb_debug"
    assert missing["subject"]["component"] == "tbb"
    assert "found instead: libtbb_debug.so, libtbb_debug.so.12.13" in missing["message"]
    assert _findings(document, "SL302") == []


def _golden(name: str, document: dict[str, Any]) -> None:
    lines = [_line(d) for d in document["diagnostics"]]
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        golden.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert golden.is_file(), f"no golden report {golden}; run with SHIPLINT_UPDATE_GOLDEN=1"
    assert lines == golden.read_text(encoding="utf-8").splitlines()


def test_an_sdk_split_across_two_wheels_is_checked_as_one_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oneTBB: tbb-devel's config imports the release libraries of the tbb wheel. Given
    together (either order), the config loads on both routes and every release target
    imports the tbb wheel's file; the report is pinned in tests/golden/full/onetbb.txt
    and explained in docs/findings/onetbb.md."""
    monkeypatch.chdir(REPO)
    devel, runtime = other_wheel("tbb-devel"), cached_wheel(*TBB_RUNTIME)
    code, document = _check("onetbb", runtime, devel, output=tmp_path / "report.json")
    _golden("onetbb", document)
    codes = {d["code"] for d in document["diagnostics"]}
    assert not codes & {"SL111", "SL113", "SL114", "SL116", "SL301", "SL107"}
    assert code == 1
    # A finding about a release library points at the tbb wheel and its own member.
    released = [
        d for d in document["diagnostics"] if d["location"].get("member", "").startswith("tbb-")
    ]
    assert released
    assert all(d["location"]["path"].endswith(runtime.name) for d in released)
    assert {d["subject"]["artifact"] for d in document["diagnostics"]} == {devel.name}


def test_the_devel_wheel_alone_lacks_the_release_libraries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    _, document = _check("onetbb", other_wheel("tbb-devel"), output=tmp_path / "r.json")
    missing = {d["subject"]["library"] for d in _findings(document, "SL301")}
    assert missing == {
        "tbb",
        "tbbmalloc",
        "tbbmalloc_proxy",
        "tbbbind",
        "tbbbind_2_0",
        "tbbbind_2_5",
    }
    # Without the release files the targets import the debug ones only.
    assert {d["subject"]["target"] for d in _findings(document, "SL107")} >= {"TBB::tbb"}


def test_planted_a_release_library_removed_from_the_runtime_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    runtime = cached_wheel(*TBB_RUNTIME)

    def drop_tbbmalloc(name: str, data: bytes) -> bytes | None:
        return None if "/lib/libtbbmalloc.so" in name else data

    planted = _planted(runtime, tmp_path / runtime.name, drop_tbbmalloc)
    _, document = _check("onetbb", other_wheel("tbb-devel"), planted, output=tmp_path / "r.json")
    (missing,) = _findings(document, "SL301")
    assert missing["subject"]["library"] == "tbbmalloc"
    assert missing["subject"]["component"] == "tbbmalloc"
    lacking = [d for d in _findings(document, "SL308") if "libtbbmalloc.so.2" in d["message"]]
    assert lacking and lacking[0]["location"]["path"].endswith(runtime.name)


def _consumer_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "PATH", os.pathsep.join((str(Path(sys.executable).parent), "/usr/bin", "/bin"))
    )


def test_pybind11_every_documented_target_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clean report is a checked one: a copy of the real wheel whose config calls the
    embedding target pybind11::embedded instead is reported on both CMakes, as the
    header-only component's missing target."""
    monkeypatch.chdir(REPO)
    _consumer_python(monkeypatch)

    def rename_embed(name: str, data: bytes) -> bytes:
        if name.startswith("pybind11/share/cmake/pybind11/") and name.endswith(".cmake"):
            return data.replace(b"pybind11::embed", b"pybind11::embedded")
        return data

    source = other_wheel("pybind11")
    wheel = _planted(source, tmp_path / source.name, rename_embed)
    _, document = _check("pybind11", wheel, output=tmp_path / "r.json")
    # The real wheel's own findings, planted or not: the include closure's (pybind11/eigen/*.h
    # includes Eigen, which a consumer brings: docs/findings/include_closure.md) and the
    # cache entries its Python-finding module adds (SL134: docs/findings/pybind11.md).
    real = ("SL134", "SL343", "SL346")
    missing = [d for d in document["diagnostics"] if d["code"] not in real]
    assert [d["code"] for d in missing] == ["SL105", "SL105"]
    for finding in missing:
        assert finding["subject"]["component"] == "embed"
        assert (
            "no imported target pybind11::embed for the header-only component"
            in (finding["message"])
        )


_FMT_LIB = "cmeel.prefix/lib/"


def test_fmt_a_versioned_sibling_with_other_bytes_is_another_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fmt::fmt imports libfmt.so.12.2.0, a byte-identical copy of the libfmt.so.12 the
    manifest names (one library, no finding); made different, it is another file."""
    monkeypatch.chdir(REPO)

    def rebuild(name: str, data: bytes) -> bytes:
        return data + b"\0" if name == _FMT_LIB + "libfmt.so.12.2.0" else data

    source = other_wheel("fmt")
    wheel = _planted(source, tmp_path / source.name, rebuild)
    _, document = _check("fmt", wheel, output=tmp_path / "r.json")
    moved = _findings(document, "SL107")
    assert len(moved) == 2  # one per CMake
    for finding in moved:
        assert finding["subject"]["target"] == "fmt::fmt"
        assert "IMPORTED_LOCATION cmeel.prefix/lib/libfmt.so.12.2.0" in finding["message"]
    # The changed file is an undeclared shared object now.
    (undeclared,) = _findings(document, "SL302")
    assert undeclared["location"]["member"] == _FMT_LIB + "libfmt.so.12.2.0"


def test_tbb_devel_copies_are_one_library_whichever_name_the_manifest_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every oneTBB library ships as libX_debug.so, .so.N and .so.N.M; the config imports
    the .so.N. A manifest that names no file (the default libX_debug.so) is the same
    manifest: the same findings as the pinned report, no SL107 for the copy a target
    imports (6 such false errors before copies were one library)."""
    monkeypatch.chdir(REPO)
    text = example_manifest("tbb-devel").read_text(encoding="utf-8")
    unnamed = re.sub(r', file: "[^"]+"', "", text)
    assert unnamed.count("file:") == 0 and text.count("file:") == 6
    manifest = tmp_path / "examples" / "tbb-devel" / "shiplint.yaml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(unnamed, encoding="utf-8")
    code = main(
        [
            "check", "--no-sources", "--manifest", str(manifest), "--root", str(REPO),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(tmp_path / "r.json"),
            str(other_wheel("tbb-devel")),
        ]
    )  # fmt: skip
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    pinned = (GOLDEN / "tbb-devel.txt").read_text(encoding="utf-8").splitlines()
    assert sorted(d["code"] for d in document["diagnostics"]) == sorted(
        line.split(" ", 1)[0] for line in pinned
    )
    assert code == 1
