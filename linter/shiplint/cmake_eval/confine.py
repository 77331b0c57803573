"""Confine a command to one writable directory, no network and no privileges, then run it.

    confine.py landlock DIR FENCE -- CMD...
    confine.py mounts DIR FENCE CALLER_MOUNT_NAMESPACE -- CMD...


Started between the launcher and CMake, as a program of its own (standard library
only, run with `python -I -S`: run.py imports it through `-c`, so its compiled form
is kept), so the confinement is in place before the package config's first line runs
and every process it starts inherits it:

- `mounts`: in the new user, mount and PID namespace the launcher made (`unshare
  --user --map-root-user --pid --mount-proc`), DIR is bound onto itself and every
  other mount is remounted read-only, no mount gives device files but /dev/null and
  its kin (each bound onto itself) and none honours set-user-ID bits. Then the
  process enters a network namespace of its own (no interface but a loopback that is
  down: nothing to connect to) and a further user and mount namespace: the mounts it
  inherits there are locked by the kernel (a less privileged namespace can neither
  clear their read-only, nodev and nosuid flags nor unmount one to show what lies
  beneath, such as the caller's /proc under the namespace's own). The caller's mount
  namespace (the inode of its /proc/self/ns/mnt) is given, and nothing is remounted
  unless this process is in another one: run by mistake in the caller's namespace
  (as root), the remounts would make the caller's own system read-only.
- `landlock`: the kernel's Landlock LSM (Linux 5.13+) refuses every file-system
  change beneath anything but DIR (and writes to /dev/null and its kin); works
  without namespaces.

Both then apply Landlock where the kernel offers it (in `mounts` too, as a second
wall: a Landlock-restricted process cannot mount or unmount anything, and from
ABI 4 connect or bind TCP sockets, from ABI 5 use ioctl on devices, from ABI 6
signal or reach abstract Unix sockets outside its domain), set no_new_privs, and
drop every capability (the bounding set too, with the `noroot` secure bits
locked: a uid 0 program gains none back by exec).

Once the confinement is in place, and before CMD runs, it is proven: a file is
created in FENCE, a directory outside DIR the user can write to, and the
confinement must refuse it; in `mounts`, remounting the root read-write and
unmounting /proc are refused while the capabilities are still held (the kernel's
locks, not the missing capabilities, refuse them) and a connection to the loopback
finds no network; no capability is left. So every run proves its own confinement,
as the trial that chose the mode did (run.py keeps that choice from run to run: a
choice that no longer holds on this system is caught here, not trusted).

Exits 125 with a message, without running CMD, when the confinement cannot be
applied or a proof fails: an unconfined run is never passed off as a confined one.
"""

from __future__ import annotations

import _socket  # socket's enums cost milliseconds at every run; the raw module has none
import ctypes
import errno
import os
import stat
import sys

REFUSED = 125
# How a refusal's message begins (run.py tells a refused launch from CMake's own failure).
REFUSAL = "shiplint: cannot confine the evaluation"

# <sys/mount.h>
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC = 32, 4096, 16384
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 1024, 2048, 1 << 21
_MNT_DETACH = 2
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
# <sched.h>
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
# <linux/prctl.h>, <linux/securebits.h>, <linux/capability.h>
_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_SET_NO_NEW_PRIVS = 24, 28, 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# noroot, no_setuid_fixup, keep_caps (locked off), no_cap_ambient_raise: each locked.
_SECURE_BITS = 0b11101111
_CAPABILITY_VERSION_3 = 0x20080522

# <linux/landlock.h>
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
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
_IOCTL_DEV = 1 << 15  # ABI 5: ioctl on a device file
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2  # ABI 6
# Written to by shells and tools as a matter of course; writing them changes no file.
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
# Device files that stay usable under read-only mounts (every other mount is nodev):
# the written ones and the random sources programs read.
_MOUNTED_DEVICES = (*_DEVICES, "/dev/random", "/dev/urandom")
# A port on the loopback: connecting to it must find no network at all.
_LOOPBACK = ("127.0.0.1", 9)


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


class Unconfined(Exception):
    """The confinement could not be applied."""


def _libc() -> ctypes.CDLL:
    # The interpreter's own symbols include libc's: no library search (which can run tools).
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mount.argtypes = (
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p,
    )  # fmt: skip
    libc.umount2.argtypes = (ctypes.c_char_p, ctypes.c_int)
    libc.prctl.argtypes = (
        ctypes.c_int,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
    )
    return libc


def _fail(what: str) -> Unconfined:
    return Unconfined(f"{what}: {os.strerror(ctypes.get_errno())}")


def landlock_abi() -> int:
    """The Landlock ABI version the kernel offers; 0 when it offers none."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(
        _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
    )
    return max(int(version), 0)


def confine_landlock(writable: str, abi: int | None = None) -> int:
    """Restrict this process and its children with Landlock: no file-system change but
    beneath `writable` (and writes to /dev/null and its kin), and, as the ABI allows,
    no TCP, no ioctl on devices, no signal or abstract Unix socket outside. Returns the
    ABI applied. Needs no_new_privs (set here) or CAP_SYS_ADMIN."""
    abi = landlock_abi() if abi is None else abi
    if abi < 1:
        raise Unconfined("the kernel offers no Landlock")
    libc = _libc()
    truncate = _TRUNCATE if abi >= 3 else 0
    attr = _RulesetAttr(
        _CHANGES | (_REFER if abi >= 2 else 0) | truncate | (_IOCTL_DEV if abi >= 5 else 0),
        # No rule allows a port: every TCP bind and connect is refused.
        _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0,
        _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0,
    )
    # The kernel reads as much of the attribute as its ABI knows (one field up to ABI 3).
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise _fail("landlock_create_ruleset")
    try:
        _allow(libc, ruleset, writable, attr.handled_access_fs & ~_IOCTL_DEV)
        for device in _DEVICES:
            if os.path.exists(device):
                _allow(libc, ruleset, device, _WRITE_FILE | truncate)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


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
    """Bind `writable` onto itself, then remount every other mount read-only, every
    mount but the bound device files nodev and all nosuid (in this mount namespace
    only: the caller's mounts are untouched). /proc is left to `lock_mounts`: the next
    namespace's id maps are written there."""
    if mount_namespace() == caller_namespace:
        raise Unconfined("not in a mount namespace of its own; nothing remounted")
    libc = _libc()
    real = os.path.realpath(writable)
    if libc.mount(real.encode(), real.encode(), None, _MS_BIND | _MS_REC, None) != 0:
        raise _fail(f"bind {real}")
    devices = set()
    for device in _MOUNTED_DEVICES:
        try:
            if not stat.S_ISCHR(os.stat(device).st_mode):
                continue
        except OSError:
            continue  # absent (or /dev/tty of no terminal): nothing to keep usable
        # Bound onto itself: a mount of its own, left without nodev.
        if libc.mount(device.encode(), device.encode(), None, _MS_BIND, None) != 0:
            raise _fail(f"bind {device}")
        devices.add(device)
    for point in _mount_points():
        if point == "/proc" or point.startswith("/proc/"):
            continue  # the namespace's own /proc hides the caller's and what it holds
        inside = point == real or point.startswith(real.rstrip("/") + "/")
        _remount(libc, point, read_only=not inside, devices=point in devices)


def _remount(libc: ctypes.CDLL, point: str, read_only: bool, devices: bool = False) -> None:
    try:
        flags = os.statvfs(point).f_flag
    except OSError:
        return  # gone, or not reachable by this user: nothing to write through
    kept = sum(bit for flag, bit in _KEPT_FLAGS.items() if flags & flag)
    options = _MS_BIND | _MS_REMOUNT | _MS_NOSUID | kept
    options |= 0 if devices else _MS_NODEV
    options |= _MS_RDONLY if read_only else 0
    if libc.mount(None, point.encode(), None, options, None) != 0:
        raise _fail(f"remount {point} {'read-only' if read_only else 'nodev'}")


def isolate_network() -> None:
    """Enter a network namespace of its own: a loopback that is down, nothing else. It
    is owned by this user namespace, so nothing in the next one can configure it."""
    if _libc().unshare(_CLONE_NEWNET) != 0:
        raise _fail("unshare(CLONE_NEWNET)")


def lock_mounts() -> None:
    """Enter a further user and mount namespace, owned by this one: the kernel locks
    every mount copied into it (MNT_LOCK_READONLY, _NODEV, _NOSUID, MNT_LOCKED), so
    even with every capability there the read-only view cannot be undone, which is
    proven here while they are held: remounting the root read-write and unmounting
    /proc are refused. Then /proc is made read-only too (its copies in any namespace
    made from here are locked; here, no process keeps a capability to undo it)."""
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
        raise _fail("unshare(CLONE_NEWUSER | CLONE_NEWNS)")
    # The same ids as outside: the files of the writable directory keep their owner.
    maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
    for name, text in maps:
        try:
            with open(f"/proc/self/{name}", "w", encoding="ascii") as stream:
                stream.write(text)
        except OSError as exc:
            raise Unconfined(f"cannot write /proc/self/{name}: {exc.strerror}") from None
    _check_locked(libc)
    _remount(libc, "/proc", read_only=True)


def _check_locked(libc: ctypes.CDLL) -> None:
    """Raise Unconfined unless the root cannot be remounted read-write nor /proc be
    unmounted: with the capabilities of this namespace held, only a lock refuses."""
    flags = os.statvfs("/").f_flag
    kept = sum(bit for flag, bit in _KEPT_FLAGS.items() if flags & flag)
    writable = _MS_BIND | _MS_REMOUNT | _MS_NOSUID | _MS_NODEV | kept
    if libc.mount(None, b"/", None, writable, None) == 0:
        raise Unconfined("the root could be remounted read-write: the mounts are not locked")
    if ctypes.get_errno() != errno.EPERM:
        raise _fail("remounting the root read-write was refused, but not as locked")
    if libc.umount2(b"/proc", _MNT_DETACH) == 0:
        raise Unconfined("/proc could be unmounted: the mounts are not locked")
    if ctypes.get_errno() != errno.EINVAL:
        raise _fail("unmounting /proc was refused, but not as locked")


def check_mounts_kept() -> None:
    """Raise Unconfined unless, with the capabilities dropped, neither /proc nor the root
    can be remounted read-write and /proc cannot be unmounted."""
    libc = _libc()
    for point in (b"/", b"/proc"):
        if libc.mount(None, point, None, _MS_BIND | _MS_REMOUNT, None) == 0:
            raise Unconfined(f"{point.decode()} could be remounted read-write")
    if libc.umount2(b"/proc", _MNT_DETACH) == 0:
        raise Unconfined("/proc could be unmounted")


def drop_privileges() -> None:
    """no_new_privs, and no capability left: none held, none to gain by exec (the
    bounding set emptied, the noroot secure bits locked)."""
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")
    status = _status()
    held = any(int(status.get(f"Cap{kind}", "0"), 16) for kind in ("Eff", "Prm", "Inh", "Amb"))
    if held or os.geteuid() == 0:
        # Each needs CAP_SETPCAP, which a process holding capabilities (or root) has.
        if libc.prctl(_PR_SET_SECUREBITS, _SECURE_BITS, 0, 0, 0) != 0:
            raise _fail("prctl(PR_SET_SECUREBITS)")
        for capability in range(_last_capability() + 1):
            if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
                raise _fail(f"prctl(PR_CAPBSET_DROP, {capability})")
    if libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
        raise _fail("prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise _fail("capset")
    status = _status()
    left = [kind for kind in ("Eff", "Prm", "Inh", "Amb") if int(status.get(f"Cap{kind}", "1"), 16)]
    if os.geteuid() == 0 and int(status.get("CapBnd", "1"), 16):
        left.append("Bnd")
    if left or status.get("NoNewPrivs") != "1":
        raise Unconfined(f"capabilities left after dropping them: {', '.join(left) or 'none'}")


def check_no_network(landlock: int) -> None:
    """Raise Unconfined unless connecting to the loopback finds no network (a network
    namespace of its own) or is refused (Landlock)."""
    refused = (errno.ENETUNREACH, errno.EACCES, errno.EPERM, errno.EADDRNOTAVAIL)
    probe = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        probe.setblocking(False)
        code = probe.connect_ex(_LOOPBACK)
    finally:
        probe.close()
    if code not in refused:
        label = os.strerror(code) if code else "connected"
        raise Unconfined(f"the loopback is reachable ({label}; Landlock ABI {landlock})")


def _status() -> dict[str, str]:
    with open("/proc/self/status", encoding="ascii", errors="replace") as stream:
        return dict(
            (key, value.strip()) for key, _, value in (line.partition(":") for line in stream)
        )


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as stream:
            return int(stream.read().strip())
    except (OSError, ValueError):
        return 63  # dropping a capability the kernel does not know is refused: see below


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


# <linux/seccomp.h>, <linux/filter.h>, <linux/audit.h>
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
# clone3 takes its flags in a structure a filter cannot read: it fails as unknown, and
# the C library falls back to clone, whose flags it can.
_CLONE3 = 435
_AF_UNIX = 1
_X32_SYSCALL_BIT = 0x40000000


class _SockFilter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


class _Abi:
    """A system call ABI's numbers: socket(2), and the calls refused outright
    (socketcall, whose arguments a filter cannot read; the key management calls;
    io_uring_setup, whose requests can open sockets without socket(2)). A plain class:
    importing dataclasses costs this program's every run 15 ms."""

    def __init__(
        self, arch: int, socket: int, refused: tuple[int, ...], clone: int, unshare: int
    ) -> None:
        self.arch = arch  # AUDIT_ARCH_*
        self.socket = socket
        self.refused = refused
        # Refused with CLONE_NEWUSER in their flags (their first argument).
        self.clone = clone
        self.unshare = unshare


# Per machine: its native ABI (x32 calls refused on x86_64), then the 32-bit one it runs.
_ABIS = {
    "x86_64": (
        _Abi(0xC000003E, 41, (248, 249, 250, 425), 56, 272),
        _Abi(0x40000003, 359, (102, 286, 287, 288, 425), 120, 310),
    ),
    "aarch64": (
        _Abi(0xC00000B7, 198, (217, 218, 219, 425), 220, 97),
        _Abi(0x40000028, 281, (102, 309, 310, 311, 425), 120, 337),
    ),
}


def _filter(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The seccomp program for `machine` (None: not known here): socket(AF_UNIX) and the
    refused calls fail with EACCES, clone and unshare making a user namespace with EPERM,
    clone3 with ENOSYS; every other call of a known ABI is allowed, and a call of any
    other ABI fails (ENOSYS)."""
    abis = _ABIS.get(machine)
    if abis is None:
        return None
    deny = _RET_ERRNO | errno.EACCES
    program: list[tuple[int, int, int, int]] = []
    for abi in abis:
        body: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, 0)]  # nr
        if abi.arch == 0xC000003E:
            body.append((_JGE_K, 0, 1, _X32_SYSCALL_BIT))
            body.append((_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS))
        for number in abi.refused:
            body.append((_JEQ_K, 0, 1, number))
            body.append((_RET_K, 0, 0, deny))
        body.append((_JEQ_K, 0, 1, _CLONE3))
        body.append((_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS))
        for number in (abi.clone, abi.unshare):
            # No user namespace of the config's own: no capabilities anywhere, and the
            # kernel code that only they reach stays out of reach.
            body.append((_JEQ_K, 0, 4, number))
            body.append((_LD_W_ABS, 0, 0, 16))
            body.append((_JSET_K, 0, 1, _CLONE_NEWUSER))
            body.append((_RET_K, 0, 0, _RET_ERRNO | errno.EPERM))
            body.append((_RET_K, 0, 0, _RET_ALLOW))
        body.append((_JEQ_K, 0, 3, abi.socket))
        body.append((_LD_W_ABS, 0, 0, 16))  # args[0], low 32 bits (both are little-endian)
        body.append((_JEQ_K, 0, 1, _AF_UNIX))
        body.append((_RET_K, 0, 0, deny))
        body.append((_RET_K, 0, 0, _RET_ALLOW))
        # Load the architecture; if it is not this ABI's, skip this ABI's body.
        program += [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 0, len(body), abi.arch), *body]
    program.append((_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS))
    return program


def refuse_unix_sockets() -> bool:
    """Install a seccomp filter: no socket(AF_UNIX) (a socket file the user may connect
    to, such as a container daemon's, is not a write a read-only mount refuses), no
    kernel keyrings, no io_uring, no user namespace of the config's own. Needs
    no_new_privs. False on a machine whose system call numbers are not known here
    (nothing installed); proven by a refused socket and a refused user namespace."""
    program = _filter(os.uname().machine)
    if program is None:
        return False
    instructions = (_SockFilter * len(program))(*(_SockFilter(*i) for i in program))
    fprog = _SockFprog(len(program), instructions)
    if _libc().prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise _fail("prctl(PR_SET_SECCOMP)")
    if _libc().unshare(_CLONE_NEWUSER) == 0:
        raise Unconfined("a user namespace could still be made after the seccomp filter")
    try:
        _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM).close()
    except PermissionError:
        return True
    raise Unconfined("a Unix socket could still be made after the seccomp filter")


def confine(mode: str, writable: str, fence: str, caller_namespace: int) -> None:
    """Apply `mode` and the walls both modes share, then prove them."""
    abi = landlock_abi()
    if mode == "mounts":
        confine_mounts(writable, caller_namespace)
        isolate_network()
        lock_mounts()
    if mode == "landlock" or abi >= 1:
        confine_landlock(writable, abi)
    drop_privileges()
    refuse_unix_sockets()
    check_fence(fence)
    if mode == "mounts":
        check_mounts_kept()
    if mode == "mounts" or abi >= 4:
        check_no_network(abi)


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
    caller = int(argv[3]) if mode == "mounts" and argv[3].isdigit() else -1
    try:
        confine(mode, writable, fence, caller)
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
