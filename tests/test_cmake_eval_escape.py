"""A package config that tries to undo its confinement: remount every mount read-write,
unmount the namespace's /proc to see the caller's processes, reach a listener on the
loopback, gain privileges in a nested user namespace. Real CMake (both routes) under
each confinement that works here, run as the caller and, when the caller is root, as
an unprivileged user too; every attempt must be refused and nothing written outside."""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from shiplint.cmake_eval import confine, run
from shiplint.cmake_eval.run import Confinement
from shiplint.manifest.model import Aggregate, Carries

from tests.material import cmake
from tests.test_cmake_eval_confinement import MODES, VERSIONS
from tests.test_cmake_eval_probe import _evaluate, _manifest

# The review's reproduction, word for word but for the file it writes.
REMOUNT = (
    "execute_process(COMMAND sh -c \"for m in $(awk '{print $5}' /proc/self/mountinfo); "
    'do mount -o remount,bind,rw $m; done; echo x > /tmp/outside")\n'
)
# What a config saw comes back as the value of PKG_SEEN (";" would split it into items).
_REPORT = (
    'string(REPLACE ";" "," seen "rc=${rc} out=${out} err=${err}")\n'
    'set(PKG_SEEN "${seen}")\nset(pkg_FOUND TRUE)\n'
    'message(STATUS "seen: ${seen}")\n'
)


def _unmount_proc() -> str:
    """Unmount the namespace's /proc, then read every process's command line there."""
    script = (
        "umount -l /proc; echo umount=$?; ls /proc | grep -c '^[0-9]'; "
        "cat /proc/[0-9]*/cmdline | tr '\\\\0' ' '"
    )
    return (
        f'execute_process(COMMAND sh -c "{script}" OUTPUT_VARIABLE out ERROR_VARIABLE err '
        "RESULT_VARIABLE rc)\n" + _REPORT
    )


def _connect(port: int) -> str:
    """CMake's own download (curl), then a program the config runs, at the loopback."""
    connect = (
        f"import socket; socket.create_connection(('127.0.0.1', {port}), 3); print('connected')"
    )
    return (
        f'file(DOWNLOAD "http://127.0.0.1:{port}/x" "${{CMAKE_BINARY_DIR}}/x" STATUS status '
        "TIMEOUT 5 INACTIVITY_TIMEOUT 2)\n"
        f'execute_process(COMMAND python3 -c "{connect}" OUTPUT_VARIABLE out ERROR_VARIABLE err '
        "RESULT_VARIABLE rc)\n"
        'set(err "${err} download=${status}")\n' + _REPORT
    )


def _connect_unix(path: Path) -> str:
    """A program the config runs, at a Unix socket file outside (a daemon's, say)."""
    connect = (
        f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); print('connected')"
    )
    return (
        f'execute_process(COMMAND python3 -c "{connect}" OUTPUT_VARIABLE out ERROR_VARIABLE err '
        "RESULT_VARIABLE rc)\n" + _REPORT
    )


def _seen(tmp_path: Path, config: str, version: str) -> str:
    aggregate = Aggregate("PKG_SEEN", Carries(), ())
    (ev,) = _evaluate(
        tmp_path, config, versions=(version,), the_manifest=_manifest(aggregates=(aggregate,))
    )
    assert ev.failure is None and ev.found, ev.failure
    assert not ev.unconfined
    (seen,) = ev.aggregates
    return ",".join(e.raw for e in seen.entries)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.setblocking(False)
        yield server


@pytest.fixture
def unix_listener() -> Iterator[socket.socket]:
    """A Unix socket anyone may connect to, in a directory anyone may enter."""
    directory = Path(tempfile.mkdtemp(prefix="shiplint-unix-"))
    directory.chmod(0o755)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(directory / "daemon.sock"))
            (directory / "daemon.sock").chmod(0o777)
            server.listen(8)
            server.setblocking(False)
            yield server
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _connections(server: socket.socket) -> int:
    """Connections the kernel completed on the listener (accepted or not)."""
    count = 0
    while True:
        try:
            client, _ = server.accept()
        except BlockingIOError:
            return count
        client.close()
        count += 1


@pytest.fixture
def sleeper() -> Iterator[str]:
    """A process of the caller's whose command line holds a name no config can guess."""
    marker = f"shiplint-caller-marker-{os.getpid()}-{id(object())}"
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", marker]) as proc:
        try:
            yield marker
        finally:
            proc.kill()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_a_config_that_remounts_every_mount_writable_writes_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement, version: str
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    outside = tmp_path / "outside"
    config = REMOUNT.replace("/tmp/outside", str(outside)) + "set(pkg_FOUND TRUE)\n"
    (ev,) = _evaluate(tmp_path, config, versions=(version,))
    assert not outside.exists()
    assert ev.failure is None and ev.found and not ev.unconfined


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_a_config_that_unmounts_proc_sees_no_process_of_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement, version: str, sleeper: str
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    seen = _seen(tmp_path, _unmount_proc(), version)
    assert "umount=" in seen and "umount=0" not in seen  # it ran, and was refused
    assert sleeper not in seen
    assert "cmake" in seen  # the namespace's own processes are what it sees


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_a_config_reaches_no_listener_on_the_loopback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: Confinement,
    version: str,
    listener: socket.socket,
) -> None:
    if mode is Confinement.LANDLOCK and confine.landlock_abi() < 4:
        pytest.skip("Landlock before ABI 4 does not confine TCP (docs/cmake-evaluation.md)")
    monkeypatch.setattr(run, "confinement", lambda: mode)
    seen = _seen(tmp_path, _connect(listener.getsockname()[1]), version)
    assert "rc=0" not in seen and "connected" not in seen, seen
    assert "download=0," not in seen, seen
    assert _connections(listener) == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_config_makes_no_user_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement
) -> None:
    if confine._filter(os.uname().machine) is None:
        pytest.skip("no seccomp filter for this machine (docs/cmake-evaluation.md)")
    monkeypatch.setattr(run, "confinement", lambda: mode)
    config = (
        "execute_process(COMMAND unshare --user true OUTPUT_VARIABLE out ERROR_VARIABLE err "
        "RESULT_VARIABLE rc)\n" + _REPORT
    )
    seen = _seen(tmp_path, config, VERSIONS[-1])
    assert "rc=0" not in seen and "Operation not permitted" in seen, seen


@pytest.mark.parametrize("mode", MODES)
def test_a_config_reaches_no_unix_socket_outside(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: Confinement,
    unix_listener: socket.socket,
) -> None:
    # A socket file is no write for a read-only mount, nor for Landlock: the seccomp
    # filter refuses the socket itself.
    if confine._filter(os.uname().machine) is None:
        pytest.skip("no seccomp filter for this machine (docs/cmake-evaluation.md)")
    monkeypatch.setattr(run, "confinement", lambda: mode)
    seen = _seen(tmp_path, _connect_unix(unix_listener.getsockname()), VERSIONS[-1])
    assert "rc=0" not in seen and "connected" not in seen, seen
    assert "PermissionError" in seen  # the config's program tried, and was refused
    assert _connections(unix_listener) == 0


def test_an_unconfined_config_reaches_the_unix_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unix_listener: socket.socket
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: Confinement.NONE)
    seen = _seen_unconfined(tmp_path, _connect_unix(unix_listener.getsockname()))
    assert "connected" in seen and _connections(unix_listener) >= 1


def _seen_unconfined(tmp_path: Path, config: str) -> str:
    aggregate = Aggregate("PKG_SEEN", Carries(), ())
    (ev,) = _evaluate(tmp_path, config, the_manifest=_manifest(aggregates=(aggregate,)))
    assert ev.unconfined
    (seen,) = ev.aggregates
    return ",".join(e.raw for e in seen.entries)


def test_an_unconfined_config_reaches_the_listener(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listener: socket.socket
) -> None:
    # The other side of the test above: without a confinement the same config connects,
    # so a refusal there is the confinement's doing.
    monkeypatch.setattr(run, "confinement", lambda: Confinement.NONE)
    config = _connect(listener.getsockname()[1])
    aggregate = Aggregate("PKG_SEEN", Carries(), ())
    (ev,) = _evaluate(tmp_path, config, the_manifest=_manifest(aggregates=(aggregate,)))
    assert ev.unconfined and _connections(listener) >= 1


@pytest.mark.parametrize("mode", MODES)
def test_a_config_runs_with_no_capability_and_no_new_privileges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    config = (
        "execute_process(COMMAND sh -c \"grep -E '^(Cap|NoNewPrivs)' /proc/self/status\" "
        "OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)\n" + _REPORT
    )
    seen = _seen(tmp_path, config, VERSIONS[-1])
    fields = dict(re.findall(r"(Cap\w+|NoNewPrivs):\s*(\w+)", seen))
    assert len(fields) == 6, seen
    assert all(int(fields[f"Cap{kind}"], 16) == 0 for kind in ("Inh", "Prm", "Eff", "Amb"))
    assert fields["NoNewPrivs"] == "1"


# A config's program that makes a user and mount namespace of its own, where it holds
# every capability, and tries from there.
_NESTED = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p,) * 3 + (ctypes.c_ulong, ctypes.c_void_p)
said = ["unshare=%d" % libc.unshare(0x10000000 | 0x00020000)]
for point in (b"/", b"/proc", os.path.dirname(sys.argv[1]).encode()):
    said.append("remount=%d" % libc.mount(None, point, None, 4096 | 32, None))
said.append("umount=%d" % libc.umount2(b"/proc", 2))
said.append("tmpfs=%d" % libc.mount(b"t", os.path.dirname(sys.argv[1]).encode(), b"tmpfs", 0, None))
try:
    open(sys.argv[1], "w").write("x")
    said.append("written")
except OSError as exc:
    said.append("refused")
print(" ".join(said))
"""


def test_the_mounts_hold_without_landlock_against_a_nested_namespace(tmp_path: Path) -> None:
    # Kernels without Landlock rely on the mount locks alone: confine.py with Landlock
    # and the seccomp filter (which refuses the namespace itself) switched off, then a
    # program holding every capability of a namespace it made.
    if not run.confines(Confinement.MOUNTS):
        pytest.skip("read-only mounts do not work here")
    writable, fence, canary = tmp_path / "writable", tmp_path / "fence", tmp_path / "canary"
    for directory in (writable, fence, canary):
        directory.mkdir()
    target = canary / "outside"
    harness = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('confine', {confine.__file__!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "module.landlock_abi = lambda: 0\n"
        "module.refuse_unix_sockets = lambda: False\n"
        "sys.exit(module.main(sys.argv[1:]))\n"
    )
    script = REMOUNT.split('"')[1].replace("/tmp/outside", str(target))
    result = subprocess.run(
        [*run.namespace_prefix(), sys.executable, "-I", "-S", "-c", harness, "mounts",
         str(writable), str(fence), str(confine.mount_namespace()), "--",
         "sh", "-c", f'{script}; umount -l /proc; echo umount=$?; '
         f'"$0" -c "$1" {target}', sys.executable, _NESTED],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "umount=0" not in result.stdout and "umount=" in result.stdout
    nested = result.stdout.strip().splitlines()[-1]
    assert nested.startswith("unshare=0 ")  # the namespace was made: the locks refuse the rest
    assert "remount=0" not in nested and "umount=0" not in nested and "refused" in nested
    assert not target.exists() and list(canary.iterdir()) == []


# --- as an unprivileged user, when the tests run as root ---------------------------------

NOBODY = 65534


def _nobody_python() -> str | None:
    """An interpreter the unprivileged user can run (this one may live in root's home)."""
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            ran = subprocess.run(
                # Through a shell: a program setpriv starts directly may still reach
                # root's files (it keeps the permitted capabilities until its exec).
                ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                 "sh", "-c", 'exec "$0" -I -S -c "open($1).close()"', python,
                 repr(confine.__file__)],
                capture_output=True, check=False, timeout=30,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            continue
        if ran.returncode == 0:
            return python
    return None


@pytest.fixture(scope="module")
def unprivileged() -> Iterator[tuple[str, Path]]:
    """(interpreter, a directory the unprivileged user may read, with both CMakes in it)."""
    if os.geteuid() != 0:
        pytest.skip("not root: the tests above already run as an unprivileged user")
    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv to change user")
    python = _nobody_python()
    if python is None:
        pytest.skip("no Python interpreter the unprivileged user can run")
    shared = Path(tempfile.mkdtemp(prefix="shiplint-unprivileged-"))
    try:
        shared.chmod(0o755)
        for version in VERSIONS:
            data = cmake(version).parents[1]
            # Hard links where the file system allows: no copy of the CMake trees.
            copied = subprocess.run(
                ["cp", "-al", str(data), str(shared / version)], capture_output=True, check=False
            )
            if copied.returncode != 0:
                shutil.copytree(data, shared / version, symlinks=True)
        yield python, shared
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _run_as_nobody(
    python: str, shared: Path, version: str, mode: Confinement, config: str
) -> subprocess.CompletedProcess[str]:
    """A consumer's configure of `config` as the unprivileged user, through the launcher
    run.py builds (setpriv, unshare, confine.py) with an interpreter that user can run."""
    base = Path(tempfile.mkdtemp(prefix="run-", dir=shared))
    base.chmod(0o755)
    work, fence, package, probe = base / "work", base / "fence", base / "pkg", base / "probe"
    for directory in (work, fence, package, probe):
        directory.mkdir()
        os.chown(directory, NOBODY, NOBODY)
    (package / "pkg-config.cmake").write_text(config)
    (probe / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(probe NONE)\n"
        f'find_package(pkg CONFIG PATHS "{package}" NO_DEFAULT_PATH)\n'
        'message(STATUS "found: ${pkg_FOUND}")\n'
    )
    system = run._system_facts()
    launcher = run._launcher(work, mode, fence, system.setpriv, system.unshare)
    launcher = [python if part == sys.executable else part for part in launcher]
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    try:
        return subprocess.run(
            [*drop, *launcher, str(shared / version / "bin" / "cmake"), "-S", str(probe),
             "-B", str(work / "build")],
            cwd=work, env={"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(work)},
            capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attempt", ["remount", "unmount-proc", "connect", "connect-unix"])
def test_every_escape_is_refused_as_an_unprivileged_user(
    unprivileged: tuple[str, Path],
    listener: socket.socket,
    unix_listener: socket.socket,
    sleeper: str,
    mode: Confinement,
    version: str,
    attempt: str,
) -> None:
    python, shared = unprivileged
    canary = Path(tempfile.mkdtemp(prefix="canary-", dir=shared))
    os.chown(canary, NOBODY, NOBODY)  # the user could write here, unconfined
    outside = canary / "outside"
    if attempt == "remount":
        config = REMOUNT.replace("/tmp/outside", str(outside)) + "set(pkg_FOUND TRUE)\n"
    elif attempt == "unmount-proc":
        config = _unmount_proc()
    elif attempt == "connect-unix":
        if confine._filter(os.uname().machine) is None:
            pytest.skip("no seccomp filter for this machine (docs/cmake-evaluation.md)")
        config = _connect_unix(unix_listener.getsockname())
    else:
        if mode is Confinement.LANDLOCK and confine.landlock_abi() < 4:
            pytest.skip("Landlock before ABI 4 does not confine TCP (docs/cmake-evaluation.md)")
        config = _connect(listener.getsockname()[1])
    result = _run_as_nobody(python, shared, version, mode, config)
    assert result.returncode == 0, result.stderr
    assert "-- found: 1" in result.stdout
    assert not outside.exists() and stat.S_ISDIR(canary.stat().st_mode)
    assert list(canary.iterdir()) == []
    if attempt == "unmount-proc":
        assert "umount=" in result.stdout and "umount=0" not in result.stdout
        assert sleeper not in result.stdout + result.stderr
    if attempt.startswith("connect"):
        assert "connected" not in result.stdout
        assert _connections(listener) == 0 and _connections(unix_listener) == 0
    shutil.rmtree(canary, ignore_errors=True)


def test_the_unprivileged_user_is_refused_a_write_it_could_make_unconfined(
    unprivileged: tuple[str, Path],
) -> None:
    # The other side: with nothing confining it, that user writes into the canary, so the
    # refusals above are the confinement's.
    python, shared = unprivileged
    canary = Path(tempfile.mkdtemp(prefix="canary-", dir=shared))
    os.chown(canary, NOBODY, NOBODY)
    outside = canary / "outside"
    config = f'file(WRITE "{outside}" x)\nset(pkg_FOUND TRUE)\n'
    result = _run_as_nobody(python, shared, VERSIONS[-1], Confinement.NONE, config)
    assert result.returncode == 0, result.stderr
    assert outside.read_text() == "x" and outside.stat().st_uid == NOBODY
    shutil.rmtree(canary, ignore_errors=True)
