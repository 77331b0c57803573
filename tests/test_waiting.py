"""Waiting for a child process: its exit status when it ends, None at the deadline, also
when it ended (or was reaped by another thread) before the wait began."""

from __future__ import annotations

import math
import subprocess

from shiplint.waiting import wait_running


def test_the_exit_status_of_a_process_that_ends_is_returned() -> None:
    process = subprocess.Popen(["sh", "-c", "sleep 0.1; exit 3"])
    assert wait_running(process, math.inf) == (3, False)


def test_a_process_still_running_at_the_deadline_gives_none() -> None:
    with subprocess.Popen(["sleep", "60"]) as process:
        try:
            # A deadline already past: one look, and the process is still running.
            assert wait_running(process, 0.0) == (None, False)
            assert process.poll() is None  # left running: stopping it is the caller's choice
        finally:
            process.kill()


def test_a_process_that_ended_before_the_wait_gives_its_status() -> None:
    process = subprocess.Popen(["sh", "-c", "exit 4"])
    process.wait()  # reaped here, as another thread's kill() may reap it
    assert wait_running(process, math.inf) == (4, False)
