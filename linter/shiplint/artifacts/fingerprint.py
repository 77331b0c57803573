"""A zip member's fingerprint: a digest of everything reading it depends on, taken
without inflating it.

Reading a member (`ArtifactTree.read`) is a function of the central directory's entry
for it (name, flags, method, CRC-32, sizes), its local header (signature, name, extra
field) and its compressed bytes: zipfile checks the header against the entry, inflates
the bytes, stops at the declared size and compares the CRC-32. The digest covers all
of them, so two members with the same fingerprint read the same, the same bytes or
the same error, wherever they lie in whichever archive. Hashing the compressed bytes
(SHA-256, a few milliseconds for a wheel's libraries) costs a small part of inflating
them, which is what a kept answer about the bytes saves.
"""

from __future__ import annotations

import hashlib
import struct
import zipfile
from typing import IO

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
# Large enough that a library's compressed bytes are one read and one hash update (each
# gives the GIL up, and taking it back while another thread runs costs up to 5 ms),
# small enough that a member declaring gigabytes is never held whole.
_CHUNK = 64 << 20
# Changed whenever what the digest covers changes, so an old fingerprint never matches.
_FORMAT = b"zip member fingerprint 1"


def zip_member_fingerprint(stream: IO[bytes], info: zipfile.ZipInfo) -> bytes | None:
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
