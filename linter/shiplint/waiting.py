"""Wait for a child process until a deadline, or until it has stayed stopped.

A process stopped from outside (SIGSTOP, a debugger) cannot finish: waiting for it
to its time limit only delays the run by that limit. The waits watch the process
and its children (CMake behind the launcher) and give up after HALT_GRACE seconds
in the stopped state: CMake runs, `cmake --version`, the lief worker.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time

HALT_GRACE = 2.0
POLL = 0.25


def wait_running(process: subprocess.Popen[bytes], deadline: float) -> tuple[int | None, bool]:
    """The run's exit status, or None at the deadline; and whether it was ended early
    because it stayed stopped for HALT_GRACE seconds."""
    halt = Halt(process.pid)
    while True:
        now = time.monotonic()
        try:
            return process.wait(timeout=max(min(POLL, deadline - now), 0.0)), False
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() >= deadline:
            return None, False
        if halt.given_up():
            return None, True


class Halt:
    """Whether a process has stayed stopped for HALT_GRACE seconds; ask it every POLL."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._since: float | None = None

    def given_up(self) -> bool:
        now = time.monotonic()
        if not _stopped(self._pid):
            self._since = None
        elif self._since is None:
            self._since = now
        return self._since is not None and now - self._since >= HALT_GRACE


def _stopped(pid: int) -> bool:
    """Whether the run's first process or one of its children (CMake, behind the
    launcher) is stopped; False where /proc does not tell."""
    if _state(pid) in ("T", "t"):
        return True
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            child = entry.name.isdigit() and _parent(entry.name) == pid
            if child and _state(int(entry.name)) in ("T", "t"):
                return True
    return False


def _stat_fields(pid: int | str) -> list[str]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return []
    # The command name is in parentheses and may hold spaces: fields follow the last ')'.
    return stat[stat.rfind(")") + 2 :].split()


def _state(pid: int) -> str:
    fields = _stat_fields(pid)
    return fields[0] if fields else ""


def _parent(pid: str) -> int:
    fields = _stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else -1
