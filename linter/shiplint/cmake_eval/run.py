"""Run one configure of the probe: a temporary directory, a time limit, a reduced environment.

A package config is code: it can run any command (`execute_process`), read and
write files, or loop forever. The run gets a HOME and TMPDIR inside its own
temporary directory, only PATH from the caller's environment (the ExecuTorch
config runs `python3`, and keeping PATH keeps that lookup the one the user
would get), and its own process group, so a config that hangs is stopped with
everything it started.
"""

from __future__ import annotations

import os
import platform as host
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from shiplint.cmake_eval.cmake_binary import CMakeBinary
from shiplint.cmake_eval.languages import cross_arguments
from shiplint.platforms import Platform

_HOST_SYSTEM = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(host.system())


@dataclass(frozen=True)
class RunOutcome:
    returncode: int | None  # None: stopped at the time limit
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def reduced_environment(work: Path) -> dict[str, str]:
    home = work / "home"
    tmp = work / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "TMPDIR": str(tmp), "LC_ALL": "C", "LANG": "C"}
    if "PATH" in os.environ:
        env["PATH"] = os.environ["PATH"]
    return env


def configure(
    cmake: CMakeBinary,
    source: Path,
    work: Path,
    platform: Platform,
    timeout: float,
    languages: tuple[str, ...] = (),
) -> RunOutcome:
    """`cmake -S source -B work/build`, as `platform` when that is not the host's system."""
    args = [cmake.path, "-S", str(source), "-B", str(work / "build")]
    if platform.os != _HOST_SYSTEM:
        args.append(f"-DCMAKE_SYSTEM_NAME={platform.cmake_system_name}")
        args += cross_arguments(languages)
    start = time.monotonic()
    with subprocess.Popen(
        args,
        cwd=work,
        env=reduced_environment(work),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # The whole group: a config's execute_process children go too.
            os.killpg(process.pid, signal.SIGKILL)
            try:
                stdout, stderr = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                # Something left the group and still holds the pipes: give up on its output.
                stdout, stderr = "", ""
            return RunOutcome(None, stdout, stderr, time.monotonic() - start)
    return RunOutcome(process.returncode, stdout, stderr, time.monotonic() - start)
