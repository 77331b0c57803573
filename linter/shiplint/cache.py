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
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + _DIGEST
    if len(data) < head or not data.startswith(_MAGIC):
        return None
    payload = data[head:]
    if hashlib.sha256(payload).digest() != data[len(_MAGIC) : head]:
        return None
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
