"""The CLI runs the CMake evaluation in source mode through the pipeline (exit codes, JSON)."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

from shiplint.cli import main

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synthpkg"


def _check(repo: Path, out: Path) -> tuple[int, list[dict[str, object]]]:
    argv = [
        "check", "--root", str(repo), "--manifest", str(repo / "shiplint.yaml"),
        "--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)),
        "--select", "SL1", "--format", "json", "--output", str(out),
    ]  # fmt: skip
    with redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, json.loads(out.read_text(encoding="utf-8"))["diagnostics"]


def test_clean_source_config_passes(tmp_path: Path) -> None:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    code, diagnostics = _check(repo, tmp_path / "report.json")
    assert (code, diagnostics) == (0, [])


def test_opt_in_in_the_legacy_list_fails_the_run(tmp_path: Path) -> None:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    config = repo / "cmake" / "synth-config.cmake.in"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(
            "synth_core synth_ops synth_gpu)", "synth_core synth_ops synth_gpu synth_extra)"
        ),
        encoding="utf-8",
    )
    code, diagnostics = _check(repo, tmp_path / "report.json")
    assert code == 1
    sl101 = [d for d in diagnostics if d["code"] == "SL101"]
    # Linux and macOS, both on the legacy route only.
    assert [d["subject"] for d in sl101] == [
        {"component": "extra", "variable": "SYNTH_LIBS", "cmake_version": OLD_CMAKE_VERSION},
    ] * 2
    assert all(d["location"] == {"path": "cmake/synth-config.cmake.in"} for d in sl101)
