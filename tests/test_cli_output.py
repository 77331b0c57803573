"""How `shiplint check` prints its text report: --statistics, --quiet, and colour.

A project holding only the example manifest is a cheap real run with findings:
sources-only (`--select SL2`), every build target the manifest names is undefined.
Colour is checked on a real pseudo-terminal and through real pipes, as a user's
shell and CI see it.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST, REPO

ANSI = re.compile(r"\x1b\[[0-9;]*m")
RED_ERROR = "\x1b[1;31m[error]\x1b[0m"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "shiplint.yaml").write_text(EXAMPLE_MANIFEST.read_text())
    return tmp_path


def _check(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["check", "--root", str(root), "--select", "SL2", *extra])
    return code, capsys.readouterr().out


def _counts_by_code(root: Path, capsys: pytest.CaptureFixture[str]) -> Counter[str]:
    _, out = _check(root, capsys, "--format", "json")
    return Counter(d["code"] for d in json.loads(out)["diagnostics"])


def test_statistics_closes_the_report_with_one_row_per_rule(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = _counts_by_code(root, capsys)
    code, out = _check(root, capsys, "--statistics")
    assert code == 1
    lines = out.splitlines()
    assert lines[-1].startswith("shiplint: failed: ")
    table = lines[-1 - len(counts) : -1]
    rows = [re.fullmatch(r"\s*(\d+)  (SL\d{3})  ([a-z0-9-]+)", row) for row in table]
    assert all(rows), table
    assert {m[2]: int(m[1]) for m in rows if m} == dict(counts)
    # Most frequent first, and the findings themselves are still above the table.
    assert [int(m[1]) for m in rows if m] == sorted(counts.values(), reverse=True)
    assert lines[-2 - len(counts)] == "" and ": SL201 [error]" in out


def test_quiet_prints_only_the_summary_line(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _check(root, capsys, "--quiet")
    assert code == 1
    assert out.count("\n") == 1 and out.startswith("shiplint: failed: ")
    code, out = _check(root, capsys, "-q", "--statistics")
    assert code == 1
    assert "SL201 [error]" not in out and re.search(r"^\s*\d+  SL201  ", out, re.M)
    assert out.splitlines()[-1].startswith("shiplint: failed: ")


@pytest.mark.parametrize("flag", ["--statistics", "--quiet"])
def test_text_only_options_with_a_machine_format_are_usage_errors(
    root: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    assert main(["check", "--root", str(root), "--format", "json", flag]) == 2
    assert f"{flag} shape the text report; --format json" in capsys.readouterr().err


def _shiplint(root: Path, env: dict[str, str], *extra: str) -> str:
    """The text report of a real process writing into a pipe."""
    done = subprocess.run(
        [sys.executable, "-m", "shiplint", "check", "--root", str(root), "--select", "SL2", *extra],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 1, done.stderr
    return done.stdout


def _on_a_terminal(root: Path, env: dict[str, str]) -> str:
    """The text report of a real process whose stdout is a pseudo-terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "shiplint", "check", "--root", str(root), "--select", "SL2"],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TERM": "xterm", **env},
        cwd=REPO,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the terminal's other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait() == 1
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_colour_on_a_terminal_and_never_in_a_pipe(root: Path) -> None:
    plain = _shiplint(root, {})
    assert "\x1b[" not in plain
    coloured = _on_a_terminal(root, {})
    assert RED_ERROR in coloured and "\x1b[1mSL201\x1b[0m" in coloured
    # Colour only paints: without it the terminal reads the same report.
    assert ANSI.sub("", coloured) == plain


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({"NO_COLOR": "1"}, False),
        ({"NO_COLOR": ""}, True),  # set but empty: no-color.org says it does not count
        ({"TERM": "dumb"}, False),
    ],
)
def test_no_color_on_a_terminal(root: Path, env: dict[str, str], coloured: bool) -> None:
    assert (RED_ERROR in _on_a_terminal(root, env)) is coloured


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({"FORCE_COLOR": "1"}, True),
        ({"FORCE_COLOR": ""}, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_force_color_in_a_pipe(root: Path, env: dict[str, str], coloured: bool) -> None:
    assert (RED_ERROR in _shiplint(root, env)) is coloured


def test_output_file_is_never_coloured(root: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    assert _shiplint(root, {"FORCE_COLOR": "1"}, "--output", str(report)) == ""
    text = report.read_text()
    assert "SL201 [error]" in text and "\x1b[" not in text
