"""Wait for a child process until a deadline, or until it has stayed stopped.

A process stopped from outside (SIGSTOP, a debugger) cannot finish: waiting for it
to its time limit only delays the run by that limit. The waits watch the process
and its children (CMake behind the launcher) and give up after HALT_GRACE seconds
in the stopped state: CMake runs, `cmake --version`, the binary reader's child process.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time

from shiplint.handoff import waits

HALT_GRACE = 2.0
POLL = 0.25


def wait_running(process: subprocess.Popen[bytes], deadline: float) -> tuple[int | None, bool]:
    """The run's exit status, or None at the deadline; and whether it was ended early
    because it stayed stopped for HALT_GRACE seconds."""
    waits()
    halt = Halt(process.pid)
    with _ExitWatch(process) as exit_watch:
        while True:
            now = time.monotonic()
            step = max(min(POLL, deadline - now), 0.0)
            if exit_watch.wait(step):
                return process.wait(), False
            if time.monotonic() >= deadline:
                return None, False
            if halt.given_up():
                return None, True


class _ExitWatch:
    """Waits up to a time for a process to end, woken at its exit.

    Popen.wait(timeout) sleeps in steps of up to 50 ms and finds the exit at the end of
    one: 20-35 ms late per run, measured, on every CMake run a check waits for. A
    pidfd (Linux 5.3+) becomes readable the moment the process ends; elsewhere, or when
    the process was already reaped, Popen's own wait is used.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._fd: int | None = None
        self._poll: select.poll | None = None

    def __enter__(self) -> _ExitWatch:
        open_pidfd = getattr(os, "pidfd_open", None)
        if open_pidfd is not None and hasattr(select, "poll") and self._process.returncode is None:
            with contextlib.suppress(OSError):
                self._fd = open_pidfd(self._process.pid)
                self._poll = select.poll()
                self._poll.register(self._fd, select.POLLIN)
        return self

    def __exit__(self, *_: object) -> None:
        if self._fd is not None:
            os.close(self._fd)

    def wait(self, seconds: float) -> bool:
        """Whether the process ended within `seconds`."""
        if self._poll is None or self._process.returncode is not None:
            try:
                self._process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                return False
            return True
        with contextlib.suppress(InterruptedError):
            if self._poll.poll(seconds * 1000):
                return True
        return self._process.poll() is not None


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
