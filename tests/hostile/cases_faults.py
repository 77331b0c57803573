"""Faults from outside during a real run: a stopped or killed lief worker, SIGINT and SIGTERM
at different moments, a stopped CMake, a closed or full stdout."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.hostile.material import ACME, EXAMPLE_MANIFEST, wheel_path
from tests.hostile.runner import Case, Fault, Workspace

_SLEEPY = "execute_process(COMMAND sleep 1000)\n"


def _descendants(pid: int) -> list[tuple[int, str]]:
    children: dict[int, list[int]] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (
                (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[tuple[int, str]] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append((child, commands.get(child, "")))
            todo.append(child)
    return found


def _signal_child(marker: str, sig: signal.Signals, after: float = 0.0) -> Fault:
    def act(process: subprocess.Popen[bytes], elapsed: float) -> bool:
        if elapsed < after:
            return False
        for pid, command in _descendants(process.pid):
            # `cmake` is the program a process runs, not any mention (cmake_eval/confine.py).
            program = os.path.basename(command.split(" ", 1)[0])
            if program == marker if marker == "cmake" else marker in command:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
                return True
        return False

    return act


def _signal_run(sig: signal.Signals, after: float) -> Fault:
    def act(process: subprocess.Popen[bytes], elapsed: float) -> bool:
        # Not before shiplint's own code runs: a signal during the interpreter's start-up
        # (its site-packages' .pth files) meets Python's default handling, not shiplint's.
        if elapsed < after or not _shiplint_started(process.pid):
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, sig)
        return True

    return act


def _shiplint_started(pid: int) -> bool:
    """Whether shiplint's entry point has run: its first lines catch SIGTERM, which the
    interpreter alone leaves at its default (/proc/<pid>/status, SigCgt)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone already: nothing to wait for
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return True


def _real_wheel(ws: Workspace) -> list[str]:
    return [
        "check",
        "--no-sources",
        "--manifest",
        str(EXAMPLE_MANIFEST),
        str(wheel_path("manylinux_2_28_x86_64")),
    ]


def _lief_wheel(ws: Workspace) -> list[str]:
    """A real run whose binaries lief reads in the worker (Mach-O): a Linux wheel's ELF
    files are read in the run's own process and start no worker to fault."""
    return [
        "check",
        "--no-sources",
        "--manifest",
        str(EXAMPLE_MANIFEST),
        str(wheel_path("macosx_14_0_arm64")),
    ]


def _sleepy_tree(ws: Workspace) -> list[str]:
    tree = ws.inputs / "tree"
    (tree / "acme" / "share" / "cmake").mkdir(parents=True)
    (tree / "acme" / "lib").mkdir(parents=True)
    (tree / "acme" / "share" / "cmake" / "acme-config.cmake").write_text(_SLEEPY)
    return [
        "check",
        "--no-sources",
        "--manifest",
        str(ACME / "shiplint.yaml"),
        "--select",
        "SL1",
        str(tree),
    ]


def cases(count: int, seed: int) -> Iterator[Case]:
    # Before shiplint's handlers are installed (interpreter start) a signal ends the process
    # by its default action, which a shell reports as the same 130 or 143.
    interrupted = (130, -signal.SIGINT)
    terminated = (143, -signal.SIGTERM)
    table: list[tuple[str, object, Fault | None, tuple[int, ...], str]] = [
        (
            "stop-worker",
            _lief_wheel,
            _signal_child("shiplint.artifacts.reading.worker", signal.SIGSTOP),
            (0, 1, 2),
            "file",
        ),
        (
            "kill-worker",
            _lief_wheel,
            _signal_child("shiplint.artifacts.reading.worker", signal.SIGKILL, 0.8),
            (0, 1, 2),
            "file",
        ),
        ("sigint-early", _real_wheel, _signal_run(signal.SIGINT, 0.5), interrupted, "file"),
        ("sigint-late", _real_wheel, _signal_run(signal.SIGINT, 1.5), interrupted, "file"),
        ("sigterm-early", _real_wheel, _signal_run(signal.SIGTERM, 0.5), terminated, "file"),
        ("sigterm-late", _real_wheel, _signal_run(signal.SIGTERM, 1.5), terminated, "file"),
        ("sigint-in-cmake", _sleepy_tree, _signal_run(signal.SIGINT, 2.0), interrupted, "file"),
        ("sigterm-in-cmake", _sleepy_tree, _signal_run(signal.SIGTERM, 2.0), terminated, "file"),
        (
            "stop-cmake",
            _sleepy_tree,
            _signal_child("cmake", signal.SIGSTOP, 1.0),
            (0, 1, 2),
            "file",
        ),
        ("closed-stdout", _real_wheel, None, (0, 1, 2), "closed"),
        ("full-stdout", _real_wheel, None, (0, 1, 2), "full"),
    ]
    for i in range(count):
        name, build, fault, allowed, stdout = table[i % len(table)]
        yield Case(
            "faults",
            f"{name}-{i}",
            seed * 100_000 + i,
            build,  # type: ignore[arg-type]
            fault=fault,
            allowed=allowed,
            stdout=stdout,
        )
