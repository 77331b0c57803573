"""The whole tool on the real ExecuTorch wheels, as a user runs it before a release.

`shiplint check --no-sources` with the example manifest and one CMake per route,
through `main()`, on every real wheel: the JSON report validates against its
schema, the exit code is the verdict, and the full report (every area at once) is
pinned in tests/golden/full/. Each finding is explained in docs/findings/ (one
page per area; docs/findings/README.md is the overview). Regenerate on purpose with
`SHIPLINT_UPDATE_GOLDEN=1 python -m pytest tests/test_end_to_end.py` and review
the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from shiplint.cli import main

from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    portable,
    wheel,
)

GOLDEN = REPO / "tests" / "golden" / "full"
REPORT_SCHEMA = json.loads((REPO / "schemas" / "report.schema.json").read_text())

WHEELS = [
    ("1.5.1", "manylinux_2_28_x86_64"),
    ("1.5.1", "manylinux_2_28_aarch64"),
    ("1.5.1", "macosx_14_0_arm64"),
    ("1.5.1", "win_amd64"),
    ("1.4.1", "manylinux_2_28_x86_64"),
]


def _line(d: dict[str, Any]) -> str:
    """One finding per line: stable, reviewable, every field a user sees."""
    location = dict(d["location"])
    if "member" in location:
        location["path"] += "!/" + location.pop("member")
    where = portable(
        ":".join(str(location[k]) for k in ("path", "line", "column") if k in location)
    )
    subject = ",".join(f"{k}={v}" for k, v in sorted(d["subject"].items()))
    waived = f" (waived: {d['waived']['reason']})" if "waived" in d else ""
    return f"{d['code']} {d['severity']} {where} [{subject}] {d['message']}{waived}"


def _run(path: Path, output: Path) -> tuple[int, dict[str, Any]]:
    code = main(
        [
            "check",
            "--no-sources",
            "--manifest",
            str(EXAMPLE_MANIFEST.relative_to(REPO)),
            "--root",
            str(REPO),
            "--cmake",
            str(cmake(OLD_CMAKE_VERSION)),
            "--cmake",
            str(cmake(NEW_CMAKE_VERSION)),
            "--format",
            "json",
            "--output",
            str(output),
            str(path),
        ]
    )
    document = json.loads(output.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
    return code, document


@pytest.mark.parametrize(("version", "platform"), WHEELS)
def test_full_report_on_real_wheel(
    version: str, platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    code, document = _run(wheel(version, platform), tmp_path / "report.json")
    lines = [_line(d) for d in document["diagnostics"]]
    for d in document["diagnostics"]:
        # The location names the wheel and the member; a message that names them again only
        # lengthens the line.
        assert wheel(version, platform).name not in d["message"], d
        assert d["location"].get("member", "\0") not in d["message"], d
    golden = GOLDEN / f"executorch-{version}-{platform}.txt"
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert golden.is_file(), f"no golden report {golden}; run with SHIPLINT_UPDATE_GOLDEN=1"
    assert lines == golden.read_text(encoding="utf-8").splitlines()
    summary = document["summary"]
    assert code == (0 if summary["passed"] else 1)
    assert summary["errors"] == sum(1 for d in document["diagnostics"] if d["severity"] == "error")


def test_the_core_promise_holds_on_both_routes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kernels_quantized stays out of EXECUTORCH_LIBRARIES on 1.5.1, on both routes, while the
    real defect of the old route (QNN left out of its hand-kept list) is reported."""
    monkeypatch.chdir(REPO)
    code, document = _run(wheel("1.5.1", "manylinux_2_28_x86_64"), tmp_path / "r.json")
    codes = {(d["code"], d["subject"].get("cmake_version")) for d in document["diagnostics"]}
    assert not any(c == "SL101" for c, _ in codes)
    assert ("SL102", OLD_CMAKE_VERSION) in codes and ("SL102", NEW_CMAKE_VERSION) not in codes
    assert not any(c == "SL116" for c, _ in codes)  # both routes were evaluated
    assert code == 1
