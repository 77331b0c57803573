"""The user's cache of results a later run can reuse: small files keyed by what decided them.

An entry is found by a key the caller derives from everything that decides its
content (the input's bytes, the code or schema that judged it, shiplint's
version), so an entry never goes stale: a changed input is a new key. Entries
live under `$XDG_CACHE_HOME/shiplint` (else `~/.cache/shiplint`). Concurrent runs
are safe: an entry is written to a file of its own and renamed into place, so a
reader sees the whole old file or the whole new one. Each entry carries a digest
of its payload; one that does not match (truncated, edited, from another
format) is ignored, never trusted. A cache that cannot be read or written (a
read-only home) only costs the time it would have saved.

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
import importlib.util
import os
import time
from collections.abc import Iterator
from pathlib import Path

from shiplint import __version__

_MAGIC = b"shiplint-cache 1\n"
# Set for the length of a --no-cache run. A process-wide flag rather than a context
# variable: the run's evaluation threads read the cache too.
_reuse_refused = False
# The entries written while reuse is refused: the run's own answers, which it may read.
_written_now: set[Path] = set()
_DIGEST = 32  # bytes of sha256
DEFAULT_MAX_MB = 256
_DAY = 24 * 60 * 60
# Its modification time is when the cache was last pruned.
_PRUNED_STAMP = ".pruned"


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
            stat = path.stat()
            parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
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
    """The payload stored under `kind`/`name`, or None when absent, unreadable or corrupt
    (and None when reuse is refused, unless this run wrote it)."""
    path = cache_dir() / kind / name
    if not reuse_allowed() and path not in _written_now:
        return None
    try:
        with open(path, "rb") as stream:
            data = stream.read()
            used = os.fstat(stream.fileno()).st_mtime
    except OSError:
        return None
    head = len(_MAGIC) + _DIGEST
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    payload = data[head:]
    if hashlib.sha256(payload).digest() != data[len(_MAGIC) : head]:
        return None
    if time.time() - used > _DAY:
        # Recently used, for pruning (once a day is precise enough for it).
        with contextlib.suppress(OSError):
            os.utime(path)
    return payload


def write(kind: str, name: str, payload: bytes) -> None:
    """Store `payload` under `kind`/`name`; silently nothing when the cache is not writable."""
    directory = cache_dir() / kind
    # Unique per writer: two runs storing the same entry never share a temporary file.
    temporary = directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with open(temporary, "xb") as stream:
            stream.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(temporary, directory / name)
        if not reuse_allowed():
            _written_now.add(directory / name)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return
    _prune_daily()


def max_bytes() -> int:
    """SHIPLINT_CACHE_MAX_MB in bytes; the default for a value that is not a number >= 0."""
    text = os.environ.get("SHIPLINT_CACHE_MAX_MB", "")
    try:
        value = float(text) if text else DEFAULT_MAX_MB
    except ValueError:
        value = DEFAULT_MAX_MB
    return int(value * 1024 * 1024) if value >= 0 else DEFAULT_MAX_MB * 1024 * 1024


def _prune_daily() -> None:
    stamp = cache_dir() / _PRUNED_STAMP
    try:
        if time.time() - stamp.stat().st_mtime < _DAY:
            return
    except OSError:
        pass  # never pruned here
    with contextlib.suppress(OSError):
        stamp.touch()
        prune(max_bytes())


def prune(limit: int) -> int:
    """Remove the least recently used entries while they take more than `limit` bytes,
    down to three quarters of it, and temporary files a writer left a day ago or more.
    Returns the bytes removed. Concurrent runs may prune together: an entry gone meanwhile
    is skipped, and a run missing an entry computes it again."""
    now = time.time()
    entries: list[tuple[float, int, str]] = []
    removed = 0
    for kind in _listdir(str(cache_dir())):
        for entry in _listdir(kind.path):
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                if now - info.st_mtime >= _DAY and _is_entry(entry.path):
                    removed += _remove(entry.path, info.st_size)
            elif _is_entry(entry.path):
                entries.append((info.st_mtime, info.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return removed
    target = limit * 3 // 4
    for _, size, path in sorted(entries):
        if total <= target:
            break
        removed += _remove(path, size)
        total -= size
    return removed


def _listdir(path: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            return [e for e in entries if not e.is_symlink()]
    except OSError:
        return []


def _is_entry(path: str) -> bool:
    """Whether the file starts with the entry header (a temporary one may be empty yet)."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(len(_MAGIC))
    except OSError:
        return False
    return head == _MAGIC or (head == b"" and path.endswith(".tmp"))


def _remove(path: str, size: int) -> int:
    try:
        os.unlink(path)
    except OSError:
        return 0
    return size
