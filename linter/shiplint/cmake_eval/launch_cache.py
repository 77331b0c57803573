"""What this system lets a CMake run be started through, found by trials once and kept.

Whether `setpriv` and `unshare` work here, and which confinement refuses a write
outside a run's directory, are found out by trial runs (run.py): a dozen processes
and tens of milliseconds before the first evaluation of every shiplint run. Their
answer is decided by the kernel that is booted, its settings about user
namespaces, the namespaces and seccomp filter shiplint runs in, the user, and the
programs run; it is kept in the user cache (`shiplint.memo`) under a key made of
exactly those, so any change of them is a new key and new trials. Only the best
answer the tools allow is kept (every tool worked, and the first confinement
that could confines); a lesser one is tried again by every run, as it may be a
passing failure.

A kept answer is no weaker than a trial: every confined run proves its
confinement before CMake starts (confine.py's fence) and refuses to run
otherwise; run.py then tries again, from fresh trials. It holds verdicts only
(whether each tool worked, which confinement confined), never a command: run.py
builds the launcher again from the tools PATH gives now and its own options, so an
entry, however it came to be there, cannot choose what runs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from shiplint.fastclass import dataclass
from shiplint.memo import Memo, constant

# The only answers ever kept (run.py keeps the best its tools allow): an entry can
# never turn the confinement off.
_CONFINEMENTS = ("mounts", "landlock")
# The settings that decide whether an unprivileged user may make user namespaces:
# Debian's switch, the kernel's limits, Ubuntu's AppArmor restriction.
_SETTINGS = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/user/max_mnt_namespaces",
    "/proc/sys/user/max_pid_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined",
    "/sys/kernel/security/lsm",
)
# The namespaces this process runs in: another container is another system.
_NAMESPACES = ("user", "mnt", "pid")
# Lines of /proc/self/status that restrict what a process may do (a seccomp filter
# can refuse unshare or mount).
_STATUS = ("Seccomp:", "Seccomp_filters:", "NoNewPrivs:", "CapEff:", "CapBnd:")


@dataclass(frozen=True)
class Launch:
    """The trials' answer: whether setpriv and unshare worked here, and the confinement."""

    setpriv: bool
    unshare: bool
    confinement: str


def entry_key(tools: dict[str, str | None], program: Path) -> bytes:
    """What the trials' answer is keyed by, for these tools (name -> the path PATH gives,
    None when absent) and this confinement program, on this system now."""
    decided_by = json.dumps(
        [
            _read("/proc/sys/kernel/random/boot_id"),
            list(os.uname()),
            os.getuid(),
            os.getgid(),
            {path: _read(path) for path in _SETTINGS},
            {name: _namespace(name) for name in _NAMESPACES},
            _status(),
            {name: _fingerprint(path) for name, path in sorted(tools.items())},
            _fingerprint(sys.executable),
            _fingerprint(str(program)),
        ]
    )
    return decided_by.encode()


def load(key: bytes) -> Launch | None:
    """The kept answer under `key`, or None."""
    return _VERDICTS.get(key)


def store(key: bytes, launch: Launch) -> None:
    _VERDICTS.put(launch, key)


def _encode(launch: Launch) -> Any:
    return (launch.setpriv, launch.unshare, launch.confinement)


def _decode(data: Any) -> Launch:
    """Verdicts only: two booleans and a confinement that confines. Anything else (an
    older format's argv, a planted command) is refused, and the trials run again."""
    setpriv, unshare, confinement = data
    if not (type(setpriv) is bool and type(unshare) is bool):
        raise TypeError("not a verdict")
    if confinement not in _CONFINEMENTS:
        raise ValueError("not a confinement that is ever kept")
    return Launch(setpriv, unshare, confinement)


# What decides the answer is all in its key (the system, the tools, confine.py's bytes);
# the identity names the verdicts' form.
_VERDICTS: Memo[Launch] = Memo("cmake-launch", constant(b"verdicts 3"), _encode, _decode)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.read(65536).strip()
    except OSError:
        return None


def _namespace(name: str) -> str | None:
    try:
        return os.readlink(f"/proc/self/ns/{name}")
    except OSError:
        return None


def _status() -> list[str]:
    text = _read("/proc/self/status") or ""
    return [line for line in text.splitlines() if line.startswith(_STATUS)]


def _fingerprint(path: str | None) -> list[object] | None:
    """A file's final target, size, modification and change times and inode."""
    if path is None:
        return None
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except (OSError, ValueError):
        return None
    return [real, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
