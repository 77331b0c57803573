"""The user's cache of results a later run can reuse: small files keyed by what decided them.

An entry is found by a key the caller derives from everything that decides its
content (the input's bytes, the code or schema that judged it, shiplint's
version), so an entry never goes stale: a changed input is a new key. Entries
live under `$XDG_CACHE_HOME/shiplint` (else `~/.cache/shiplint`). Concurrent runs
are safe: an entry is written to a file of its own and renamed into place, so a
reader sees the whole old file or the whole new one. A cache that cannot be read
or written (a read-only home) only costs the time it would have saved.

The cache is an input like any other (it may be restored from another machine, or
planted by someone who could write there), so nothing read from it is trusted
for being there (docs/threat-model.md):
- the directory must be the user's own and writable by nobody else (as ssh and pip
  ask of theirs); otherwise the run goes without the cache and says so once;
- each entry carries an HMAC-SHA256 of its kind, name and payload under a secret
  key: the `.key` file (32 random bytes, created exclusively, mode 0600) in the
  directory, or the secret in SHIPLINT_CACHE_SECRET where entries cross machines
  (the Action's repository secret). An entry that does not verify (truncated,
  edited, forged, moved to another name, written under another key) is a miss;
- every file and directory is opened relative to the directory without following
  a symbolic link, an entry without blocking (a FIFO is no hang) and only when it
  is a regular file of at most MAX_ENTRY bytes (a link to /dev/zero is no memory
  exhausted); kinds and names are plain names, never paths.

The cache is bounded: at most once a day, a write that finds the entries over
SHIPLINT_CACHE_MAX_MB (256 by default) removes the least recently used ones until
they fill three quarters of it (a read refreshes an entry's time once a day). Only
files that carry the entry header are ever counted or removed, whatever else
shares the directory.

`--no-cache` (and SHIPLINT_NO_CACHE=1) makes a run reuse nothing kept before it: a
read misses, whatever kind of answer it asks for, unless the run itself wrote the
entry (a compiler detection it just made, which its evaluations are keyed by); what
the run finds is stored anew.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import importlib.util
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from shiplint import __version__

# Format 2: an HMAC where format 1 had a plain digest; a format 1 entry is a miss.
_MAGIC = b"shiplint-cache 2\n"
# What every format's header starts with: pruning counts old entries too.
_ANY_FORMAT = b"shiplint-cache "
# Set for the length of a --no-cache run. A process-wide flag rather than a context
# variable: the run's evaluation threads read the cache too.
_reuse_refused = False
# The entries written while reuse is refused: the run's own answers, which it may read.
_written_now: set[tuple[str, str]] = set()
_MAC = 32  # bytes of HMAC-SHA256
DEFAULT_MAX_MB = 256
# The largest entry read or written: the largest kept thing (a big tree's sources
# model) is a few MiB; a bigger file is not one shiplint wrote.
MAX_ENTRY = 64 * 1024 * 1024
_DAY = 24 * 60 * 60
# Its modification time is when the cache was last pruned.
_PRUNED_STAMP = ".pruned"
_KEY_FILE = ".key"
_KEY_BYTES = 32
SECRET_VARIABLE = "SHIPLINT_CACHE_SECRET"
# Kinds and entry names are plain names: never a separator, never `.` or `..`.
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Where the system cannot open relative to a directory without following links
# (Windows), the cache is not used: every guard above needs it.
_SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and os.open in os.supports_dir_fd

_lock = threading.Lock()
# Per cache directory (device, inode): its key. Read once per process.
_keys: dict[tuple[int, int], bytes] = {}
# Directories already refused, so each is reported once.
_refused: set[str] = set()
# The key SHIPLINT_CACHE_SECRET gave, once taken out of the environment.
_given: bytes | None = None


def forget_secret() -> None:
    """Use the directory's own key again (a secret given before is forgotten)."""
    global _given
    os.environ.pop(SECRET_VARIABLE, None)
    _given = None


class _Refused(Exception):
    """The cache directory (or a kind's) is not safe to use; the message says why."""


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/shiplint`; the XDG spec says a relative value is to be ignored."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "shiplint"


def key(*parts: bytes) -> str:
    """A key for an entry decided by `parts` (and this shiplint version)."""
    digest = hashlib.sha256(__version__.encode())
    for part in parts:
        # Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def source_bytes(paths: tuple[Path, ...]) -> bytes:
    """What stands for code in a key: the files' bytes, each after its name."""
    return b"\0".join(path.name.encode() + b"\0" + path.read_bytes() for path in paths)


@functools.cache
def installed(package: str, pattern: str = "*") -> bytes:
    """What stands for an installed package's code in a key, without importing it: the
    name, size and modification time of each of its files matching `pattern` (a
    reinstall or an upgrade changes them). Empty when the package is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return b""
    parts = []
    for path in sorted(Path(spec.origin).parent.glob(pattern)):
        if path.is_file():
            info = path.stat()
            parts.append(f"{path.name}:{info.st_size}:{info.st_mtime_ns}".encode())
    return b"\0".join(parts)


def reuse_allowed() -> bool:
    """Whether kept entries may be read: not within `refusing_reuse`, nor with SHIPLINT_NO_CACHE=1."""
    return not _reuse_refused and os.environ.get("SHIPLINT_NO_CACHE", "") in ("", "0")


@contextlib.contextmanager
def refusing_reuse(refuse: bool = True) -> Iterator[None]:
    """Within this block (when `refuse`), a read of an entry not written in the block
    misses; writes still store."""
    global _reuse_refused
    before = _reuse_refused
    _reuse_refused = before or refuse
    try:
        yield
    finally:
        _reuse_refused = before
        if not before:
            _written_now.clear()


def read(kind: str, name: str) -> bytes | None:
    """The payload stored under `kind`/`name`, or None when absent, unreadable, not
    authentic or not safe to read (and None when reuse is refused, unless this run
    wrote it)."""
    _check_names(kind, name)
    if not reuse_allowed() and (kind, name) not in _written_now:
        return None
    try:
        with _root(create=False) as (root, secret), _kind_dir(root, kind, create=False) as where:
            data, used = _read_entry(where, name)
            if data is None:
                return None
            head = len(_MAGIC) + _MAC
            if len(data) < head or not data.startswith(_MAGIC):
                return None
            payload = memoryview(data)[head:]
            if not hmac.compare_digest(_mac(secret, kind, name, payload), data[len(_MAGIC) : head]):
                return None
            if time.time() - used > _DAY:
                # Recently used, for pruning (once a day is precise enough for it).
                _touch(where, name)
            return bytes(payload)
    except (OSError, _Refused):
        return None


def write(kind: str, name: str, payload: bytes) -> None:
    """Store `payload` under `kind`/`name`; silently nothing when the cache is not writable."""
    _check_names(kind, name)
    if len(payload) + len(_MAGIC) + _MAC > MAX_ENTRY:
        return  # it would never be read back
    # Unique per writer: two runs storing the same entry never share a temporary file.
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        with _root(create=True) as (root, secret), _kind_dir(root, kind, create=True) as where:
            data = _MAGIC + _mac(secret, kind, name, payload) + payload
            try:
                _create(where, temporary, data)
                os.replace(temporary, name, src_dir_fd=where, dst_dir_fd=where)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=where)
                return
            if not reuse_allowed():
                _written_now.add((kind, name))
            _prune_daily(root)
    except (OSError, _Refused):
        return


def max_bytes() -> int:
    """SHIPLINT_CACHE_MAX_MB in bytes; the default for a value that is not a number >= 0."""
    text = os.environ.get("SHIPLINT_CACHE_MAX_MB", "")
    try:
        value = float(text) if text else DEFAULT_MAX_MB
    except ValueError:
        value = DEFAULT_MAX_MB
    return int(value * 1024 * 1024) if value >= 0 else DEFAULT_MAX_MB * 1024 * 1024


def usable() -> str | None:
    """None when the cache directory may be used (or does not exist yet); else why not."""
    try:
        with _root(create=False, quiet=True):
            return None
    except FileNotFoundError:
        return None
    except (OSError, _Refused) as exc:
        return str(exc)


def _check_names(kind: str, name: str) -> None:
    if not (_PLAIN.fullmatch(kind) and _PLAIN.fullmatch(name)):
        raise ValueError(f"not a plain cache name: {kind!r}/{name!r}")


def _mac(secret: bytes, kind: str, name: str, payload: bytes | memoryview) -> bytes:
    # Kind and name are inside the MAC: an authentic entry moved to another key
    # (a manifest's "valid" answer under another manifest's name) does not verify.
    mac = hmac.new(secret, f"{kind}\0{name}\0".encode(), hashlib.sha256)
    mac.update(payload)
    return mac.digest()


@contextlib.contextmanager
def _root(create: bool, quiet: bool = False) -> Iterator[tuple[int, bytes]]:
    """The cache directory, open, checked to be the user's own and not writable by
    others, and the key its entries are authenticated with."""
    if not _SUPPORTED:
        raise _Refused("this system cannot open files without following links")
    path = cache_dir()
    if create:
        with contextlib.suppress(OSError):
            # Private from the start; parents as the user's umask makes them.
            os.makedirs(path.parent, exist_ok=True)
            os.mkdir(path, 0o700)
    fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        problem = _unsafe(os.fstat(fd), "directory") or _foreign_link(path)
        if problem:
            message = f"{path} {problem}"
            if not quiet:
                _say_once(message)
            raise _Refused(message)
        yield fd, _secret(fd, path)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _kind_dir(root: int, kind: str, create: bool) -> Iterator[int]:
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(kind, 0o700, dir_fd=root)  # never follows a link at `kind`
    # O_NOFOLLOW: a kind directory that is a link is refused, not written through.
    fd = os.open(kind, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=root)
    try:
        problem = _unsafe(os.fstat(fd), "directory")
        if problem:
            _say_once(f"{cache_dir() / kind} {problem}")
            raise _Refused(problem)
        yield fd
    finally:
        os.close(fd)


def _unsafe(info: os.stat_result, what: str) -> str | None:
    """Why a file of the cache must not be used: another user's, or writable by others."""
    if info.st_uid != os.geteuid():
        return f"is owned by uid {info.st_uid}, not by this user (uid {os.geteuid()})"
    if info.st_mode & 0o022:
        return f"is a {what} writable by others (mode {stat.filemode(info.st_mode)})"
    return None


def _foreign_link(path: Path) -> str | None:
    """The directory may be a link the user made (a cache on another disk), not one
    another user left for the user to follow (a link in a shared /tmp)."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) and info.st_uid != os.geteuid():
        return f"is a link owned by uid {info.st_uid}, not by this user"
    return None


def _say_once(message: str) -> None:
    with _lock:
        if message in _refused:
            return
        _refused.add(message)
    print(
        f"shiplint: not using the cache: {message}; running without it "
        "(make it the user's own and `chmod go-w` it, or remove it)",
        file=sys.stderr,
    )


def _taken_secret() -> bytes | None:
    """The key SHIPLINT_CACHE_SECRET stands for, taken out of the environment so that
    no process shiplint starts (CMake, a config's commands, a probe's program) inherits
    it; kept for this process once taken."""
    global _given
    text = os.environ.pop(SECRET_VARIABLE, "")
    if text:
        _given = hashlib.sha256(b"shiplint cache secret\0" + text.encode()).digest()
    return _given


def _secret(root: int, path: Path) -> bytes:
    """The key entries are authenticated with: from SHIPLINT_CACHE_SECRET, else the
    directory's own key file, made on first use."""
    given = _taken_secret()
    if given is not None:
        return given
    info = os.fstat(root)
    identity = (info.st_dev, info.st_ino)
    with _lock:
        known = _keys.get(identity)
    if known is not None:
        return known
    try:
        secret = _read_key(root)
    except FileNotFoundError:
        secret = _make_key(root)
    if len(secret) != _KEY_BYTES:
        message = f"{path / _KEY_FILE} is not a key shiplint made"
        _say_once(message)
        raise _Refused(message)
    with _lock:
        _keys[identity] = secret
    return secret


def _read_key(root: int) -> bytes:
    fd = os.open(_KEY_FILE, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=root)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            # Another's, or readable by others: whoever could read it could forge.
            mode = stat.filemode(info.st_mode)
            message = f"{_KEY_FILE} is not this user's private file ({mode}, uid {info.st_uid})"
            _say_once(message)
            raise _Refused(message)
        return os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)


def _make_key(root: int) -> bytes:
    """A fresh key, written whole to a file of its own, then linked into place: of two
    runs making one at once, the second to link uses the first's."""
    temporary = f".key.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    secret = os.urandom(_KEY_BYTES)
    _create(root, temporary, secret)
    try:
        os.link(temporary, _KEY_FILE, src_dir_fd=root, dst_dir_fd=root, follow_symlinks=False)
    except FileExistsError:
        return _read_key(root)
    except OSError:
        # A file system without hard links: renamed into place instead (two runs making
        # a key at the same moment may then each keep entries the other recomputes once).
        os.rename(temporary, _KEY_FILE, src_dir_fd=root, dst_dir_fd=root)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=root)
    return secret


def _create(directory: int, name: str, data: bytes) -> None:
    """A new file of the user's alone: fails rather than open anything already there."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    fd = os.open(name, flags, 0o600, dir_fd=directory)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _read_entry(directory: int, name: str) -> tuple[bytes | None, float]:
    """The entry's bytes and last use; None unless it is a regular file of the user's
    within the size bound. Never follows a link, never waits on a FIFO."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=directory)
    except OSError:
        return None, 0.0
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_size > MAX_ENTRY
        ):
            return None, 0.0
        chunks = []
        left = info.st_size + 1  # one more: a file that grew meanwhile is refused
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > info.st_size:
            return None, 0.0
        return data, info.st_mtime
    finally:
        os.close(fd)


def _touch(directory: int, name: str) -> None:
    with contextlib.suppress(OSError, NotImplementedError):
        os.utime(name, dir_fd=directory, follow_symlinks=False)


def _prune_daily(root: int) -> None:
    try:
        info = os.stat(_PRUNED_STAMP, dir_fd=root, follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) and time.time() - info.st_mtime < _DAY:
            return
        if not stat.S_ISREG(info.st_mode):
            # A link (dangling or not) or anything else: removed, never written through.
            os.unlink(_PRUNED_STAMP, dir_fd=root)
            raise FileNotFoundError
        os.utime(_PRUNED_STAMP, dir_fd=root, follow_symlinks=False)
    except FileNotFoundError:
        try:
            _create(root, _PRUNED_STAMP, b"")
        except OSError:
            return  # another run is making it now: it prunes
    except OSError:
        return
    with contextlib.suppress(OSError, _Refused):
        prune(max_bytes())


def prune(limit: int) -> int:
    """Remove the least recently used entries while they take more than `limit` bytes,
    down to three quarters of it, and temporary files a writer left a day ago or more.
    Returns the bytes removed. Concurrent runs may prune together: an entry gone meanwhile
    is skipped, and a run missing an entry computes it again."""
    with _root(create=False, quiet=True) as (root, _):
        kinds = [e.name for e in _listdir(root) if e.is_dir(follow_symlinks=False)]
        now = time.time()
        entries: list[tuple[float, int, str, str]] = []
        removed = 0
        for kind in kinds:
            try:
                fd = os.open(kind, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=root)
            except OSError:
                continue
            try:
                for entry in _listdir(fd):
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if not stat.S_ISREG(info.st_mode):
                        continue
                    name = entry.name
                    if name.startswith(".") and name.endswith(".tmp"):
                        if now - info.st_mtime >= _DAY and _is_entry(fd, name):
                            removed += _remove(fd, name, info.st_size)
                    elif _is_entry(fd, name):
                        entries.append((info.st_mtime, info.st_size, kind, name))
            finally:
                os.close(fd)
        total = sum(size for _, size, _, _ in entries)
        if total <= limit:
            return removed
        target = limit * 3 // 4
        for _, size, kind, name in sorted(entries):
            if total <= target:
                break
            try:
                fd = os.open(kind, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=root)
            except OSError:
                continue
            try:
                removed += _remove(fd, name, size)
            finally:
                os.close(fd)
            total -= size
        return removed


def _listdir(directory: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as entries:
            return [e for e in entries if not e.is_symlink()]
    except OSError:
        return []


def _is_entry(directory: int, name: str) -> bool:
    """Whether the file starts with an entry header (a temporary one may be empty yet)."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=directory)
    except OSError:
        return False
    try:
        head = os.read(fd, len(_ANY_FORMAT))
    except OSError:
        return False
    finally:
        os.close(fd)
    return head == _ANY_FORMAT or (head == b"" and name.endswith(".tmp"))


def _remove(directory: int, name: str, size: int) -> int:
    try:
        os.unlink(name, dir_fd=directory)
    except OSError:
        return 0
    return size


# Taken at import: the CLI imports this module before it starts any process.
_taken_secret()
