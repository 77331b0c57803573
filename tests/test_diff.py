"""`shiplint diff` on real builds: ExecuTorch 1.4.1 -> 1.5.1, and broken copies of 1.5.1."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST, REPO, cmake, wheel

DIFF_SCHEMA = json.loads((REPO / "schemas" / "diff.schema.json").read_text())
X86 = "manylinux_2_28_x86_64"
LIB = "executorch/lib/"
CONFIG = "executorch/share/cmake/executorch-config.cmake"


def _diff(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any]]:
    """Exit code and the JSON diff, validated against its schema."""
    code = main(["diff", "--format", "json", *map(str, args)])
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, DIFF_SCHEMA)
    assert document["breaking"] is (code == 1)
    return code, document


def _changes(document: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {c["subject"]: c for c in document["changes"] if c["kind"] == kind}


def _copy(tmp_path: Path, change: Callable[[str, bytes], bytes | None]) -> Path:
    """A copy of the real 1.5.1 x86_64 wheel with `change(name, data)` applied (None drops
    the member), under the original's name so both sides carry one label."""
    tmp_path.mkdir(exist_ok=True)
    source = wheel("1.5.1", X86)
    target = tmp_path / source.name
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for info in original.infolist():
            data = change(info.filename, original.read(info))
            if data is not None:
                copy.writestr(info.filename, data)
    return target


def _cmakes() -> list[str]:
    return [f"--cmake={cmake('3.24.3')}", f"--cmake={cmake('4.4.5')}"]


def test_1_4_1_to_1_5_1_binaries(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = _diff(capsys, wheel("1.4.1", X86), wheel("1.5.1", X86))
    assert code == 1
    added = _changes(document, "library-added")
    assert "executorch/lib/libexecutorch.so" in added
    assert "executorch/extension/pybindings/_C.cpython-311-x86_64-linux-gnu.so" in added
    # The QNN backend moved to lib/ under the package's naming: a rename, SONAME included.
    renamed = _changes(document, "library-renamed")
    assert renamed["executorch/backends/qualcomm/libqnn_executorch_backend.so"]["names"] == [
        "executorch/backends/qualcomm/libqnn_executorch_backend.so",
        "executorch/lib/libexecutorch_backend_qnn.so",
    ]
    assert _changes(document, "soname-changed")["executorch/lib/libexecutorch_backend_qnn.so"][
        "names"
    ] == ["libqnn_executorch_backend.so", "libexecutorch_backend_qnn.so"]
    assert set(_changes(document, "library-removed")) == {
        "executorch/extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so"
    }
    # The runtime each extension linked in statically now comes from libexecutorch.so,
    # which it NEEDs: moved, not removed.
    loader = "executorch/extension/pybindings/data_loader.cpython-311-x86_64-linux-gnu.so"
    assert _changes(document, "symbols-moved")[loader]["count"] == 51
    assert loader not in _changes(document, "symbols-removed")
    assert "libexecutorch.so" in _changes(document, "needed-gained")[loader]["names"]
    # Breaking first.
    flags = [c["breaking"] for c in document["changes"]]
    assert flags == sorted(flags, reverse=True)


def test_1_4_1_to_1_5_1_config_per_route(capsys: pytest.CaptureFixture[str]) -> None:
    code, document = _diff(
        capsys,
        "--manifest",
        EXAMPLE_MANIFEST,
        *_cmakes(),
        wheel("1.4.1", X86),
        wheel("1.5.1", X86),
    )
    assert code == 1
    # The headline: the aggregate lost the Python extension and gained the SDK's components.
    assert document["changes"][0]["kind"] == "aggregate-left"
    left = [(c["route"], c["names"]) for c in document["changes"] if c["kind"] == "aggregate-left"]
    assert left == [("paths", ["_portable_lib"]), ("targets", ["_portable_lib"])]
    entered = {
        (c["route"], c["names"][0]) for c in document["changes"] if c["kind"] == "aggregate-entered"
    }
    assert ("targets", "backend_qnn") in entered
    # CMake < 3.28 leaves backend_qnn out of the aggregate (the real route drift).
    assert ("paths", "backend_qnn") not in entered
    assert ("paths", "runtime") in entered
    targets = {c["subject"] for c in document["changes"] if c["kind"] == "target-added"}
    assert "executorch::kernels_quantized" in targets
    # 1.4.1's config accepts any component name, so none counts as removed.
    assert not _changes(document, "component-removed")
    # With the manifest, libraries are named as it names them.
    assert {"executorch", "_C"} <= set(_changes(document, "library-added"))
    # The opt-in's own variable is new with the component it names.
    variable = _changes(document, "component-variable-added")[
        "EXECUTORCH_QUANTIZED_KERNELS_LIBRARY"
    ]
    assert (variable["route"], variable["names"]) == ("targets", ["kernels_quantized"])
    # The operators the Python extension registered moved into the shared libraries:
    # removed from the extension, which is gone, and new in libexecutorch.so and the kernels.
    removed = {
        c["names"][0].split("::")[0]: c["count"]
        for c in document["changes"]
        if c["kind"] == "operators-removed" and "_portable_lib" in c["subject"]
    }
    assert removed == {"aten": 210, "dim_order_ops": 3, "et_copy": 2, "executorch_prim": 25}
    added = {
        (c["subject"], c["names"][0].split("::")[0]): c["count"]
        for c in document["changes"]
        if c["kind"] == "operators-added"
    }
    assert added[("executorch", "executorch_prim")] == 25
    assert added[("executorch_kernels_optimized", "aten")] == 207
    assert added[("executorch_kernels_quantized", "quantized_decomposed")] == 19
    # An extension that now loads libexecutorch.so still registers the primitives.
    moved = [c for c in document["changes"] if c["kind"] == "operators-moved"]
    assert moved and all(not c["breaking"] for c in moved)


def test_quantized_library_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = _copy(
        tmp_path / "new",
        lambda name, data: None if name == f"{LIB}libexecutorch_kernels_quantized.so" else data,
    )
    code, document = _diff(
        capsys, "--manifest", EXAMPLE_MANIFEST, *_cmakes(), wheel("1.5.1", X86), copy
    )
    assert code == 1
    kinds = [(c["kind"], c["subject"], c.get("route")) for c in document["changes"]]
    assert kinds == [
        ("library-removed", "executorch_kernels_quantized", None),
        ("component-removed", "kernels_quantized", "targets"),
        ("target-removed", "executorch::kernels_quantized", "targets"),
        ("operators-removed", "executorch_kernels_quantized", None),
        ("component-variable-removed", "EXECUTORCH_QUANTIZED_KERNELS_LIBRARY", "targets"),
        # The ahead-of-time quantized ops library NEEDs it and nothing in the wheel has it.
        ("external-gained", "libexecutorch_kernels_quantized.so", None),
    ]
    operators = _changes(document, "operators-removed")["executorch_kernels_quantized"]
    assert operators["count"] == 19
    assert "19 quantized_decomposed operators" in operators["message"]
    assert all(name.startswith("quantized_decomposed::") for name in operators["names"])
    # On CMake < 3.28 the config publishes no component of either build (its request for
    # them fails): said on both sides, compared on neither, and no regression.
    assert [(p["side"], p["route"], p["regressed"]) for p in document["problems"]] == [
        ("old", "paths", False),
        ("new", "paths", False),
    ]
    assert document["problems"][1]["location"]["member"] == CONFIG


def test_a_route_whose_joint_request_fails_claims_no_removal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A config that refuses every component as soon as two are asked for together: the
    # request for everything the wheel ships fails on both routes.
    planted = (
        b"list(LENGTH executorch_FIND_COMPONENTS _planted_count)\n"
        b"if(_planted_count GREATER 1)\n"
        b"  foreach(_planted ${executorch_FIND_COMPONENTS})\n"
        b"    set(executorch_${_planted}_FOUND FALSE)\n"
        b"  endforeach()\n"
        b"  set(executorch_FOUND FALSE)\n"
        b'  set(executorch_NOT_FOUND_MESSAGE "components asked for together are refused")\n'
        b"endif()\n"
    )
    marker = b"if(NOT executorch_FOUND AND executorch_FIND_REQUIRED)"

    def refuse_together(name: str, data: bytes) -> bytes:
        if name != CONFIG:
            return data
        assert data.count(marker) == 1
        return data.replace(marker, planted + marker)

    copy = _copy(tmp_path / "new", refuse_together)
    code, document = _diff(
        capsys, "--manifest", EXAMPLE_MANIFEST, *_cmakes(), wheel("1.5.1", X86), copy
    )
    # The targets route worked and fails now: exit 1, with no component called removed.
    assert code == 1
    assert document["changes"] == []
    problems = [(p["side"], p["route"], p["regressed"]) for p in document["problems"]]
    assert ("new", "targets", True) in problems
    failed = next(p for p in document["problems"] if p["regressed"])
    assert failed["location"] == {"path": str(copy), "member": CONFIG}
    assert "components asked for together are refused" in failed["message"]
    main(
        [
            "diff",
            "--manifest",
            str(EXAMPLE_MANIFEST),
            *_cmakes(),
            str(wheel("1.5.1", X86)),
            str(copy),
        ]
    )
    text = capsys.readouterr().out
    assert f"{copy}!/{CONFIG}: new build, linux-x86_64, route targets:" in text
    assert "component-removed" not in text


def test_soname_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def rename(name: str, data: bytes) -> bytes:
        if name != f"{LIB}libexecutorch_threadpool.so":
            return data
        # Same length, so the dynamic string table keeps its layout.
        old, new = b"\0libexecutorch_threadpool.so\0", b"\0libexecutorch_threadpoo1.so\0"
        assert data.count(old) == 1
        return data.replace(old, new)

    code, document = _diff(capsys, wheel("1.5.1", X86), _copy(tmp_path / "new", rename))
    assert code == 1
    assert [(c["kind"], c["subject"], c["names"]) for c in document["changes"]] == [
        (
            "soname-changed",
            f"{LIB}libexecutorch_threadpool.so",
            ["libexecutorch_threadpool.so", "libexecutorch_threadpoo1.so"],
        )
    ]


def test_identical_builds(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", str(wheel("1.5.1", X86)), str(wheel("1.5.1", X86))])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[-1] == "no changes"
    code, document = _diff(capsys, wheel("1.5.1", X86), wheel("1.5.1", X86))
    assert (code, document["changes"]) == (0, [])


def test_platforms_are_paired_and_a_lost_one_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both, one = tmp_path / "both", tmp_path / "one"
    for folder, platforms in ((both, (X86, "manylinux_2_28_aarch64")), (one, (X86,))):
        folder.mkdir()
        for platform in platforms:
            (folder / wheel("1.5.1", platform).name).symlink_to(wheel("1.5.1", platform))
    code, document = _diff(capsys, both, one)
    assert code == 1
    assert [(c["kind"], c["platform"]) for c in document["changes"]] == [
        ("platform-removed", "linux-aarch64")
    ]
    code, document = _diff(capsys, one, both)
    assert code == 0
    assert [(c["kind"], c["platform"]) for c in document["changes"]] == [
        ("platform-added", "linux-aarch64")
    ]


def test_markdown_leads_with_the_breaking_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(
        tmp_path / "new",
        lambda name, data: None if name == f"{LIB}libexecutorch_etdump.so" else data,
    )
    code = main(["diff", "--format", "markdown", str(wheel("1.5.1", X86)), str(copy)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.index("### Breaking") < out.index("libexecutorch_etdump.so")
    assert "| linux-x86_64 | library-removed |" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.whl", "{wheel}"], "missing.whl"),
        (["--format", "sarif", "{wheel}", "{wheel}"], "unknown --format 'sarif'"),
        (["--cmake", "cmake", "{wheel}", "{wheel}"], "--cmake needs --manifest"),
        (["--manifest", "nowhere.yaml", "{wheel}", "{wheel}"], "nowhere.yaml"),
        (["empty", "{wheel}"], "empty: no wheel, archive or shared library to compare"),
    ],
)
def test_bad_input_is_exit_2_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (tmp_path / "empty").mkdir()
    given = [a.format(wheel=wheel("1.5.1", X86)) for a in args]
    # The named inputs live in tmp_path (the missing ones are never created).
    local = {"missing.whl", "empty", "nowhere.yaml"}
    code = main(["diff", *[str(tmp_path / a) if a in local else a for a in given]])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err
    assert "Traceback" not in captured.err and not captured.out
