"""Run a composite action's steps the way the GitHub runner does, on this machine.

Just enough of the runner to exercise `action.yml` for real: `${{ }}` expressions
for inputs (with their defaults), `github.*`, `runner.*` and step outputs;
each `run:` step in `bash --noprofile --norc -eo pipefail` with its `env:`, a
fresh GITHUB_OUTPUT file per step, one GITHUB_STEP_SUMMARY for the job, and the
workspace as the working directory. A step's `if:` (`always()`, `==`, `!=`, `&&`)
decides whether it runs; without one it runs while no step has failed.
`actions/cache/restore` and `actions/cache/save` keep directories in a local
cache service (a directory per key; the newest matching a restore prefix is
restored). An expression it does not know fails the test rather than being left
in place.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_RUN_IDS = itertools.count(1000)


@dataclass
class ActionRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    # The id of each step that ran, in order; the last one is where it stopped.
    steps: list[str] = field(default_factory=list)


def load_action(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def parse_output_file(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT syntax: `key=value` lines and `key<<DELIM` ... `DELIM` blocks."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[key] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if line:
            key, _, value = line.partition("=")
            out[key] = value
        i += 1
    return out


def run_action(
    action_dir: Path,
    workspace: Path,
    runner_temp: Path,
    inputs: dict[str, str],
    *,
    extra_env: dict[str, str] | None = None,
    cache_service: Path | None = None,
) -> ActionRun:
    action = load_action(action_dir / "action.yml")
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    values.update(inputs)
    summary = runner_temp / "step-summary.md"
    summary.touch()
    context: dict[str, str] = {
        "github.action_path": str(action_dir),
        "github.workspace": str(workspace),
        "runner.temp": str(runner_temp),
        **{f"inputs.{k}": v for k, v in values.items()},
    }
    base_env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(runner_temp)),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_RUN_ID": str(next(_RUN_IDS)),
        "GITHUB_RUN_ATTEMPT": "1",
        **(extra_env or {}),
    }
    service = cache_service or Path(tempfile.mkdtemp(prefix="actions-cache-"))
    stdout, stderr, ran = [], [], []
    returncode = 0
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        if not condition(step.get("if"), context, failed=returncode != 0):
            continue
        ran.append(step_id)
        if "uses" in step:
            with_ = {k: substitute(str(v), context) for k, v in step.get("with", {}).items()}
            for key, value in use_cache(step["uses"], with_, service).items():
                context[f"steps.{step_id}.outputs.{key}"] = value
            continue
        output_file = runner_temp / f"output-{step_id}"
        output_file.write_text("")
        env = {
            **base_env,
            "GITHUB_OUTPUT": str(output_file),
            **{k: substitute(str(v), context) for k, v in step.get("env", {}).items()},
        }
        script = runner_temp / f"step-{step_id}.sh"
        script.write_text(substitute(step["run"], context), encoding="utf-8")
        assert step.get("shell") == "bash", "every step names its shell"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        stdout.append(done.stdout)
        stderr.append(done.stderr)
        for key, value in parse_output_file(output_file.read_text()).items():
            context[f"steps.{step_id}.outputs.{key}"] = value
        if done.returncode != 0 and returncode == 0:
            returncode = done.returncode
    outputs = {
        name: substitute(str(spec["value"]), context, missing="")
        for name, spec in action.get("outputs", {}).items()
    }
    return ActionRun(
        returncode, "".join(stdout), "".join(stderr), outputs, summary.read_text(), ran
    )


def substitute(text: str, context: dict[str, str], missing: str | None = None) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in context:
            return context[name]
        # A step output that was never set is empty, as on GitHub.
        if missing is not None and name.startswith("steps."):
            return missing
        raise AssertionError(f"expression the simulated runner does not know: {name}")

    return EXPRESSION.sub(value, text)


@dataclass(frozen=True)
class Command:
    name: str
    data: str


def log_commands(log: str) -> list[Command]:
    """The workflow commands the runner obeys in a step's log, as its command manager
    reads each line (actions/runner, ActionCommandManager and ActionCommand): a line
    whose text after leading spaces starts with `::name ...::data` (version 2), or that
    holds `##[name ...]data` anywhere (version 1, still read). After `stop-commands` with
    a token, nothing is a command until a line that is exactly `::token::`."""
    commands: list[Command] = []
    stopped: str | None = None
    for line in log.splitlines():
        if stopped is not None:
            if line.strip() == f"::{stopped}::":
                stopped = None
            continue
        command = _version2(line) or _version1(line)
        if command is None:
            continue
        if command.name == "stop-commands":
            stopped = command.data
            continue
        commands.append(command)
    return commands


def _version2(line: str) -> Command | None:
    text = line.lstrip()
    if not text.startswith("::"):
        return None
    end = text.find("::", 2)
    if end < 0:
        return None
    name = text[2:end].split(" ", 1)[0]
    return Command(name, text[end + 2 :]) if name in _REGISTERED else None


def _version1(line: str) -> Command | None:
    start = line.find("##[")
    close = line.find("]", start)
    if start < 0 or close < 0:
        return None
    name = line[start + 3 : close].split(" ", 1)[0]
    return Command(name, line[close + 1 :]) if name in _REGISTERED else None


# The commands the runner registers (the ones a forged line could use).
_REGISTERED = {
    "error", "warning", "notice", "debug", "group", "endgroup", "add-mask", "stop-commands",
    "echo", "add-matcher", "remove-matcher", "set-output", "save-state", "set-env", "add-path",
}  # fmt: skip


def condition(text: str | None, context: dict[str, str], failed: bool) -> bool:
    """A step's `if:`: terms joined by `&&`, each `always()` or `a == b` / `a != b` over
    context names and quoted strings; without `always()` the step also needs no failure."""
    if text is None:
        return not failed
    text = EXPRESSION.sub(lambda m: m.group(1), text.strip())
    ok = True
    always = False
    for term in (t.strip() for t in text.split("&&")):
        if term == "always()":
            always = True
            continue
        match = re.fullmatch(r"(\S+)\s*(==|!=)\s*(\S+)", term)
        assert match, f"condition the simulated runner does not know: {term}"
        left, right = operand(match.group(1), context), operand(match.group(3), context)
        ok = ok and ((left == right) if match.group(2) == "==" else (left != right))
    return ok and (always or not failed)


def operand(text: str, context: dict[str, str]) -> str:
    if text.startswith("'") and text.endswith("'"):
        return text[1:-1]
    if text in context or text.startswith("steps."):
        return context.get(text, "")  # an output never set is empty
    raise AssertionError(f"expression the simulated runner does not know: {text}")


def use_cache(uses: str, with_: dict[str, str], service: Path) -> dict[str, str]:
    """actions/cache/restore and /save against a local service: one directory per key."""
    name, _, version = uses.partition("@")
    assert version == "v4", uses
    path = Path(with_["path"])
    if name == "actions/cache/restore":
        exact = service / with_["key"]
        prefixes = [p for p in with_.get("restore-keys", "").splitlines() if p]
        hit: Path | None = None
        if exact.is_dir():
            hit = exact
        else:
            matches = [d for d in service.iterdir() if any(d.name.startswith(p) for p in prefixes)]
            if matches:
                hit = max(matches, key=lambda d: d.stat().st_mtime_ns)
        if hit is None:
            return {"cache-hit": "false"}
        shutil.copytree(hit, path, symlinks=True, dirs_exist_ok=True)
        return {"cache-hit": str(hit == exact).lower(), "cache-matched-key": hit.name}
    assert name == "actions/cache/save", uses
    target = service / with_["key"]
    if path.is_dir() and not target.exists():
        shutil.copytree(path, target, symlinks=True)
    return {}
