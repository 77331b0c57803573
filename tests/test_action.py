"""The GitHub Action (action.yml + action/*.sh), run step by step in a simulated runner.

The install step really builds shiplint from a snapshot of this working tree into
a private virtual environment (once per session: RUNNER_TEMP is shared, as it is
across the steps of one job); the check step really runs it. Every expectation
about counts is checked against the same run made in-process with the CLI.
"""

from __future__ import annotations

import io
import json
import marshal
import re
import shutil
import zipfile
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from shiplint.cli import main as cli_main
from shiplint.report import reporter

from tests.artifact_libs import pack_wheel
from tests.cache_forgery import entry_bytes, forge, secret_key
from tests.github_actions import ActionRun, load_action, log_commands, run_action
from tests.material import EXAMPLE_MANIFEST
from tests.real_reports import (
    PINNED_CODES,
    cmake_binaries,
    executorch_report,
    real_wheel,
    shared_dir,
)
from tests.repo_snapshot import REPO, snapshot

ACME = REPO / "tests" / "data" / "projects" / "acme"
SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="session")
def action_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("action")
    snapshot(path)
    return path


@pytest.fixture(scope="session")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runner-temp")


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    shutil.copytree(ACME, path)
    return path


def run(action_dir: Path, workspace: Path, runner_temp: Path, **inputs: str) -> ActionRun:
    result = run_action(action_dir, workspace, runner_temp, inputs)
    # Each run gets its own summary file, as each job does on GitHub.
    (runner_temp / "step-summary.md").unlink()
    return result


def direct(workspace: Path, *args: str) -> dict[str, Any]:
    """The same check made in-process: the oracle for the Action's outputs."""
    out = workspace.parent / "direct.json"
    with redirect_stdout(io.StringIO()):
        code = cli_main(
            ["check", "--root", str(workspace), "--format", "json", "--output", str(out), *args]
        )
    assert code in (0, 1)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def annotation_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if re.match(r"^::(error|warning|notice) ", line)]


def sarif_results(path: str) -> list[dict[str, Any]]:
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft4Validator(schema).iter_errors(document))
    assert not errors, errors[0].message
    return list(document["runs"][0]["results"])


def test_action_definition_is_wired() -> None:
    action = load_action(REPO / "action.yml")
    assert action["runs"]["using"] == "composite"
    declared = set(action["inputs"])
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}", text))
    assert used == declared, "every input is used, and only declared inputs are"
    for step in action["runs"]["steps"]:
        if "uses" in step:
            # Only GitHub's cache, and only what the cache step decided (no input).
            assert step["uses"] in ("actions/cache/restore@v4", "actions/cache/save@v4")
            assert "inputs." not in json.dumps(step), step["name"]
            assert "steps.cache.outputs.enabled == 'true'" in step["if"]
            continue
        # Inputs reach scripts through env only: spliced into `run:` they would be code.
        assert "${{" not in step["run"], step["name"]
        script = re.search(r"action/[a-z]+\.sh", step["run"])
        assert script and (REPO / script.group(0)).is_file()
    ids = {step.get("id") for step in action["runs"]["steps"]}
    for name, spec in action["outputs"].items():
        match = re.fullmatch(r"\$\{\{ steps\.([a-z]+)\.outputs\.([a-z-]+) \}\}", spec["value"])
        assert match and match.group(1) in ids and match.group(2) == name


def test_clean_project_passes(action_dir: Path, workspace: Path, runner_temp: Path) -> None:
    result = run(action_dir, workspace, runner_temp)
    assert result.returncode == 0, result.stderr
    assert result.steps == ["install", "cache", "check"]
    assert result.outputs["verdict"] == "passed"
    assert {k: result.outputs[k] for k in ("errors", "warnings", "infos", "waived", "failing")} == {
        "errors": "0",
        "warnings": "0",
        "infos": "0",
        "waived": "0",
        "failing": "0",
    }
    assert direct(workspace)["summary"]["passed"] is True
    assert "shiplint: passed" in result.stdout  # the text report in the log
    assert annotation_lines(result.stdout) == []
    assert result.summary.startswith("## :white_check_mark: shiplint passed")
    assert "No findings." in result.summary
    assert all(result.outputs.values()), f"outputs left unset: {result.outputs}"
    assert result.outputs["sarif-file"] == str(runner_temp / "shiplint.sarif")
    assert sarif_results(result.outputs["sarif-file"]) == []
    # Nothing was written into the workspace.
    assert sorted(p.name for p in workspace.iterdir()) == sorted(p.name for p in ACME.iterdir())


def test_broken_manifest_is_an_error_not_a_pass(
    action_dir: Path, workspace: Path, runner_temp: Path
) -> None:
    manifest = workspace / "shiplint.yaml"
    manifest.write_text(manifest.read_text() + "colour: blue\n")
    result = run(action_dir, workspace, runner_temp)
    assert result.returncode == 2
    assert result.outputs["verdict"] == "error"
    (line,) = (x for x in result.stdout.splitlines() if x.startswith("::error"))
    # An annotation on the manifest line that is wrong, not one on no file.
    lines = manifest.read_text().splitlines()
    assert line.startswith(
        f"::error file=shiplint.yaml,line={len(lines)},col=1,title=shiplint could not check::"
    ), line
    assert "unknown key 'colour'" in line
    assert "## :warning: shiplint could not check" in result.summary
    assert "unknown key 'colour'" in result.summary


def test_unmatched_artifact_glob_fails(
    action_dir: Path, workspace: Path, runner_temp: Path
) -> None:
    result = run(action_dir, workspace, runner_temp, artifacts="dist/*.whl", sources="false")
    assert result.returncode == 2
    assert result.outputs["verdict"] == "error"
    assert "artifacts: 'dist/*.whl' matches no file" in result.stdout


def test_inputs_stay_data(action_dir: Path, workspace: Path, runner_temp: Path) -> None:
    hostile = 'x"; touch pwned; echo "$(touch pwned2)\n::warning::injected'
    result = run(action_dir, workspace, runner_temp, manifest=hostile, args="$(touch pwned3)")
    assert result.returncode == 2
    assert not any(workspace.glob("pwned*"))
    assert result.outputs["verdict"] == "error"
    # A newline in an input cannot start a workflow command of its own in the log.
    assert not any(line.startswith("::warning::") for line in result.stdout.splitlines())
    assert "%0A::warning::injected" in result.stdout


def test_bad_input_values_are_reported(
    action_dir: Path, workspace: Path, runner_temp: Path
) -> None:
    result = run(action_dir, workspace, runner_temp, **{"fail-on": "sometimes"})
    assert result.returncode == 2
    assert "input fail-on: expected error, warning, info or none, got 'sometimes'" in result.stdout


def test_real_wheel_findings_fail_the_step(
    action_dir: Path,
    workspace: Path,
    runner_temp: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # CMakes inside the workspace, named relative to it as a workflow names them.
    for binary, name in zip(cmake_binaries(), ("cmake-3.24", "cmake-4.4"), strict=True):
        (workspace / name).symlink_to(binary.parents[3], target_is_directory=True)
    wheel = real_wheel()
    result = run(
        action_dir,
        workspace,
        runner_temp,
        manifest=str(EXAMPLE_MANIFEST),
        sources="false",
        # A glob, as users write dist/*.whl; expanded by the action, not by a shell.
        artifacts=str(wheel.parent / "executorch-1.5.1-*manylinux_2_28_x86_64.whl"),
        cmake="cmake-3.24/cmake/data/bin/cmake\n./cmake-4.4/cmake/data/bin/cmake",
    )
    assert result.returncode == 1, result.stderr
    # The oracle: the same check made in-process (shared with the SARIF tests).
    oracle = json.loads(
        reporter("json")(executorch_report(shared_dir(tmp_path_factory.getbasetemp())))
    )
    summary = oracle["summary"]
    assert result.outputs["verdict"] == "failed"
    for key in ("errors", "warnings", "infos", "waived", "failing"):
        assert result.outputs[key] == str(summary[key]), key
    assert sum(PINNED_CODES.values()) == len(oracle["diagnostics"])
    # One annotation per finding, in the log; the text report too.
    assert len(annotation_lines(result.stdout)) == len(oracle["diagnostics"])
    assert "shiplint: failed:" in result.stdout
    # SARIF for code scanning: valid, every finding.
    found = sarif_results(result.outputs["sarif-file"])
    assert sorted(r["ruleId"] for r in found) == sorted(d["code"] for d in oracle["diagnostics"])
    # The step summary: verdict, counts, one row per finding.
    assert result.summary.startswith("## :x: shiplint failed")
    errors, warnings = summary["errors"], summary["warnings"]
    assert errors > 1 and warnings > 1  # the real wheel's counts, plural
    assert f"**{errors}** errors · **{warnings}** warnings" in result.summary
    rows = [
        line
        for line in result.summary.splitlines()
        if re.match(r"^\| (error|warning|info) \|", line)
    ]
    assert len(rows) == len(oracle["diagnostics"])


def _wheel_without_library(workspace: Path) -> Path:
    """dist/ holding a wheel that lacks the manifest's library and config: real findings
    (SL114, SL301), cheaply."""
    dist = workspace / "dist"
    dist.mkdir()
    pack_wheel(
        dist / "acme-1.0-py3-none-manylinux_2_28_x86_64.whl",
        {"acme/README": b"nothing linkable\n"},
    )
    return dist


def test_fail_on_none_reports_without_failing(
    action_dir: Path, workspace: Path, runner_temp: Path
) -> None:
    _wheel_without_library(workspace)
    inputs = {"sources": "false", "artifacts": "dist/*.whl", "format": "github"}
    failing = run(action_dir, workspace, runner_temp, **inputs)
    assert failing.returncode == 1
    relaxed = run(action_dir, workspace, runner_temp, **inputs, **{"fail-on": "none"})
    assert relaxed.returncode == 0
    # The verdict is the step's: nothing fails with fail-on none.
    assert (failing.outputs["verdict"], relaxed.outputs["verdict"]) == ("failed", "passed")
    assert (failing.outputs["failing"], relaxed.outputs["failing"]) == ("2", "0")
    for result in (failing, relaxed):
        codes = re.findall(r"title=(SL\d+) ", result.stdout)
        assert sorted(codes) == ["SL114", "SL301"]
        # format=github already prints the annotations: not twice.
        assert len(annotation_lines(result.stdout)) == 2


def test_the_log_can_show_the_picture(action_dir: Path, workspace: Path, runner_temp: Path) -> None:
    _wheel_without_library(workspace)
    inputs = {"sources": "false", "artifacts": "dist/*.whl", "format": "mermaid"}
    result = run(action_dir, workspace, runner_temp, **inputs)
    assert result.returncode == 1 and result.outputs["verdict"] == "failed"
    # The picture of the checked build, then the findings' annotations.
    assert "flowchart" in result.stdout
    assert sorted(re.findall(r"title=(SL\d+) ", result.stdout)) == ["SL114", "SL301"]
    bad = run(action_dir, workspace, runner_temp, format="picture")
    assert bad.returncode == 2
    assert "expected text, json, sarif, github, markdown or mermaid, got 'picture'" in bad.stdout


@pytest.mark.parametrize(
    ("project", "given", "code", "verdict"),
    [
        pytest.param("none", None, 0, "passed", id="project-none"),
        pytest.param("info", None, 1, "failed", id="project-info"),
        pytest.param("none", "error", 1, "failed", id="input-overrides-project"),
    ],
)
def test_fail_on_unset_is_the_projects_setting(
    project: str,
    given: str | None,
    code: int,
    verdict: str,
    action_dir: Path,
    workspace: Path,
    runner_temp: Path,
) -> None:
    dist = _wheel_without_library(workspace)
    (workspace / "pyproject.toml").write_text(f'[tool.shiplint]\nfail-on = "{project}"\n')
    inputs = {"sources": "false", "artifacts": "dist/*.whl"}
    result = run(
        action_dir, workspace, runner_temp, **inputs, **({"fail-on": given} if given else {})
    )
    assert result.returncode == code, result.stdout + result.stderr
    assert result.outputs["verdict"] == verdict
    # The CLI run the same way says the same.
    built = str(dist / "acme-1.0-py3-none-manylinux_2_28_x86_64.whl")
    option = ["--fail-on", given] if given else []
    summary = direct(workspace, "--no-sources", *option, built)["summary"]
    assert summary["passed"] is (verdict == "passed")
    assert summary["fail_on"] == (given or project)


def test_cmake_versions_are_installed_from_pypi_and_used(
    action_dir: Path, tmp_path: Path, runner_temp: Path
) -> None:
    # ExecuTorch's real config as the config source of a project with the example manifest.
    workspace = tmp_path / "executorch"
    (workspace / "tools" / "cmake").mkdir(parents=True)
    shutil.copy(EXAMPLE_MANIFEST, workspace / "shiplint.yaml")
    with zipfile.ZipFile(real_wheel()) as wheel:
        config = wheel.read("executorch/share/cmake/executorch-config.cmake")
    (workspace / "tools" / "cmake" / "executorch-wheel-config.cmake").write_bytes(config)
    # One release keeps the test short; the README shows one per route ("3.24.3 4.4.5").
    # `args` narrows the run to config evaluation: this tree has no CMake sources.
    result = run(
        action_dir, workspace, runner_temp, **{"cmake-versions": "3.24.3", "args": "--select SL1"}
    )
    assert result.returncode == 1, result.stdout + result.stderr
    binary = runner_temp / "shiplint-cmake-3.24.3" / "cmake" / "data" / "bin" / "cmake"
    assert binary.is_file()
    assert "cmake version 3.24.3" in result.stdout
    # The installed CMake evaluated the config: its pre-3.28 route misses the QNN
    # delegate (SL102); with one CMake the 3.28+ route is unchecked, and says so (SL116).
    assert set(re.findall(r"title=(SL\d+) ", result.stdout)) == {"SL102", "SL116"}
    assert "backend_qnn on CMake 3.24.3 (route paths)" in result.stdout


def test_bad_cmake_version_stops_before_installing(
    action_dir: Path, workspace: Path, runner_temp: Path
) -> None:
    result = run(action_dir, workspace, runner_temp, **{"cmake-versions": "3.24.3; rm -rf /"})
    assert result.returncode == 2
    assert result.steps == ["install"]
    assert "cmake-versions: '3.24.3;' is not a version like 3.24.3" in result.stdout


def test_readme_workflow_uses_declared_inputs_and_outputs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (workflow,) = (b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "jobs:" in b)
    steps = yaml.safe_load(workflow)["jobs"]["shiplint"]["steps"]
    action = load_action(REPO / "action.yml")
    # The step that runs the Action is the one the later steps read outputs from.
    (ours,) = (s for s in steps if s.get("id") == "shiplint")
    assert set(ours["with"]) <= set(action["inputs"])
    used = set(re.findall(r"steps\.shiplint\.outputs\.([a-z-]+)", workflow))
    assert used and used <= set(action["outputs"])
    # The documented input table lists every input.
    for name in action["inputs"]:
        assert f"| `{name}` |" in readme


def _wheel_with_hostile_names(workspace: Path) -> Path:
    """dist/ holding a wheel whose member names are workflow commands: a `..` name is an
    unsafe member, and its finding (SL316) quotes the name in full."""
    dist = workspace / "dist"
    dist.mkdir()
    names = [
        # Words of varied lengths before each command: one of them wraps to a line's start.
        "../"
        + "".join(
            "a " * j + "::error title=forged::from a member name " for j in range(1, 14)
        ).strip(),
        "../x ##[stop-commands]pwned",
        "../y ##[error]forged by the old syntax",
    ]
    with zipfile.ZipFile(dist / "acme-1.0-py3-none-manylinux_2_28_x86_64.whl", "w") as wheel:
        wheel.writestr("acme/README", "nothing linkable\n")
        for name in names:
            wheel.writestr(name, "x")
    return dist


@pytest.mark.parametrize("log_format", ["text", "markdown", "json"])
def test_names_in_the_log_are_never_workflow_commands(
    action_dir: Path, workspace: Path, runner_temp: Path, log_format: str
) -> None:
    _wheel_with_hostile_names(workspace)
    result = run(action_dir, workspace, runner_temp, artifacts="dist/*.whl", format=log_format)
    assert result.returncode == 1, result.stderr
    oracle = direct(
        workspace, str(workspace / "dist" / "acme-1.0-py3-none-manylinux_2_28_x86_64.whl")
    )
    found = oracle["diagnostics"]
    assert sum(d["code"] == "SL316" for d in found) == 3
    # The hostile names reached the log (the report quotes them)...
    assert "##[stop-commands]pwned" in result.stdout
    if log_format == "text":
        assert re.search(r"^\s*::error title=forged::", result.stdout, re.M)
    # ...yet the runner obeys exactly one annotation per finding, none forged, none swallowed.
    commands = log_commands(result.stdout + result.stderr)
    annotations = [c for c in commands if c.name in ("error", "warning", "notice")]
    assert len(annotations) == len(found)
    assert not any(c.data.startswith("from a member name") for c in annotations)
    assert not any(c.data.startswith("forged") for c in annotations)


def _saved(service: Path) -> list[Path]:
    return sorted(service.iterdir())


def _cached_run(
    action_dir: Path, workspace: Path, runner_temp: Path, service: Path, **inputs: str
) -> tuple[ActionRun, list[str]]:
    inputs = {"sources": "false", "artifacts": "dist/*.whl", **inputs}
    result = run_action(action_dir, workspace, runner_temp, inputs, cache_service=service)
    (runner_temp / "step-summary.md").unlink()
    return result, sorted(re.findall(r"title=(SL\d+) ", result.stdout))


def test_the_cache_is_kept_between_runs_only_with_a_secret(
    action_dir: Path, workspace: Path, runner_temp: Path, tmp_path: Path
) -> None:
    _wheel_without_library(workspace)
    (workspace / "pyproject.toml").write_text('[tool.shiplint]\nfail-on = "error"\n')
    service = tmp_path / "cache-service"
    service.mkdir()
    # No secret (a fork's pull request): nothing restored, nothing saved, a cold run.
    found: list[str] = []
    for _ in range(2):
        cold, codes = _cached_run(action_dir, workspace, runner_temp, service)
        # The wheel lacks the manifest's library and config (SL114, SL301, and whatever
        # else a wheel without them is found to miss): every later run must find the same.
        found = found or codes
        assert {"SL114", "SL301"} <= set(codes) and codes == found
        assert cold.returncode == 1
        assert cold.steps == ["install", "cache", "check"]
        assert "no cache-secret given" in cold.stdout
        assert _saved(service) == []
    secret = "the repository's secret"
    first, codes = _cached_run(
        action_dir, workspace, runner_temp, service, **{"cache-secret": secret}
    )
    assert (first.returncode, codes) == (1, found)
    assert first.steps == ["install", "cache", "restore", "check", "save"]
    (archive,) = _saved(service)
    assert archive.name.startswith("shiplint-cache-")
    assert not (archive / ".key").exists()  # the secret is the key: none travels
    (table,) = (archive / "pyproject-table").iterdir()
    second, codes = _cached_run(
        action_dir, workspace, runner_temp, service, **{"cache-secret": secret}
    )
    assert (second.returncode, codes) == (1, found)
    assert len(_saved(service)) == 2  # restored from the first, saved under its own run

    # What a forger planted in the kept cache: a table that hides every finding.
    hiding = marshal.dumps({"fail-on": "error", "ignore": ["SL"]})
    for archive in _saved(service):
        forge("pyproject-table", table.name, hiding, root=archive)
    forged, codes = _cached_run(
        action_dir, workspace, runner_temp, service, **{"cache-secret": secret}
    )
    assert (forged.returncode, codes) == (1, found)

    # The same table authenticated with the secret (as a run holding it would have
    # kept it) is restored and used: the check above failed for want of the secret only.
    for archive in _saved(service):
        path = archive / "pyproject-table" / table.name
        path.write_bytes(entry_bytes("pyproject-table", table.name, hiding, secret_key(secret)))
    trusted, codes = _cached_run(
        action_dir, workspace, runner_temp, service, **{"cache-secret": secret}
    )
    assert (trusted.returncode, codes) == (0, [])
    # A fork's pull request (no secret) never restores it; under another secret it is
    # restored and does not verify.
    for inputs in ({}, {"cache-secret": "a guess"}):
        other, codes = _cached_run(action_dir, workspace, runner_temp, service, **inputs)
        assert (other.returncode, codes) == (1, found)
