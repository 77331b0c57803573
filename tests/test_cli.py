"""The command line: exit codes, formats, config, and errors without tracebacks."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from shiplint import cli
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST, REPO

REPORT_SCHEMA = json.loads((REPO / "schemas" / "report.schema.json").read_text())


def validate_report(text: str) -> dict[str, object]:
    document = json.loads(text)
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
    return document  # type: ignore[no-any-return]


def _project(tmp_path: Path, pyproject: str = "") -> Path:
    (tmp_path / "shiplint.yaml").write_text(EXAMPLE_MANIFEST.read_text())
    if pyproject:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    return tmp_path


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("shiplint ")


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("fails", [False, True])
def test_a_command_runs_without_the_cycle_collector_and_restores_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], enabled: bool, fails: bool
) -> None:
    seen: list[bool] = []

    def rules() -> int:
        seen.append(gc.isenabled())
        if fails:
            raise RuntimeError("a defect inside the command")
        return 0

    monkeypatch.setattr(cli, "_rules", rules)
    (gc.enable if enabled else gc.disable)()
    try:
        assert main(["rules"]) == (2 if fails else 0)
        assert seen == [False]
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert ("internal error" in capsys.readouterr().err) is fails


def test_json_report_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    code = main(["check", "--root", str(root), "--format", "json", "--select", "SL0"])
    document = validate_report(capsys.readouterr().out)
    assert code == 0
    assert document["summary"] == {
        "errors": 0,
        "warnings": 0,
        "infos": 0,
        "waived": 0,
        "failing": 0,
        "fail_on": "error",
        "passed": True,
    }


def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    out = tmp_path / "report.json"
    assert (
        main(
            [
                "check",
                "--root",
                str(root),
                "--format",
                "json",
                "--output",
                str(out),
                "--select",
                "SL0",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == ""
    validate_report(out.read_text())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--format", "xml"], "unknown --format 'xml'"),
        (["check", "--no-sources"], "nothing to check"),
        (["check", "--select", "SL9"], "unknown rule code 'SL9'"),
        (["check", "--manifest", "nowhere.yaml"], "nowhere.yaml: no manifest"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    assert main([*argv, "--root", str(root)]) == 2
    assert message in capsys.readouterr().err


def test_missing_artifact_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    assert main(["check", "--root", str(root), "--no-sources", str(tmp_path / "x.whl")]) == 2
    err = capsys.readouterr().err
    assert "x.whl" in err and "Traceback" not in err


def test_config_unknown_key_has_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(
        tmp_path,
        '[project]\nname = "x"\n\n[tool.shiplint]\nselect = ["SL1"]\nfail_on = "warning"\n',
    )
    assert main(["check", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"{root / 'pyproject.toml'}:6:1: unknown key 'fail_on'; did you mean 'fail-on'?" in err


def test_config_unknown_rule_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, '[tool.shiplint]\n\nignore = ["SL0", "XX1"]\n')
    assert main(["check", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml:3:1:" in err and "'XX1'" in err


def test_config_invalid_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path, "[tool.shiplint\n")
    assert main(["check", "--root", str(root)]) == 2
    assert "pyproject.toml:1:" in capsys.readouterr().err


def test_config_sets_manifest_and_fail_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.yaml").write_text(EXAMPLE_MANIFEST.read_text())
    (tmp_path / "pyproject.toml").write_text(
        '[tool.shiplint]\nmanifest = "sub/m.yaml"\nfail-on = "warning"\nselect = ["SL0"]\n'
    )
    assert main(["check", "--root", str(tmp_path), "--format", "json"]) == 0
    document = validate_report(capsys.readouterr().out)
    assert document["summary"]["fail_on"] == "warning"  # type: ignore[index]


def test_python_dash_m_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "shiplint", "rules"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert result.returncode == 0 and "SL001" in result.stdout


def test_unwritable_output_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    out = tmp_path / "no-such-dir" / "report.json"
    assert main(["check", "--root", str(root), "--select", "SL0", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--output {out}: cannot write" in err and "internal error" not in err


@pytest.mark.parametrize("where", ["option", "config"])
def test_fail_on_none_reports_findings_and_passes(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A wheel without the manifest's libraries: real error findings.
    wheel = tmp_path / "executorch-1.0-py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("executorch/README", "nothing linkable\n")
    root = _project(tmp_path, '[tool.shiplint]\nfail-on = "none"\n' if where == "config" else "")
    option = ["--fail-on", "none"] if where == "option" else []
    argv = ["check", "--root", str(root), "--no-sources", "--select", "SL3", "--format", "json"]
    assert main([*argv, *option, str(wheel)]) == 0
    summary: dict[str, Any] = validate_report(capsys.readouterr().out)["summary"]  # type: ignore[assignment]
    assert summary["errors"] > 0
    assert (summary["fail_on"], summary["failing"], summary["passed"]) == ("none", 0, True)
    # Without it the same findings fail the run.
    assert main([*argv, str(wheel)]) == (0 if where == "config" else 1)
