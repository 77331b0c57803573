"""Tasks started in turn: the next one (and the caller) goes on once a task waits on a
real process or has ended, never while it runs Python. Every wait here is on a real
`cat` that ends when the test closes its input: no clock decides an outcome."""

from __future__ import annotations

import math
import subprocess
import threading

import pytest
from shiplint.handoff import Turns, holding, waits
from shiplint.waiting import wait_running


def _cat() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)


def _waited(process: subprocess.Popen[bytes]) -> int | None:
    """What a CMake run does: wait on its process (waiting.py says so first)."""
    status, _ = wait_running(process, math.inf)  # no time limit: the test ends it
    return status


def test_a_task_that_waits_on_a_process_lets_the_caller_go_on_while_it_runs() -> None:
    process = _cat()
    with Turns("test") as turns:
        future = turns.start(_waited, process)
        # start() returned: the process has not ended, since its input is still open.
        assert process.poll() is None
        assert not future.done()
        assert process.stdin is not None
        process.stdin.close()
        assert turns.result(future) == 0


def test_a_task_that_waits_on_nothing_has_ended_when_start_returns() -> None:
    seen: list[str] = []

    def work() -> str:
        seen.append("task")
        return "done"

    with Turns("test") as turns:
        future = turns.start(work)
        seen.append("caller")
        assert future.done()
    assert seen == ["task", "caller"]
    assert future.result() == "done"


def test_map_starts_the_next_task_once_the_previous_one_waits_and_keeps_the_order() -> None:
    processes = [_cat(), _cat()]
    events: list[str] = []

    def one(index: int) -> int:
        events.append(f"start {index}")
        status = _waited(processes[index])
        events.append(f"end {index}")
        return index * 10 + (status or 0)

    def close_all() -> None:
        # Runs once both tasks wait: each had started before the caller could go on.
        for process in processes:
            assert process.stdin is not None
            process.stdin.close()

    def both() -> list[int]:
        with Turns("inner") as inner:
            return inner.map(one, [0, 1])

    with Turns("outer") as outer:
        mapped = outer.start(both)  # a map whose caller is itself a task
        assert events == ["start 0", "start 1"]
        close_all()
        assert outer.result(mapped) == [0, 10]


def test_a_nested_task_waiting_on_a_process_lets_the_outermost_caller_go_on() -> None:
    process = _cat()

    def inner_map() -> list[int | None]:
        with Turns("inner") as inner:
            return inner.map(_waited, [process])

    with Turns("outer") as outer:
        future = outer.start(inner_map)
        assert process.poll() is None
        assert process.stdin is not None
        process.stdin.close()
        assert outer.result(future) == [0]


def test_waiting_on_a_lock_another_thread_holds_lets_the_caller_go_on() -> None:
    lock = threading.Lock()
    lock.acquire()  # held by this thread, as the warm-up holds a detection's lock

    def work() -> str:
        with holding(lock):
            return "got it"

    with Turns("test") as turns:
        future = turns.start(work)
        assert not future.done()
        lock.release()
        assert turns.result(future) == "got it"


def test_a_free_lock_is_taken_without_letting_the_caller_go_on() -> None:
    lock = threading.Lock()
    seen: list[str] = []

    def work() -> None:
        with holding(lock):
            seen.append("task")

    with Turns("test") as turns:
        turns.start(work)
        seen.append("caller")
    assert seen == ["task", "caller"]
    assert not lock.locked()


def test_a_task_lets_its_caller_go_on_once_even_when_it_waits_twice() -> None:
    calls: list[str] = []

    def work() -> None:
        waits()
        calls.append("between")
        waits()  # no one is left to let go: nothing happens

    with Turns("test") as turns:
        turns.start(work)
    assert calls == ["between"]


def test_a_task_that_raises_raises_in_whoever_asks_its_result() -> None:
    def broken() -> None:
        raise ValueError("bad input")

    with Turns("test") as turns:
        future = turns.start(broken)
        with pytest.raises(ValueError, match="bad input"):
            turns.result(future)


def test_waits_outside_any_task_does_nothing() -> None:
    waits()  # the main thread runs no task started by Turns
