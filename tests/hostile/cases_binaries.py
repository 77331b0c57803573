"""Real libraries (ELF, Mach-O, PE) with bits flipped, cut short, or header fields at extremes,
each inside a small wheel checked against the real manifest."""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator

from tests.hostile.material import EXAMPLE_MANIFEST, LIBRARIES, member, small_wheel
from tests.hostile.runner import Case, Workspace

# (offset, width) of header fields whose extreme values send a parser far away:
# ELF64 e_phoff, e_shoff, e_phnum, e_shnum, e_shstrndx; Mach-O 64 ncmds, sizeofcmds and the
# first load command's cmdsize; PE e_lfanew, NumberOfSections, SizeOfOptionalHeader.
_ELF = ((0x20, 8), (0x28, 8), (0x38, 2), (0x3C, 2), (0x3E, 2), (0x36, 2), (0x3A, 2))
_MACHO = ((0x10, 4), (0x14, 4), (0x24, 4), (0x20, 4))


def _pe_fields(data: bytes) -> tuple[tuple[int, int], ...]:
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    optional = pe + 24
    # Data directories of PE32+: export (0), import (1) RVA and size.
    directories = optional + 112
    return (
        (0x3C, 4),
        (pe + 6, 2),
        (pe + 20, 2),
        (directories, 4),
        (directories + 4, 4),
        (directories + 8, 4),
        (directories + 12, 4),
        (optional + 108, 4),  # NumberOfRvaAndSizes
    )


def _fields(kind: str, data: bytes) -> tuple[tuple[int, int], ...]:
    return {"elf": _ELF, "macho": _MACHO}.get(kind) or _pe_fields(data)


def _mutate(kind: str, data: bytes, rng: random.Random, how: str) -> bytes:
    out = bytearray(data)
    if how == "flip":
        for _ in range(rng.choice((1, 4, 32, 256))):
            position = rng.randrange(len(out) if rng.random() < 0.5 else min(len(out), 4096))
            out[position] ^= 1 << rng.randrange(8)
        return bytes(out)
    if how == "truncate":
        return bytes(out[: rng.choice((0, 1, 4, 16, 63, 64, 200, 1024, rng.randrange(len(out))))])
    offset, width = rng.choice(_fields(kind, data))
    value = rng.choice((0, 1, (1 << (8 * width)) - 1, (1 << (8 * width - 1)), len(data), offset))
    out[offset : offset + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
    return bytes(out)


def cases(count: int, seed: int) -> Iterator[Case]:
    kinds = sorted(LIBRARIES)
    hows = ("flip", "truncate", "extreme")
    for i in range(count):
        kind, how = kinds[i % len(kinds)], hows[(i // len(kinds)) % len(hows)]
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, kind: str = kind, how: str = how, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            platform, name = LIBRARIES[kind]
            data = _mutate(kind, member(platform, name), rng, how)
            wheel = small_wheel(ws.inputs, platform, [(name, data)])
            return ["check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST), str(wheel)]

        yield Case("binaries", f"{kind}-{how}-{i}", case_seed, build)
