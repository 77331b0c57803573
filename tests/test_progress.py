"""Progress on long runs: said on stderr when it is a terminal, quiet otherwise."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

from shiplint.request import Progress

from tests.repo_snapshot import REPO

ACME_MANIFEST = REPO / "tests" / "data" / "projects" / "acme" / "shiplint.yaml"


def test_quiet_when_not_a_terminal() -> None:
    stream = io.StringIO()
    Progress(stream).step("reading x.whl")
    assert stream.getvalue() == ""


def test_speaks_on_a_real_terminal() -> None:
    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "w") as terminal:
            Progress(terminal).step("reading x.whl")
        assert os.read(master, 1024).decode() == "shiplint: reading x.whl\r\n"
    finally:
        os.close(master)
        os.close(slave)


def run_cli(tmp_path: Path, stderr: int) -> subprocess.CompletedProcess[str]:
    artifact = tmp_path / "acme.zip"
    with zipfile.ZipFile(artifact, "w") as archive:
        archive.writestr("acme/README", "no libraries here\n")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "shiplint",
            "check",
            "--no-sources",
            "--manifest",
            str(ACME_MANIFEST),
            "--root",
            str(tmp_path),
            str(artifact),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        timeout=120,
    )


def test_cli_run_is_quiet_when_stderr_is_piped(tmp_path: Path) -> None:
    done = run_cli(tmp_path, subprocess.PIPE)
    assert done.returncode in (0, 1), done.stderr
    assert done.stderr == ""


def test_cli_run_says_what_it_reads_on_a_terminal(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    try:
        done = run_cli(tmp_path, slave)
    finally:
        os.close(slave)
    said = b""
    try:
        while chunk := _read(master):
            said += chunk
    finally:
        os.close(master)
    assert done.returncode in (0, 1)
    assert "shiplint: reading acme.zip" in said.decode()


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: the terminal's other end is closed
        return b""
