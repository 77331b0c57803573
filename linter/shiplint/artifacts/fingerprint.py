"""A zip member's fingerprint: a digest of everything reading it depends on, taken
without inflating it.

Reading a member (`ArtifactTree.read`) is a function of the central directory's entry
for it (name, flags, method, CRC-32, sizes), its local header (signature, name, extra
field) and its compressed bytes: zipfile checks the header against the entry, inflates
the bytes, stops at the declared size and compares the CRC-32. The digest covers all
of them, so two members with the same fingerprint read the same, the same bytes or
the same error, wherever they lie in whichever archive. Hashing the compressed bytes
(SHA-256, a few milliseconds for a wheel's libraries) costs a small part of inflating
them, which is what a kept answer about the bytes saves. The fingerprints taken in an
archive are kept too, under the digest of the archive file (`file_digest`).
"""

from __future__ import annotations

import hashlib
import struct
import zipfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from shiplint import cache
from shiplint.memo import Memo, constant

if TYPE_CHECKING:
    from shiplint.artifacts.zip_listing import ZipEntry

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
# Large enough that a library's compressed bytes are one read and one hash update (each
# gives the GIL up, and taking it back while another thread runs costs up to 5 ms),
# small enough that a member declaring gigabytes is never held whole.
_CHUNK = 64 << 20
# Changed whenever what the digest covers changes, so an old fingerprint never matches.
_FORMAT = b"zip member fingerprint 1"


def zip_member_fingerprint(stream: IO[bytes], info: zipfile.ZipInfo | ZipEntry) -> bytes | None:
    """The member's fingerprint, read from `stream` (the archive, positioned anywhere);
    None when its local header cannot be read (then reading the member says why)."""
    stream.seek(info.header_offset)
    header = stream.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size:
        return None
    *_, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    digest = hashlib.sha256(_FORMAT)
    entry = (
        info.orig_filename,
        info.flag_bits,
        info.compress_type,
        info.CRC,
        info.compress_size,
        info.file_size,
    )
    digest.update(repr(entry).encode("utf-8", "surrogateescape"))
    digest.update(header)
    digest.update(stream.read(name_length + extra_length))
    # The compressed bytes, as many as the entry declares and the file holds.
    left = info.compress_size
    while left > 0:
        chunk = stream.read(min(left, _CHUNK))
        if not chunk:
            break
        digest.update(chunk)
        left -= len(chunk)
    digest.update(left.to_bytes(8, "little", signed=True))
    return digest.digest()


def _encode(fingerprints: dict[int, bytes]) -> Any:
    return sorted(fingerprints.items())


def _decode(data: Any) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    for offset, fingerprint in data:
        if type(offset) is not int or type(fingerprint) is not bytes or len(fingerprint) != 32:
            raise ValueError("not a member fingerprint")
        out[offset] = fingerprint
    return out


# An archive's member fingerprints by local header offset, kept under the archive file's
# digest: the archive's bytes decide every member's entry and bytes, so a warm run over
# an archive it has seen hashes no member again.
_KEPT: Memo[dict[int, bytes]] = Memo(
    "zip-fingerprints", constant(cache.source_bytes((Path(__file__),))), _encode, _decode
)


def kept_fingerprints(archive_digest: bytes) -> dict[int, bytes]:
    """The fingerprints kept for the archive with this digest (empty when none are)."""
    return _KEPT.get(archive_digest) or {}


def keep_fingerprints(archive_digest: bytes, fingerprints: dict[int, bytes]) -> None:
    _KEPT.put(fingerprints, archive_digest)
