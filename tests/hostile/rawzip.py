"""A zip writer that writes whatever it is told: lying sizes, any name bytes, any attributes,
bad CRCs, a central directory that disagrees with the members."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

STORED, DEFLATED = 0, 8
_UTF8_FLAG = 0x800


@dataclass
class Entry:
    name: bytes
    data: bytes  # as stored in the archive (already compressed when method is DEFLATED)
    method: int = STORED
    crc: int | None = None
    size: int | None = None  # the uncompressed size to declare
    mode: int = 0o100644  # unix st_mode in the external attributes (0o120777: a symlink)
    utf8: bool = True


def deflate(data: bytes, level: int = 9) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def entry(name: str | bytes, data: bytes, compress: bool = False, **kw: object) -> Entry:
    raw = name.encode() if isinstance(name, str) else name
    if compress:
        return Entry(raw, deflate(data), DEFLATED, zlib.crc32(data), len(data), **kw)  # type: ignore[arg-type]
    return Entry(raw, data, STORED, zlib.crc32(data), len(data), **kw)  # type: ignore[arg-type]


def build(entries: list[Entry], count: int | None = None, cd_offset: int | None = None) -> bytes:
    """The archive's bytes; `count` and `cd_offset` override what the end record declares."""
    body = bytearray()
    central = bytearray()
    for e in entries:
        crc = zlib.crc32(e.data) if e.crc is None else e.crc
        size = len(e.data) if e.size is None else e.size
        flags = _UTF8_FLAG if e.utf8 else 0
        offset = len(body)
        body += struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50,
            20,
            flags,
            e.method,
            0,
            0x21,
            crc,
            len(e.data),
            size,
            len(e.name),
            0,
        )
        body += e.name + e.data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            (3 << 8) | 20,
            20,
            flags,
            e.method,
            0,
            0x21,
            crc,
            len(e.data),
            size,
            len(e.name),
            0,
            0,
            0,
            0,
            (e.mode & 0xFFFF) << 16,
            offset,
        )
        central += e.name
    n = len(entries) if count is None else count
    start = len(body) if cd_offset is None else cd_offset
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n & 0xFFFF, n & 0xFFFF, len(central), start, 0)
    return bytes(body + central + end)
