"""Run one configure of the probe: a temporary directory, a time limit, a reduced environment.

A package config is code: it can run any command (`execute_process`), read and
write files, or loop forever. The run gets a HOME and TMPDIR inside its own
temporary directory, only PATH from the caller's environment (the ExecuTorch
config runs `python3`, and keeping PATH keeps that lookup the one the user
would get), and its own session, so a config that hangs is stopped with
everything it started.

Where the system lets an unprivileged user make one (`unshare`, Linux user and
PID namespaces), CMake runs as the first process of a new PID namespace with its
own /proc: when the run ends or is stopped, the kernel kills every process in
it, including ones that left the session with `setsid`, and the config cannot
read the caller's environment through /proc. Without one, the session is killed
and a process that left it is not guaranteed to die (docs/cmake-evaluation.md).

Writes are confined to the run's directory (`confine.py`): by read-only mounts in
that namespace, locked by a further user namespace, with a network namespace of its
own (Landlock on top where the kernel has it), else by Landlock alone; both with a
seccomp filter against Unix sockets, no_new_privs and no capability. Each is used
only when a trial run here shows it refusing a write outside; with neither, nothing
confines them, and the evaluation says so (`ConfigEvaluation.unconfined`). The trials' answer is kept in the user
cache for later runs on the same system (launch_cache.py); every confined run
proves its confinement before CMake starts, and a run refused by a kept answer
that no longer holds is run again after fresh trials.

Output is kept bounded (a config can print gigabytes); every live run is known,
so an interrupted shiplint stops them all (`stop_all`).
"""

from __future__ import annotations

import contextlib
import enum
import os
import platform as host
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import IO

from shiplint.cmake_eval import abi_sharing, compilers, launch_cache
from shiplint.cmake_eval.cmake_binary import CMakeBinary
from shiplint.cmake_eval.languages import cross_arguments
from shiplint.cmake_eval.python_memo import MEMO
from shiplint.fastclass import dataclass
from shiplint.handoff import holding
from shiplint.interrupt import on_interrupt
from shiplint.platforms import Platform
from shiplint.scratch import scratch_dir
from shiplint.waiting import wait_running

_HOST_SYSTEM = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(host.system())
# Of each stream, the first and the last this many bytes are kept: CMake's error is
# near one end, and a config printing gigabytes costs no memory.
OUTPUT_HEAD = 1024 * 1024
OUTPUT_TAIL = 256 * 1024
_PDEATHSIG = ("--pdeathsig", "KILL")
# --mount-proc makes a mount namespace too: the read-only mounts of the confinement live there.
_UNSHARE = ("--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc")
_CONFINE = Path(__file__).with_name("confine.py")
# confine.py is imported rather than run as a script: a script is compiled at every run
# (14 ms of CPU for this one, at every CMake launch), a module's compiled form is kept in
# __pycache__. Its directory goes last on sys.path, behind the standard library.
_CONFINE_MAIN = (
    f"import sys; sys.path.append({str(_CONFINE.parent)!r}); "
    "import confine; sys.exit(confine.main(sys.argv[1:]))"
)
# How confine.py refuses to run (its exit status, how its message begins). It is a
# program of its own: importing it here would load ctypes for two constants, so they
# are repeated, and a test keeps them the same.
REFUSED = 125
REFUSAL = "shiplint: cannot confine the evaluation"


class Confinement(enum.Enum):
    """What keeps a config's writes inside its run's directory."""

    MOUNTS = "mounts"  # every mount but the run's directory read-only, in the namespace
    LANDLOCK = "landlock"  # the kernel refuses writes beneath anything else
    NONE = "none"  # nothing: the config can write whatever the user can


@dataclass(frozen=True)
class RunOutcome:
    returncode: int | None  # None: stopped at the time limit (or by an interruption)
    stdout: str
    stderr: str
    seconds: float
    # What kept the run's writes inside its directory.
    confinement: Confinement = Confinement.NONE
    # Ended because CMake stayed stopped (SIGSTOP, a debugger): it could not finish.
    halted: bool = False
    # Replayed from the user cache (replay.py): no CMake ran.
    reused: bool = False
    # Why a run made without languages may have answered otherwise with them
    # (compiler_need.py), or None: it could not (a replayed run was kept only then).
    compiler_need: str | None = None

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def reduced_environment(work: Path, path_first: tuple[Path, ...] = ()) -> dict[str, str]:
    """HOME and TMPDIR inside `work`, the C locale, and the caller's PATH, after the
    directories of `path_first` (stand-ins answering for another platform: target_host.py)."""
    home = work / "home"
    tmp = work / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "TMPDIR": str(tmp), "LC_ALL": "C", "LANG": "C"}
    path = [str(p) for p in path_first]
    if "PATH" in os.environ:
        path.append(os.environ["PATH"])
    if path:
        env["PATH"] = os.pathsep.join(path)
    return env


@dataclass(frozen=True)
class _System:
    """What CMake runs are started through here, and whether trials in this process found it."""

    setpriv: tuple[str, ...]
    unshare: tuple[str, ...]
    confinement: Confinement
    tried: bool


_SYSTEM_LOCK = threading.Lock()
_system: _System | None = None


def _system_facts(fresh: bool = False) -> _System:
    """The launcher and confinement for this system: kept from an earlier run's trials
    (launch_cache.py), else tried now and kept; with `fresh`, tried now unless this
    process already did. Evaluation threads ask at the same moment: one of them tries."""
    global _system
    with holding(_SYSTEM_LOCK):
        if _system is None or (fresh and not _system.tried):
            _system = _find_system(fresh)
        return _system


def _find_system(fresh: bool) -> _System:
    if _HOST_SYSTEM != "linux":
        return _System((), (), Confinement.NONE, True)  # every trial is Linux's
    tools = {name: shutil.which(name) for name in ("setpriv", "unshare")}
    key = launch_cache.entry_key(tools, _CONFINE)
    kept = None if fresh else launch_cache.load(key)
    if kept is not None:
        # Only verdicts are kept: the launcher is built here, from the tools PATH gives
        # now (the entry's key holds their fingerprints) and this module's options.
        return _System(
            _launch_part(tools["setpriv"], _PDEATHSIG) if kept.setpriv else (),
            _launch_part(tools["unshare"], _UNSHARE) if kept.unshare else (),
            Confinement(kept.confinement),
            False,
        )
    if tools["unshare"] is not None:
        # The best there is, tried first through both tools as a run uses them: passing,
        # it proves each tool works too (the trial's command ran through both), so
        # nothing is tried apart (two launches fewer on a first run).
        setpriv = _launch_part(tools["setpriv"], _PDEATHSIG)
        unshare = _launch_part(tools["unshare"], _UNSHARE)
        if _trial(Confinement.MOUNTS, setpriv, unshare):
            launch_cache.store(key, launch_cache.Launch(bool(setpriv), True, "mounts"))
            return _System(setpriv, unshare, Confinement.MOUNTS, True)
    setpriv = _works(tools["setpriv"], _PDEATHSIG)
    unshare = _works(tools["unshare"], _UNSHARE)
    chosen = next(
        (m for m in (Confinement.MOUNTS, Confinement.LANDLOCK) if _trial(m, setpriv, unshare)),
        Confinement.NONE,
    )
    # Only the best answer these tools allow is kept: a lesser one may be a passing
    # failure (a trial stopped under load, the user's namespaces used up for a moment),
    # and is tried again by the next run instead of holding until the next boot.
    best = Confinement.MOUNTS if tools["unshare"] else Confinement.LANDLOCK
    all_worked = bool(setpriv or not tools["setpriv"]) and bool(unshare or not tools["unshare"])
    if all_worked and chosen is best:
        launch_cache.store(key, launch_cache.Launch(bool(setpriv), bool(unshare), chosen.value))
    return _System(setpriv, unshare, chosen, True)


def namespace_prefix() -> tuple[str, ...]:
    """`unshare ...` when this system lets us run a command in new user and PID namespaces
    with its own /proc; () when it does not (then processes are tracked by session)."""
    return _system_facts().unshare


def confinement() -> Confinement:
    """The first confinement that, tried here, lets a write inside the run's directory
    through and refuses one outside it."""
    return _system_facts().confinement


def confines(mode: Confinement) -> bool:
    """Whether `mode` works on this system: a shell run under it writes inside and not outside."""
    system = _system_facts()
    return _trial(mode, system.setpriv, system.unshare)


def _trial(mode: Confinement, setpriv: tuple[str, ...], unshare: tuple[str, ...]) -> bool:
    if mode is Confinement.NONE or _HOST_SYSTEM != "linux":
        return False
    if mode is Confinement.MOUNTS and not unshare:
        return False
    with tempfile.TemporaryDirectory(prefix="shiplint-confine-") as trial:
        inside, outside = Path(trial, "inside"), Path(trial, "outside")
        inside.mkdir()
        outside.mkdir()
        # Shell redirections, not touch: the same file creation, and no program to start.
        # (`true`, a regular builtin: a special one's failed redirection ends the shell.)
        script = 'true > "$1/written" && ! true 2>/dev/null > "$2/written"'
        command = [
            *_launcher(inside, mode, outside, setpriv, unshare),
            "/bin/sh",
            "-c",
            script,
            "sh",
            str(inside),
            str(outside),
        ]
        try:
            with subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            ) as process:
                # A trial stopped from outside is a trial that failed, found out in seconds.
                returncode, _ = wait_running(process, time.monotonic() + 20)
                _kill(process)
        except (OSError, subprocess.SubprocessError):
            return False
        return (
            returncode == 0 and (inside / "written").exists() and not (outside / "written").exists()
        )


def _launcher(
    work: Path,
    mode: Confinement,
    fence: Path,
    setpriv: tuple[str, ...],
    unshare: tuple[str, ...],
) -> list[str]:
    """What a run in `work` is started through: setpriv and unshare where they work, then
    the confinement, which proves itself by being refused a write in `fence` (outside
    `work`) before the command starts."""
    prefix = [*setpriv, *unshare]
    if mode is Confinement.NONE:
        return prefix
    if mode is Confinement.MOUNTS and not unshare:
        raise ValueError("read-only mounts need the user and mount namespace")
    confine = [sys.executable, "-I", "-S", "-c", _CONFINE_MAIN, mode.value, str(work), str(fence)]
    if mode is Confinement.MOUNTS:
        confine.append(str(os.stat("/proc/self/ns/mnt").st_ino))  # refused in this namespace
    return [*prefix, *confine, "--"]


def _works(found: str | None, options: tuple[str, ...]) -> tuple[str, ...]:
    if found is None or _HOST_SYSTEM != "linux":
        return ()
    try:
        result = subprocess.run(
            [found, *options, "--", "true"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    return _launch_part(found, options) if result.returncode == 0 else ()


def _launch_part(found: str | None, options: tuple[str, ...]) -> tuple[str, ...]:
    return () if found is None else (found, *options, "--")


class _Runs:
    """Every CMake run alive now, so that an interrupted shiplint can stop them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def add(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.add(process)
            stopping = self.stopping
        if stopping:
            _kill(process)

    def discard(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(process)

    def live(self) -> int:
        with self._lock:
            return len(self._live)

    def stop_all(self) -> None:
        with self._lock:
            self.stopping = True
            live = list(self._live)
        for process in live:
            _kill(process)


RUNS = _Runs()
on_interrupt(RUNS.stop_all)


def stop_all() -> None:
    """Kill every live run and refuse new ones (an interrupted shiplint is ending)."""
    RUNS.stop_all()


def configure(
    cmake: CMakeBinary,
    source: Path,
    work: Path,
    platform: Platform,
    timeout: float,
    languages: tuple[str, ...] = (),
    confine: Confinement | None = None,
    writable: Path | None = None,
    extra: tuple[str, ...] = (),
    path_first: tuple[Path, ...] = (),
) -> RunOutcome:
    """`cmake -S source -B work/build`, as `platform` when that is not the host's system;
    writable only inside `writable` (default `work`, which it must hold) under `confine`
    (default: the best this system offers). `extra` arguments go to that run only, not
    to a compiler detection made first, and so does `path_first` (directories put before
    the caller's PATH).

    The build tree starts from this toolchain's kept detection of the system and the
    `languages` (compilers.py), made first in a project of its own when none is kept.
    """
    mode = confinement() if confine is None else confine
    work.mkdir(parents=True, exist_ok=True)
    fence = (writable or work, mode)
    # One limit for the whole configure: the compiler detection's run spends from it.
    deadline = time.monotonic() + timeout
    arguments = platform_arguments(platform, languages)
    build = work / "build"
    spent = 0.0
    detected = _detection(cmake, arguments, languages, work, timeout, fence)
    if isinstance(detected, RunOutcome):
        return detected  # the detection itself ran out of time: so did this run
    spent, detection = detected
    if detection is not None:
        compilers.seed(build, detection)
    remaining = max(deadline - time.monotonic(), 0.0)
    outcome = _run(
        [cmake.path, *extra, "-S", str(source), "-B", str(build), *arguments],
        work,
        remaining,
        fence,
        path_first,
    )
    return replace(outcome, seconds=outcome.seconds + spent)


def platform_arguments(platform: Platform, languages: tuple[str, ...]) -> list[str]:
    """The arguments that configure as `platform` on this host (none for the host's own)."""
    if platform.os == _HOST_SYSTEM:
        return []
    return [f"-DCMAKE_SYSTEM_NAME={platform.cmake_system_name}", *cross_arguments(languages)]


def _detection(
    cmake: CMakeBinary,
    arguments: list[str],
    languages: tuple[str, ...],
    work: Path,
    timeout: float,
    fence: tuple[Path, Confinement],
) -> tuple[float, compilers.Detection | None] | RunOutcome:
    """The kept detection, else one made now (and kept) with the seconds it took; a run
    that failed leaves None, and the probe then detects (and reports) as CMake does.
    A newer CMake's detection of the same toolchain in this process gives its ABI
    answers (abi_sharing.py)."""
    given = compilers.inputs(cmake, arguments, languages)
    # One detection per input at a time: an evaluation asking for the one the warm-up
    # (warm_up.py) is making waits for it and finds it kept, instead of making it again.
    with holding(_making(given)):
        toolchain = abi_sharing.toolchain_key(arguments, languages)
        kept = compilers.load(given)
        if kept is not None:
            abi_sharing.offer(cmake, toolchain, kept)
            return 0.0, kept
        abi = abi_sharing.shared_abi(cmake, toolchain, languages)
        made, outcome = _detect_in(
            cmake, arguments, languages, work / "detect", timeout, fence, abi
        )
        spent = outcome.seconds
        if (
            abi
            and not outcome.timed_out
            and (made is None or not abi_sharing.honoured(made, abi, languages))
        ):
            # Given answers this CMake did not keep as given: its own full detection decides.
            remaining = max(timeout - spent, 0.0)
            made, outcome = _detect_in(
                cmake, arguments, languages, work / "detect-full", remaining, fence
            )
            spent += outcome.seconds
        if outcome.timed_out:
            return replace(outcome, seconds=spent)
        if made is not None:
            compilers.store(given, made)
            abi_sharing.offer(cmake, toolchain, made)
        return spent, made


_MAKING_LOCK = threading.Lock()
_MAKING: dict[bytes, threading.Lock] = {}


def _making(given: bytes) -> threading.Lock:
    with _MAKING_LOCK:
        return _MAKING.setdefault(given, threading.Lock())


def _detect_in(
    cmake: CMakeBinary,
    arguments: list[str],
    languages: tuple[str, ...],
    directory: Path,
    timeout: float,
    fence: tuple[Path, Confinement],
    abi: dict[str, str] | None = None,
) -> tuple[compilers.Detection | None, RunOutcome]:
    """One detection run in `directory` (under the run's directory, `fence`'s), given the
    ABI answers `abi`: what it left, and how it ended."""
    source = compilers.detection_project(
        directory, languages, abi_sharing.commands(abi or {}, languages)
    )
    build = directory / "build"
    outcome = _run(
        [cmake.path, "-S", str(source), "-B", str(build), *arguments],
        directory.parent,
        timeout,
        fence,
    )
    if outcome.timed_out or outcome.returncode != 0:
        return None, outcome
    return compilers.harvest(build, directory.parent), outcome


def detect(
    cmake: CMakeBinary, platform: Platform, languages: tuple[str, ...], work: Path, timeout: float
) -> None:
    """Make (or load) `cmake`'s detection for `platform` and `languages` (none: the
    system's alone) before its evaluations, in `work`: the newest CMake of a run first,
    so that the others share its ABI answers; the system's while the run reads its
    inputs (warm_up.py)."""
    work.mkdir(parents=True, exist_ok=True)
    arguments = platform_arguments(platform, languages)
    _detection(cmake, arguments, languages, work, timeout, (work, confinement()))


def run_script(
    cmake: CMakeBinary,
    script: Path,
    work: Path,
    timeout: float,
    confine: Confinement | None = None,
    extra: tuple[str, ...] = (),
) -> RunOutcome:
    """`cmake -P script` in `work`, under the same limits and confinement as a configure
    run (writable only inside `work`): the script includes files of the artifact, which
    are code like a config. `extra` arguments come before -P."""
    mode = confinement() if confine is None else confine
    work.mkdir(parents=True, exist_ok=True)
    return _run([cmake.path, *extra, "-P", str(script)], work, timeout, (work, mode))


def _run(
    args: list[str],
    work: Path,
    timeout: float,
    fence: tuple[Path, Confinement],
    path_first: tuple[Path, ...] = (),
) -> RunOutcome:
    """One CMake process under the launcher, in `work`, with the reduced environment,
    writable only inside the fence's directory (under its confinement)."""
    writable, mode = fence
    system = _system_facts()
    outcome = _run_once(args, work, timeout, writable, mode, system, path_first)
    if system.tried or not _launch_refused(outcome, system):
        return outcome
    # The kept answer no longer holds here (the launcher or the confinement refused
    # before CMake started): what fresh trials find, once per process.
    fresh = _system_facts(fresh=True)
    retry = fresh.confinement if mode is system.confinement else mode
    if retry is Confinement.MOUNTS and not fresh.unshare:
        return outcome  # no namespace for the mounts any more: the refusal stands
    remaining = max(timeout - outcome.seconds, 0.0)
    again = _run_once(args, work, remaining, writable, retry, fresh, path_first)
    return replace(again, seconds=again.seconds + outcome.seconds)


def _launch_refused(outcome: RunOutcome, system: _System) -> bool:
    """Whether the run ended before CMake started: confine.py refused, or setpriv or
    unshare failed (they say so under their own names)."""
    if outcome.returncode in (None, 0):
        return False
    if outcome.returncode == REFUSED and REFUSAL in outcome.stderr:
        return True
    tools = {Path(p[0]).name for p in (system.setpriv, system.unshare) if p}
    said = outcome.stderr.lstrip().split(":", 1)[0]
    return said in tools


def _run_once(
    args: list[str],
    work: Path,
    timeout: float,
    writable: Path,
    mode: Confinement,
    system: _System,
    path_first: tuple[Path, ...] = (),
) -> RunOutcome:
    start = time.monotonic()
    if RUNS.stopping:
        return RunOutcome(None, "", "", 0.0, mode)
    if mode is Confinement.MOUNTS and not system.unshare:
        raise ValueError("read-only mounts need the user and mount namespace")
    env = reduced_environment(work, path_first)
    if path_first:
        _fresh_memo(work / "home", mode)
    # The directory confine.py must be refused a write in: outside the writable one.
    with tempfile.TemporaryDirectory(prefix="shiplint-fence-", dir=scratch_dir()) as outside:
        launcher = _launcher(writable, mode, Path(outside), system.setpriv, system.unshare)
        with subprocess.Popen(
            [*launcher, *args],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        ) as process:
            RUNS.add(process)
            stdout, stderr = _Bounded(process.stdout), _Bounded(process.stderr)
            try:
                returncode, halted = wait_running(process, start + timeout)
            finally:
                # The whole session (and namespace): a config's execute_process children go
                # too, also when the run ended by itself and left a background process behind.
                _kill(process)
                RUNS.discard(process)
            if RUNS.stopping:
                returncode = None
            out, err = stdout.text(), stderr.text()
    return RunOutcome(returncode, out, err, time.monotonic() - start, mode, halted)


def _fresh_memo(home: Path, mode: Confinement) -> None:
    """An empty memo of the python stand-in's answers (python_memo.py) in `home`, for a
    confined run; none for an unconfined one (its config could change the interpreter
    between two questions). An earlier run's config may have left `home` or the memo a
    symbolic link: this process is not confined, so it follows none (no memo then)."""
    memo = home / MEMO
    try:
        if not stat.S_ISDIR(os.lstat(home).st_mode):
            return
        if stat.S_ISDIR(os.lstat(memo).st_mode):
            shutil.rmtree(memo)  # follows no link inside it either
        else:
            memo.unlink()  # a link or a file: removed, what it names untouched
    except FileNotFoundError:
        pass
    except OSError:
        return  # left unremovable: no memo this run
    if mode is not Confinement.NONE:
        with contextlib.suppress(OSError):
            memo.mkdir()


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


class _Bounded:
    """Drains a pipe in a thread, keeping its head and tail."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes] | None) -> None:
        if stream is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(64 * 1024):  # type: ignore[attr-defined]
                room = OUTPUT_HEAD - len(self._head)
                self._head += chunk[:room]
                self._tail += chunk[room:] if room > 0 else chunk
                if len(self._tail) > OUTPUT_TAIL:
                    self._dropped += len(self._tail) - OUTPUT_TAIL
                    del self._tail[: len(self._tail) - OUTPUT_TAIL]

    def text(self) -> str:
        # A process that left the session may hold the pipe open: do not wait for it.
        self._thread.join(timeout=5)
        gap = f"\n[... {self._dropped:,} bytes of output not kept ...]\n" if self._dropped else ""
        data = bytes(self._head) + gap.encode() + bytes(self._tail)
        return data.decode("utf-8", errors="replace")
