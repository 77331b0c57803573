"""Run one hostile case as a whole `python -m shiplint` process and record what it did.

Each case gets its own directory: the input under `in/`, a fresh HOME and TMPDIR,
a canary directory that hostile paths aim at, and a working directory. The case
runs in a new session with a time limit. This process makes itself the child
subreaper, so anything the case starts that escapes its session (a config that
calls `setsid`) is re-parented here when its parent dies, and is counted as a
process left behind instead of vanishing into init.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Workspace:
    root: Path
    # A port on 127.0.0.1 that listens during the case: any connection to it is counted.
    port: int = 0

    @property
    def inputs(self) -> Path:
        return self.root / "in"

    @property
    def canary(self) -> Path:
        return self.root / "canary"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def unix_socket(self) -> Path:
        """A Unix socket that listens during the case: any connection to it is counted."""
        return self.root / "daemon.sock"

    def escape(self, name: str = "escaped") -> str:
        """A relative path that climbs to / and comes down into the canary directory."""
        return "../" * 40 + str(self.canary / name).lstrip("/")


# What a case does to the running process: called about every 20 ms with the process and
# the seconds since it started, until it returns True (done) or the process ends.
Fault = Callable[[subprocess.Popen[bytes], float], bool]


@dataclass(frozen=True)
class Case:
    klass: str
    name: str
    seed: int
    # Writes the input under the workspace; returns the arguments after `python -m shiplint`.
    build: Callable[[Workspace], list[str]]
    fault: Fault | None = None
    # Exit codes that are a correct ending (a signal fault ends in 130 or 143).
    allowed: tuple[int, ...] = (0, 1, 2)
    # Extra environment for the run (e.g. a secret a config must not read).
    env: dict[str, str] = field(default_factory=dict)
    # A string that must not appear in the output (a secret, a file's content outside the tree).
    forbidden: tuple[str, ...] = ()
    # Where the report goes: a file, /dev/full, or a closed descriptor.
    stdout: str = "file"
    # Text the output must hold (the findings a tampered cache must not hide); a list the
    # build may fill, as what is required is known only once the input is made.
    required: list[str] = field(default_factory=list)


@dataclass
class Record:
    klass: str
    name: str
    seed: int
    exit: int | None
    seconds: float
    peak_mib: float
    timed_out: bool
    traceback: bool
    internal_error: bool
    unexpected_exit: bool
    outside: list[str]
    leftover_temp: list[str]
    strays: list[str]
    leaked: list[str]
    stderr_tail: str
    # Connections the case made to the workspace's loopback listener.
    connections: int = 0
    # Required text the output lacked (a finding hidden).
    missing: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(
            self.timed_out
            or self.traceback
            or self.internal_error
            or self.unexpected_exit
            or self.outside
            or self.leftover_temp
            or self.strays
            or self.leaked
            or self.connections
            or self.missing
        )

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "failed": self.failed}


def become_subreaper() -> None:
    """Orphans of a case come to this process (Linux), so none escapes the count."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def run_case(case: Case, limit: float, keep: bool = False) -> Record:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.setblocking(False)
    ws = Workspace(Path(tempfile.mkdtemp(prefix="shiplint-hostile-")), listener.getsockname()[1])
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        unix.bind(str(ws.unix_socket))
        unix.listen(16)
        unix.setblocking(False)
        for d in (ws.inputs, ws.canary, ws.tmp, ws.home, ws.cwd, ws.out):
            d.mkdir()
        (ws.canary / "keep.txt").write_text("canary\n")
        args = case.build(ws)
        before = _snapshot(ws)
        record = _run(case, ws, args, before, limit)
        return replace(record, connections=_connections(listener) + _connections(unix))
    finally:
        listener.close()
        unix.close()
        if not keep:
            _remove(ws.root)


def _connections(listener: socket.socket) -> int:
    """Connections the kernel completed on the listener during the case, accepted now."""
    count = 0
    while True:
        try:
            client, _ = listener.accept()
        except (BlockingIOError, InterruptedError):
            return count
        client.close()
        count += 1


def _run(case: Case, ws: Workspace, args: list[str], before: set[str], limit: float) -> Record:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws.home),
        "TMPDIR": str(ws.tmp),
        "PYTHONPATH": str(REPO / "linter"),
        "LC_ALL": "C.UTF-8",
        **case.env,
    }
    stdout, stderr = ws.out / "stdout", ws.out / "stderr"
    start = time.monotonic()
    command = [sys.executable, "-m", "shiplint", *args]
    if case.stdout == "closed":
        command = ["sh", "-c", 'exec "$@" >&-', "sh", *command]
    memory = ws.out / "memory"
    command = [sys.executable, str(Path(__file__).with_name("launcher.py")), str(memory), *command]
    target = "/dev/full" if case.stdout == "full" else stdout
    with open(target, "wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            command,
            cwd=ws.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    status, timed_out = _wait(process, memory, case.fault, start, limit)
    seconds = time.monotonic() - start
    strays = _collect_strays(process.pid)
    peak_kib = int(memory.read_text()) if memory.exists() else 0
    text = stderr.read_bytes().decode("utf-8", "replace")
    report = stdout.read_bytes().decode("utf-8", "replace") if stdout.exists() else ""
    code = _exit_code(status)
    return Record(
        klass=case.klass,
        name=case.name,
        seed=case.seed,
        exit=None if timed_out else code,
        seconds=round(seconds, 3),
        peak_mib=round(peak_kib / 1024, 1),
        timed_out=timed_out,
        traceback="Traceback (most recent call last)" in text + report,
        internal_error="internal error" in text,
        unexpected_exit=not timed_out and code not in case.allowed,
        outside=sorted(_snapshot(ws) ^ before),
        leftover_temp=sorted(p.name for p in ws.tmp.iterdir()),
        strays=strays,
        leaked=[s for s in case.forbidden if s in text or s in report]
        + [f"{s} kept in {where}" for s, where in _kept(ws.home / ".cache", case.forbidden)],
        stderr_tail=text[-400:],
        missing=[s for s in case.required if s not in text and s not in report],
    )


def _wait(
    launcher: subprocess.Popen[bytes],
    memory: Path,
    fault: Fault | None,
    start: float,
    limit: float,
) -> tuple[int, bool]:
    """(wait status, timed out). Faults act on the case itself, the launcher's child."""
    fault_done = fault is None
    case: subprocess.Popen[bytes] | None = None
    while True:
        pid, status = os.waitpid(launcher.pid, os.WNOHANG)
        if pid:
            launcher.returncode = _exit_code(status)
            return status, False
        elapsed = time.monotonic() - start
        if elapsed > limit:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(launcher.pid, signal.SIGKILL)
            _, status = os.waitpid(launcher.pid, 0)
            launcher.returncode = _exit_code(status)
            return status, True
        if case is None:
            case = _case_process(memory)
        if not fault_done and fault is not None and case is not None:
            fault_done = fault(case, elapsed)
        time.sleep(0.02)


class _Pid:
    """What a fault needs of the case process: its pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid


def _case_process(memory: Path) -> subprocess.Popen[bytes] | None:
    try:
        text = memory.with_name(memory.name + ".pid").read_text()
    except OSError:
        return None
    return _Pid(int(text)) if text.strip() else None  # type: ignore[return-value]


def _exit_code(status: int) -> int:
    return os.waitstatus_to_exitcode(status)


def _collect_strays(case_pid: int) -> list[str]:
    """Processes the case left behind: its session, and orphans re-parented to us. Killed."""
    time.sleep(0.2)  # an orphan is re-parented only once its parent has exited
    strays: list[str] = []
    for pid, ppid, sid, command in _processes():
        if pid == os.getpid():
            continue
        if ppid == os.getpid() or sid == case_pid:
            strays.append(f"{pid} {command}")
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    _reap_orphans()
    return strays


def _processes() -> Iterator[tuple[int, int, int, str]]:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: fields follow the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":
            continue
        yield int(entry.name), int(fields[1]), int(fields[3]), command.strip()[:200]


def _reap_orphans() -> None:
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)


def _kept(cache: Path, forbidden: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """Forbidden text (a secret) in a file of the user cache the run wrote: kept there, a
    later run (or another job restoring the cache) would read it."""
    wanted = [(s, s.encode()) for s in forbidden if s != "\x1b"]
    if not wanted:
        return
    for top, _, names in os.walk(cache):
        for name in names:
            path = Path(top) / name
            try:
                data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            except OSError:
                continue
            for text, raw in wanted:
                if raw in data:
                    yield text, os.path.relpath(path, cache)


def _snapshot(ws: Workspace) -> set[str]:
    """Every path under the case directory except the run's own TMPDIR and output files,
    each with its size and modification time: a file changed or removed differs too."""
    seen: set[str] = set()
    # The user cache (shiplint keeps parsed files and compiler detections there) is its to write.
    skip = {str(ws.tmp), str(ws.out), str(ws.home / ".cache")}
    todo = [str(ws.root)]
    # Iterative: a case may hold a tree deeper than Python's recursion limit.
    while todo:
        top = todo.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            if entry.path in skip:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                stamp = f"{info.st_size}:{info.st_mtime_ns}" if not entry.is_dir() else "dir"
            except OSError:
                stamp = "?"
            seen.add(f"{os.path.relpath(entry.path, ws.root)} {stamp}")
            if entry.is_dir(follow_symlinks=False):
                todo.append(entry.path)
    return seen


def _remove(root: Path) -> None:
    # `rm -rf` after opening every directory: Python's rmtree recurses, and a case may
    # leave a tree 1,200 directories deep.
    subprocess.run(["chmod", "-R", "u+rwx", str(root)], stderr=subprocess.DEVNULL, check=False)
    subprocess.run(["rm", "-rf", str(root)], check=False)
