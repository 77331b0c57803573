"""Confine a command's writes to one directory, then run it.

    confine.py landlock DIR FENCE -- CMD...
    confine.py mounts DIR FENCE CALLER_MOUNT_NAMESPACE -- CMD...


Started between the launcher and CMake, as a program of its own (standard library
only, run with `python -I -S`), so the confinement is in place before the package
config's first line runs and every process it starts inherits it:

- `mounts`: in a new user and mount namespace (`unshare --user --map-root-user
  --mount`, the launcher's), DIR is bound onto itself and every other mount is made
  read-only. Nothing outside DIR can be created, written, renamed or removed; devices
  such as /dev/null stay writable (a read-only mount does not apply to them). The
  caller's mount namespace (the inode of its /proc/self/ns/mnt) is given, and nothing
  is remounted unless this process is in another one: run by mistake in the caller's
  namespace (as root), the remounts would make the caller's own system read-only.
- `landlock`: the kernel's Landlock LSM (Linux 5.13+) refuses every file-system
  change beneath anything but DIR (and writes to /dev/null and its kin); works
  without namespaces.

Once the confinement is in place, and before CMD runs, a file is created in
FENCE, a directory outside DIR the user can write to: the confinement must refuse
it. So every run proves its own confinement, as the trial that chose the mode did
(run.py keeps that choice from run to run: a choice that no longer holds on this
system is caught here, not trusted).

Exits 125 with a message, without running CMD, when the confinement cannot be
applied or does not refuse the write in FENCE: an unconfined run is never passed
off as a confined one.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

REFUSED = 125
# How a refusal's message begins (run.py tells a refused launch from CMake's own failure).
REFUSAL = "shiplint: cannot confine the evaluation"

# <sys/mount.h>
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC = 32, 4096, 16384
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 1024, 2048, 1 << 21
# statvfs f_flag bit -> the mount flag a remount must repeat (the kernel refuses to
# clear a flag the parent namespace set: those are locked).
_KEPT_FLAGS = {
    os.ST_NOSUID: _MS_NOSUID,
    os.ST_NODEV: _MS_NODEV,
    os.ST_NOEXEC: _MS_NOEXEC,
    os.ST_NOATIME: _MS_NOATIME,
    os.ST_NODIRATIME: _MS_NODIRATIME,
    os.ST_RELATIME: _MS_RELATIME,
}

# <linux/landlock.h>
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_WRITE_FILE = 1 << 1
_CHANGES = (
    _WRITE_FILE
    | (1 << 4)  # REMOVE_DIR
    | (1 << 5)  # REMOVE_FILE
    | (1 << 6)  # MAKE_CHAR
    | (1 << 7)  # MAKE_DIR
    | (1 << 8)  # MAKE_REG
    | (1 << 9)  # MAKE_SOCK
    | (1 << 10)  # MAKE_FIFO
    | (1 << 11)  # MAKE_BLOCK
    | (1 << 12)  # MAKE_SYM
)
_REFER = 1 << 13  # ABI 2: link or rename across directories
_TRUNCATE = 1 << 14  # ABI 3
# Written to by shells and tools as a matter of course; writing them changes no file.
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class Unconfined(Exception):
    """The confinement could not be applied."""


def _libc() -> ctypes.CDLL:
    # The interpreter's own symbols include libc's: no library search (which can run tools).
    return ctypes.CDLL(None, use_errno=True)


def _fail(what: str) -> Unconfined:
    errno = ctypes.get_errno()
    return Unconfined(f"{what}: {os.strerror(errno)}")


def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers; 0 when it offers none."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def confine_landlock(writable: str) -> None:
    abi = landlock_abi()
    if abi < 1:
        raise Unconfined("the kernel offers no Landlock")
    handled = _CHANGES | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    attr = ctypes.c_uint64(handled)  # struct landlock_ruleset_attr, first field only
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        raise _fail("landlock_create_ruleset")
    try:
        _allow(libc, ruleset, writable, handled)
        for device in _DEVICES:
            if os.path.exists(device):
                _allow(libc, ruleset, device, _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0))
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as exc:
        if path in _DEVICES:
            return  # /dev/tty without a terminal: nothing to allow
        raise Unconfined(f"cannot open {path}: {exc.strerror}") from None
    try:
        rule = _PathBeneath(access, fd)
        if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise _fail(f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def check_fence(fence: str) -> None:
    """Raise Unconfined unless creating a file in `fence` is refused as the confinement
    refuses it: a read-only file system (mounts) or a denied access (Landlock)."""
    probe = os.path.join(fence, "shiplint-fence-probe")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return
        # Missing, or already holding the file: nothing shows the write would be refused.
        raise Unconfined(f"cannot check the confinement in {fence}: {exc.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    raise Unconfined(f"a write outside the writable directory went through (in {fence})")


def mount_namespace() -> int:
    return os.stat("/proc/self/ns/mnt").st_ino


def confine_mounts(writable: str, caller_namespace: int) -> None:
    """Bind `writable` onto itself, then remount every other mount read-only (in this
    mount namespace only: the caller's mounts are untouched)."""
    if mount_namespace() == caller_namespace:
        raise Unconfined("not in a mount namespace of its own; nothing remounted")
    libc = _libc()
    libc.mount.argtypes = (
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p,
    )  # fmt: skip
    real = os.path.realpath(writable)
    if libc.mount(real.encode(), real.encode(), None, _MS_BIND | _MS_REC, None) != 0:
        raise _fail(f"bind {real}")
    for point in _mount_points():
        if point == real or point.startswith(real.rstrip("/") + "/"):
            continue
        try:
            flags = os.statvfs(point).f_flag
        except OSError:
            continue  # gone, or not reachable by this user: nothing to write through
        kept = sum(bit for flag, bit in _KEPT_FLAGS.items() if flags & flag)
        options = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | kept
        if libc.mount(None, point.encode(), None, options, None) != 0:
            raise _fail(f"remount {point} read-only")


def _mount_points() -> list[str]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as info:
        for line in info:
            fields = line.split(" ")
            if len(fields) > 4:
                points.append(_unescape(fields[4]))
    return points


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else ""
    split = 4 if mode == "mounts" else 3
    if mode not in ("mounts", "landlock") or len(argv) <= split + 1 or argv[split] != "--":
        print(
            "usage: confine.py landlock DIR FENCE -- COMMAND... | "
            "confine.py mounts DIR FENCE CALLER_MOUNT_NAMESPACE -- COMMAND...",
            file=sys.stderr,
        )
        return REFUSED
    writable, fence, command = argv[1], argv[2], argv[split + 1 :]
    try:
        if mode == "mounts":
            confine_mounts(writable, int(argv[3]) if argv[3].isdigit() else -1)
        else:
            confine_landlock(writable)
        check_fence(fence)
    except Unconfined as exc:
        print(f"{REFUSAL} ({mode}): {exc}", file=sys.stderr)
        return REFUSED
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"shiplint: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
    return REFUSED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
