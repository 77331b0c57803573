"""Run a build tool for a probe: bounded in time, in a reduced environment.

The environment keeps only what finding the tools needs (PATH), with HOME and
TMPDIR inside the probe's temp dir, so a user's CMAKE_TOOLCHAIN_FILE,
CMAKE_PREFIX_PATH, CXX, CXXFLAGS, LDFLAGS or CMake package registry cannot change
what the consumer links. Each run is its own process group, stopped whole at the
time limit.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from shiplint.fastclass import dataclass

# Lines of a tool's output a failure keeps: enough for CMake's error block.
TAIL_LINES = 25
# SYSTEMROOT: Windows processes cannot start without it.
_KEPT = ("PATH", "SYSTEMROOT")


@dataclass(frozen=True)
class ToolRun:
    returncode: int | None
    output: str
    # Why the tool did not complete, when it did not (timeout, could not start).
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0

    @property
    def why(self) -> str:
        """Why it did not complete: the error, else its exit status."""
        return self.error or f"exited with status {self.returncode}"


def reduced_env(work: Path) -> dict[str, str]:
    """PATH from the caller (the compiler, the build tool, and the `python3` a config may
    run are the ones the user would get); HOME and TMPDIR inside the probe's temp dir."""
    home, tmp = work / "home", work / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "TMPDIR": str(tmp), "LC_ALL": "C", "LANG": "C"}
    env.update({k: v for k, v in os.environ.items() if k in _KEPT})
    return env


def run_tool(command: Sequence[str], cwd: Path, env: dict[str, str], timeout: float) -> ToolRun:
    """Run `command` to completion or until `timeout`; a stopped run takes its children
    with it (its own process group), so a hung compiler or config leaves nothing behind."""
    try:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return ToolRun(None, "", f"could not start {command[0]}: {exc.strerror or exc}")
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(process)
        try:
            out, _ = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            # Something left the group and still holds the pipe: give up on its output.
            out = b""
        text = out.decode("utf-8", "replace") if out else ""
        return ToolRun(None, text, f"stopped after the {timeout:g} s time limit")
    return ToolRun(process.returncode, out.decode("utf-8", "replace"))


def stop_group(process: subprocess.Popen[bytes]) -> None:
    if hasattr(os, "killpg"):
        try:
            os.killpg(process.pid, signal.SIGKILL)
            return
        except ProcessLookupError:
            return
    process.kill()


def tail(output: str, lines: int = TAIL_LINES) -> str:
    # Blank lines carry nothing in a one-finding message.
    kept = [line.rstrip() for line in output.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])
