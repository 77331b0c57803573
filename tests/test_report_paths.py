"""A finding inside an artifact names the artifact's path, not only its file name.

A wheel given as `dist/x.whl` is reported as `dist/x.whl!/<member>` in text, as
`path` + `member` in JSON and as the `dist/x.whl` repository file in SARIF: the
file exists under the root, so code scanning and a reader can find it. A wheel
outside the root is named by its absolute path.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST

WHEEL = "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
# The example manifest requires the runtime library; this wheel does not ship it.
RUNTIME = "executorch/lib/libexecutorch.so"


def _wheel(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / WHEEL
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("executorch/__init__.py", "")
    return path


def _check(root: Path, artifact: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    argv = ["check", "--no-sources", "--root", str(root), "--select", "SL301"]
    argv += ["--manifest", str(EXAMPLE_MANIFEST), "--format", fmt, artifact]
    assert main(argv) == 1
    return capsys.readouterr().out


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    _wheel(root / "dist")
    monkeypatch.chdir(root)
    return root


def _runtime_json(out: str) -> dict[str, str]:
    (finding,) = [
        d for d in json.loads(out)["diagnostics"] if d["subject"].get("library") == "executorch"
    ]
    return dict(finding["location"])


def test_text_names_the_wheel_by_its_path_under_the_root(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _check(repo, f"dist/{WHEEL}", "text", capsys)
    assert f"\ndist/{WHEEL}!/{RUNTIME}: SL301" in "\n" + out


def test_json_gives_the_path_and_the_member(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _check(repo, f"dist/{WHEEL}", "json", capsys)
    assert _runtime_json(out) == {"path": f"dist/{WHEEL}", "member": RUNTIME}


def test_sarif_points_at_the_wheel_file_in_the_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _check(repo, f"dist/{WHEEL}", "sarif", capsys)
    results = json.loads(out)["runs"][0]["results"]
    (runtime,) = [r for r in results if r["properties"]["subject"].get("library") == "executorch"]
    location = runtime["locations"][0]
    assert location["physicalLocation"]["artifactLocation"] == {
        "uri": f"dist/{WHEEL}",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["logicalLocations"][0]["fullyQualifiedName"] == f"dist/{WHEEL}!/{RUNTIME}"
    assert (repo / "dist" / WHEEL).is_file()


def test_an_absolute_path_under_the_root_is_made_relative(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = _check(repo, str(repo / "dist" / WHEEL), "json", capsys)
    assert _runtime_json(out)["path"] == f"dist/{WHEEL}"


def test_a_wheel_outside_the_root_is_named_by_its_absolute_path(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = _wheel(tmp_path / "elsewhere")
    out = _check(repo, f"../elsewhere/{WHEEL}", "json", capsys)
    assert _runtime_json(out)["path"] == str(outside)
