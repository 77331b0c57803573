"""What a binary's own header says, read with `struct`, before (or instead of) parsing it.

The magic numbers that tell the formats apart, the truncation checks the parser of
the reading stack does not make (it builds a partial binary from a cut file without
complaint), and
`sniff`: the OS and architecture of a binary from its first bytes, which is how an
artifact without a wheel tag gets its platform without parsing anything.
"""

from __future__ import annotations

import mmap
import struct

from shiplint.platforms import Platform, normalise_arch
from shiplint.plural import counted

ELF_MAGIC = b"\x7fELF"
AR_MAGICS = (b"!<arch>\n", b"!<thin>\n")
MACHO_MAGICS = frozenset(
    {
        b"\xfe\xed\xfa\xce",
        b"\xce\xfa\xed\xfe",
        b"\xfe\xed\xfa\xcf",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",  # universal (also a Java class file; the parser tells them apart)
        b"\xbe\xba\xfe\xca",
    }
)
_UNIVERSAL = (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca")
# How many leading bytes `sniff` needs: a PE header sits after the DOS stub.
SNIFF_BYTES = 4096

# e_machine, Mach-O cputype and PE machine numbers, spelled as the binary records spell them.
_ELF_MACHINES = {
    62: "x86_64",
    183: "aarch64",
    3: "x86",
    40: "arm",
    21: "ppc64le",
    22: "s390x",
    243: "riscv64",
}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "aarch64", 7: "x86", 12: "arm"}
_PE_MACHINES = {0x8664: "x86_64", 0xAA64: "aarch64", 0x14C: "x86", 0x1C4: "arm"}


def sniff(head: bytes) -> Platform | None:
    """The OS and architecture a binary's first bytes declare, or None (not a binary, a
    static archive, a header cut short). A universal Mach-O with several architectures
    has none (`arch` None), as its record has no single one."""
    try:
        if head.startswith(ELF_MAGIC):
            order = "<" if head[5:6] == b"\x01" else ">"
            (machine,) = struct.unpack_from(order + "H", head, 18)
            return Platform("linux", _arch(_ELF_MACHINES, machine))
        if head[:4] in _UNIVERSAL:
            (count,) = struct.unpack_from(">I", head, 4)
            cpus = {struct.unpack_from(">I", head, 8 + 20 * i)[0] for i in range(count)}
            arch = _arch(_MACHO_CPUS, cpus.pop()) if len(cpus) == 1 else None
            return Platform("macos", arch)
        if head[:4] in MACHO_MAGICS:
            order = "<" if head[:4] in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
            (cpu,) = struct.unpack_from(order + "I", head, 4)
            return Platform("macos", _arch(_MACHO_CPUS, cpu))
        if head.startswith(b"MZ"):
            (offset,) = struct.unpack_from("<I", head, 0x3C)
            if head[offset : offset + 4] != b"PE\0\0":
                return None
            (machine,) = struct.unpack_from("<H", head, offset + 4)
            return Platform("windows", _arch(_PE_MACHINES, machine))
    except (struct.error, IndexError):  # cut short before the field: no platform to tell
        return None
    return None


def _arch(table: dict[int, str], number: int) -> str:
    return normalise_arch(table.get(number, f"machine-{number:#x}"))


def elf_truncation(data: bytes | mmap.mmap) -> str | None:
    """Why the ELF file is cut short, read from its own header, or None when it is whole.

    The parser builds a partial binary from a truncated file without complaint; a
    library whose dynamic section is cut off would then look like one with no
    dependencies, which is a wrong fact rather than an unreadable file.
    """
    if len(data) < 64:
        return f"truncated: {len(data)} bytes, shorter than an ELF header"
    is64 = data[4] == 2
    little = data[5] == 1
    order = "<" if little else ">"
    if is64:
        phoff, shoff = struct.unpack_from(order + "QQ", data, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", data, 54)
    else:
        phoff, shoff = struct.unpack_from(order + "II", data, 28)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", data, 42)
    size = len(data)
    if phoff + phentsize * phnum > size:
        return (
            f"truncated: program headers end at {phoff + phentsize * phnum}, file has {size} bytes"
        )
    if shnum and shoff + shentsize * shnum > size:
        return (
            f"truncated: section headers end at {shoff + shentsize * shnum}, file has {size} bytes"
        )
    for index in range(phnum):
        base = phoff + index * phentsize
        if is64:
            offset, filesz = (
                struct.unpack_from(order + "Q", data, base + 8)[0],
                struct.unpack_from(order + "Q", data, base + 32)[0],
            )
        else:
            offset, filesz = (
                struct.unpack_from(order + "I", data, base + 4)[0],
                struct.unpack_from(order + "I", data, base + 16)[0],
            )
        if offset + filesz > size:
            return f"truncated: segment {index} ends at {offset + filesz}, file has {size} bytes"
    return None


def macho_problem(data: bytes) -> str | None:
    """Why a thin Mach-O file is cut short or empty, read from its header, or None."""
    magic = data[:4]
    if magic in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
        if len(data) < 8:
            return "truncated: shorter than a universal header"
        (count,) = struct.unpack_from(">I", data, 4)
        if 8 + 20 * count > len(data):
            return f"truncated: {counted(count, 'architecture')} do not fit in {len(data)} bytes"
        for index in range(count):
            offset, size = struct.unpack_from(">II", data, 8 + 20 * index + 8)
            if offset + size > len(data):
                return f"truncated: architecture {index} ends at {offset + size}, file has {len(data)} bytes"
        return None
    order = "<" if magic in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
    header = 32 if magic in (b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf") else 28
    if len(data) < header:
        return f"truncated: {len(data)} bytes, shorter than a Mach-O header"
    ncmds, sizeofcmds = struct.unpack_from(order + "II", data, 16)
    if ncmds == 0:
        return "no load commands"
    if header + sizeofcmds > len(data):
        return f"truncated: load commands end at {header + sizeofcmds}, file has {len(data)} bytes"
    return None
