"""The whole CLI under faults from outside: SIGINT and SIGTERM in the middle of a config
evaluation, a closed or full standard output, and text that would drive a terminal."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from shiplint.diagnostics import Finding, Location, Subject
from shiplint.engine import stamp

from tests.material import REPO

ACME = REPO / "tests" / "data" / "projects" / "acme"


def _env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": str(REPO / "linter"), "TMPDIR": str(tmp_path / "tmp")}


def _sleeping_tree(tmp_path: Path, marker: str) -> Path:
    tree = tmp_path / "tree"
    (tree / "acme" / "share" / "cmake").mkdir(parents=True)
    (tree / "acme" / "lib").mkdir(parents=True)
    (tree / "acme" / "share" / "cmake" / "acme-config.cmake").write_text(
        f"execute_process(COMMAND sleep {marker})\n"
    )
    return tree


def _with_marker(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if entry.name.isdigit() and f"sleep {marker}" in command:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_evaluation_ends_the_run_and_everything_it_started(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    marker = f"{500 + uuid.uuid4().int % 400}.{uuid.uuid4().int % 10**6}"
    tree = _sleeping_tree(tmp_path, marker)
    command = [sys.executable, "-m", "shiplint", "check", "--no-sources", "--select", "SL1",
               "--manifest", str(ACME / "shiplint.yaml"), str(tree)]  # fmt: skip
    process = subprocess.Popen(
        command,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test run started in the background by a shell without job control inherits
        # SIGINT ignored, which shiplint rightly keeps ignored: give the run its default.
        preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL),
    )
    try:
        while not _with_marker(marker):  # the config's sleep is running
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        process.send_signal(sig)
        _, err = process.communicate(timeout=120)
        assert process.returncode == code, err
        assert f"interrupted ({sig.name})" in err and "internal error" not in err
        assert _with_marker(marker) == []
        assert list((tmp_path / "tmp").iterdir()) == []  # the evaluation's directory is gone
    finally:
        process.kill()
        for pid in _with_marker(marker):
            os.kill(pid, signal.SIGKILL)


def _check_to(stdout: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    inner = [sys.executable, "-m", "shiplint", "check", "--root", str(ACME), "--select", "SL0"]
    shell = 'exec "$@" >&-' if stdout == "closed" else 'exec "$@" >/dev/full'
    return subprocess.run(
        ["sh", "-c", shell, "sh", *inner],
        env=_env(tmp_path), capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("stdout", "message"),
    [("closed", "standard output is closed"), ("full", "No space left on device")],
)
def test_a_closed_or_full_stdout_is_said_not_an_internal_error(
    tmp_path: Path, stdout: str, message: str
) -> None:
    result = _check_to(stdout, tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_text_a_finding_quotes_reaches_no_reporter_raw() -> None:
    finding = Finding(
        "the config failed: \x1b]0;pwned\x07\x1b[2Jred\u2028next \udcff",
        Location("tree!/acme/\x1b[31m.cmake", 1),
        Subject(variable="X\x9b"),
        hint="fix \x00 it",
    )
    diagnostic = stamp("SL111", finding)
    text = " ".join(
        [diagnostic.message, diagnostic.location.path, diagnostic.hint or "",
         *diagnostic.subject.as_dict().values()]
    )  # fmt: skip
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)
    assert "\\x1b]0;pwned\\x07\\x1b[2Jred\\u2028next \\xff" in diagnostic.message
    text.encode("utf-8")  # no lone surrogate left for a JSON or SARIF writer to choke on


def test_a_signal_whose_exception_was_swallowed_still_ends_the_run_interrupted() -> None:
    # Where Python swallows what a signal handler raises (a finalizer, a callback that
    # only logs), the run would otherwise go on and end as if nothing happened.
    from shiplint.cmake_eval import run
    from shiplint.interrupt import Interrupted, interruptible

    try:
        with (
            pytest.raises(Interrupted) as raised,
            interruptible(),
            contextlib.suppress(Interrupted),
        ):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler runs here, between bytecodes
    finally:
        # The handler stopped CMake runs for good, as for a process about to end; this
        # test process goes on evaluating.
        run.RUNS.stopping = False
    assert raised.value.exit_code == 143
