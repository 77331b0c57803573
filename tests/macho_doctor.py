"""Doctored copies of real Mach-O dylibs: one fact changed in place, every other byte kept.

No Mach-O linker runs here, so the tests that need a Mach-O defect plant it in a copy
of a real shipped dylib (the 1.5.1 macOS wheel's). Thin 64-bit little-endian files only,
which is what that wheel holds. Only the symbol table (LC_SYMTAB's nlist entries and
strings) and the load commands' `cmd` words are touched; lief reads those, so a
rule sees the planted defect exactly as it would in a broken build.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

_MH_MAGIC_64 = 0xFEEDFACF
_LC_SYMTAB = 0x2
_LC_LOAD_DYLIB = 0xC
_LC_REEXPORT_DYLIB = 0x8000001F
_NLIST_64 = 16


def _commands(data: bytes | bytearray) -> Iterator[tuple[int, int]]:
    """(offset, cmd) of every load command."""
    magic, _, _, _, ncmds = struct.unpack_from("<IiiII", data, 0)
    if magic != _MH_MAGIC_64:
        raise ValueError("not a thin 64-bit little-endian Mach-O file")
    offset = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        yield offset, cmd
        offset += size


def _symbols(data: bytes | bytearray) -> Iterator[tuple[int, bytes]]:
    """(offset of its nlist_64 entry, name) of every symbol-table entry."""
    for offset, cmd in _commands(data):
        if cmd != _LC_SYMTAB:
            continue
        symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", data, offset + 8)
        for index in range(nsyms):
            entry = symoff + index * _NLIST_64
            (strx,) = struct.unpack_from("<I", data, entry)
            end = data.index(b"\0", stroff + strx)
            yield entry, bytes(data[stroff + strx : end])


def rename_symbol(data: bytes, old: str, new: str) -> bytes:
    """The file with symbol `old` (Mach-O name, leading `_`) renamed `new`, same length."""
    if len(old) != len(new):
        raise ValueError("a renamed symbol keeps its length")
    out = bytearray(data)
    for offset, cmd in _commands(out):
        if cmd == _LC_SYMTAB:
            _, _, stroff, strsize = struct.unpack_from("<IIII", out, offset + 8)
            table = out[stroff : stroff + strsize]
            at = table.find(b"\0" + old.encode() + b"\0")
            if at < 0:
                raise ValueError(f"{old} is not in the string table")
            start = stroff + at + 1
            out[start : start + len(old)] = new.encode()
            return bytes(out)
    raise ValueError("no LC_SYMTAB")


def rebind(data: bytes, name: str, ordinal: int) -> bytes:
    """The file with the undefined symbol `name` bound to library ordinal `ordinal`
    (n_desc bits 8-15; 0xFE is `dynamic_lookup`)."""
    out = bytearray(data)
    for entry, symbol in _symbols(out):
        if symbol == name.encode():
            (desc,) = struct.unpack_from("<H", out, entry + 6)
            struct.pack_into("<H", out, entry + 6, (desc & 0x00FF) | (ordinal << 8))
            return bytes(out)
    raise ValueError(f"{name} is not in the symbol table")


def ordinal_of(data: bytes, name: str) -> int:
    """The library ordinal an undefined symbol is bound to."""
    for entry, symbol in _symbols(data):
        if symbol == name.encode():
            desc: int = struct.unpack_from("<H", data, entry + 6)[0]
            return desc >> 8
    raise ValueError(f"{name} is not in the symbol table")


def reexport(data: bytes, install_name: str) -> bytes:
    """The file with its LC_LOAD_DYLIB of `install_name` turned into LC_REEXPORT_DYLIB."""
    out = bytearray(data)
    for offset, cmd in _commands(out):
        if cmd != _LC_LOAD_DYLIB:
            continue
        (name_offset,) = struct.unpack_from("<I", out, offset + 8)
        end = out.index(b"\0", offset + name_offset)
        if bytes(out[offset + name_offset : end]) == install_name.encode():
            struct.pack_into("<I", out, offset, _LC_REEXPORT_DYLIB)
            return bytes(out)
    raise ValueError(f"no LC_LOAD_DYLIB of {install_name}")
