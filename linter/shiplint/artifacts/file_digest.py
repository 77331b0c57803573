"""A file's SHA-256, kept by its identity on this machine.

The identity is what git's index and make go by: the resolved path, device, inode,
size, and modification and change times. A file written again has a new change time,
which no one but the kernel sets, so a kept digest is never one of other bytes, and a
warm run reads no byte of an archive it has seen.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from shiplint.memo import Memo, constant

_CHUNK = 1024 * 1024
_DIGESTS: Memo[bytes] = Memo("file-digest", constant(b"sha256 by stat identity 1"))


def file_digest(path: Path) -> bytes:
    """SHA-256 of the file's bytes (kept by its identity, and once per process)."""
    info = path.stat()
    identity = repr(
        (str(path.resolve()), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
         info.st_ctime_ns)
    ).encode("utf-8", "surrogateescape")  # fmt: skip
    return _digest(identity, path)


@functools.lru_cache(maxsize=64)
def _digest(identity: bytes, path: Path) -> bytes:
    kept = _DIGESTS.get(identity)
    if kept is not None and len(kept) == 32:
        return kept
    hasher = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            hasher.update(chunk)
    digest = hasher.digest()
    _DIGESTS.put(digest, identity)
    return digest
