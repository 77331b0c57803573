"""Read a plain zip member outside zipfile: in large blocks, through the fastest inflater.

zipfile's member reader inflates a few KiB at a time with Python calls around each piece;
over a wheel of thousands of members that costs more than the inflating itself (a cold
check of ExecuTorch 1.5.1's Linux wheel reads 5,370 members, 64 MB inflated). Here a
member is read from the archive in MiB blocks and inflated in blocks of a few hundred
KiB, by zlib-ng's drop-in of the zlib module when it is installed (it inflates the same
streams to the same bytes in half the time), else by zlib.

Only a *plain* member is read here: a stored or deflated one, neither encrypted nor
patched, whose local header is where the central directory puts it and names the same
file, whose data is all there (and, where zipfile checks it, does not run into the next
entry), and which inflates to the end of its deflate stream, using all its compressed
bytes, to exactly its declared size. zipfile reads such a member to these same bytes.
Anything else is not read here: the caller reads it through zipfile, which reads it or
says what is wrong, as it would have without this reader.
"""

from __future__ import annotations

import functools
import io
import struct
import zipfile
import zlib
from collections.abc import Callable
from types import ModuleType
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from shiplint.artifacts.zip_listing import ZipEntry

# What is read from the archive, and inflated, at a time: few Python calls per member,
# bounded memory, and inflated pieces small enough to stay in the CPU's cache for the
# hash or CRC-32 that reads them next.
_READ = 1024 * 1024
_BLOCK = 256 * 1024
_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
# Encrypted (0x01), compressed patched data (0x20), strong encryption (0x40).
_NOT_PLAIN_FLAGS = 0x61
_UTF8_NAME = 0x800


@functools.cache
def inflater() -> ModuleType:
    """zlib-ng's zlib module when it is installed, else zlib: imported once, when a member
    is first read. Either inflates a deflate stream to the same bytes (the format fixes
    them), so the choice changes only the time taken."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        return zlib
    return zlib_ng


def read_plain(
    stream: IO[bytes],
    info: zipfile.ZipInfo | ZipEntry,
    sink: Callable[[bytes], object],
    *,
    crc: bool,
    encoding: str | None = None,
) -> bool:
    """Give a plain member's bytes to `sink`, block by block, in order; whether the member
    was plain (and, with `crc`, its bytes match the CRC-32 of the central directory, as
    zipfile requires of what it reads). When False, whatever `sink` was given is to be
    dropped and the member read through zipfile. `sink` is never given more than the
    member's declared size in all: a member that inflates past it stops being read there.

    The caller keeps the archive's file position to itself while this runs (zipfile's own
    readers seek before every read, so an open one is not disturbed)."""
    module = inflater()
    try:
        return _read(stream, info, sink, crc, module, encoding or "cp437")
    except (OSError, ValueError, OverflowError, struct.error, zlib.error, module.error):
        # A header offset past what a seek takes, a name that is not UTF-8, a corrupt
        # stream: zipfile says what it is.
        return False


def _read(
    stream: IO[bytes],
    info: zipfile.ZipInfo | ZipEntry,
    sink: Callable[[bytes], object],
    crc: bool,
    module: ModuleType,
    encoding: str,
) -> bool:
    if (
        info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
        or info.flag_bits & _NOT_PLAIN_FLAGS
        or (info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size)
    ):
        return False
    stream.seek(info.header_offset)
    header = stream.read(_LOCAL.size)
    if len(header) < _LOCAL.size or header[:4] != _LOCAL_SIGNATURE:
        return False
    fields = _LOCAL.unpack(header)
    flags, name_length, extra_length = fields[2], fields[9], fields[10]
    # Decoded as zipfile decodes it (a name it cannot decode raises: not plain).
    local_name = stream.read(name_length).decode("utf-8" if flags & _UTF8_NAME else encoding)
    if local_name != info.orig_filename:
        return False
    start = stream.seek(extra_length, io.SEEK_CUR)
    # zipfile (3.12 on) refuses a member whose data runs into the next entry, the mark of
    # a bomb made of overlapping members: not plain, so it says so here too.
    end = getattr(info, "_end_offset", None)
    if end is not None and start + info.compress_size > end:
        return False
    return _inflate(stream, info, sink, crc, module)


def _inflate(
    stream: IO[bytes],
    info: zipfile.ZipInfo | ZipEntry,
    sink: Callable[[bytes], object],
    crc: bool,
    module: ModuleType,
) -> bool:
    read = stream.read
    size = 0
    running = 0
    left = info.compress_size
    deflated = info.compress_type == zipfile.ZIP_DEFLATED
    inflating = module.decompressobj(-15) if deflated else None
    pending = b""
    while True:
        if not pending and left:
            pending = read(min(_READ, left))
            if not pending:
                return False  # the archive ends inside the member
            left -= len(pending)
        if inflating is None:
            data, pending = pending, b""
        else:
            # Bounded output: a member that inflates past its size is never held whole.
            data = inflating.decompress(pending, _BLOCK)
            pending = inflating.unconsumed_tail
        size += len(data)
        if size > info.file_size:
            return False
        if data:
            sink(data)
            if crc:
                running = module.crc32(data, running)
        if inflating is not None and inflating.eof:
            break
        if not data and not pending and not left:
            break  # nothing more to read nor to inflate
    complete = inflating is None or (inflating.eof and not inflating.unused_data)
    if not complete or left or pending or size != info.file_size:
        return False
    return not crc or running == info.CRC
