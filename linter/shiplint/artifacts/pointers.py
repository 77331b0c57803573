"""Relocated pointers: what operator tables are read from, free of any parser.

The reading stack (`shiplint.artifacts.reading`) finds the relocations and the loaded
regions; this module holds the result and the address arithmetic over the image.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import field
from itertools import pairwise

from shiplint.fastclass import dataclass

# A pointed-to string longer than this is no operator name or kernel key.
_MAX_POINTED_STRING = 512
_PRINTABLE = bytes(range(0x20, 0x7F))


@dataclass(frozen=True)
class RelocatedPointers:
    """The pointer-sized slots the loader fills with addresses inside the image itself.

    Registration tables (ExecuTorch's `Kernel` arrays) hold their names as such
    pointers; reading names through the relocations, not `strings`, neither
    counts error-message text nor misses a name the linker merged into the tail
    of a longer string. Read only when the operator rules need it
    (`read_relocated_pointers`), never by `read_binary`.
    """

    word_size: int
    # (slot address, target address), sorted by slot.
    slots: tuple[tuple[int, int], ...]
    # (target, text) for every target holding a NUL-terminated printable ASCII string.
    strings: tuple[tuple[int, str], ...]
    # Targets inside executable code.
    code: frozenset[int]
    # Why the pointers could not be read (then everything else is empty), else None.
    unreadable: str | None = None
    # As `BinaryError.transient`: why is about this reading, not the bytes; never kept.
    transient: bool = field(default=False, compare=False)


def unreadable_pointers(reason: str, *, transient: bool = False) -> RelocatedPointers:
    """No pointers, and why."""
    return RelocatedPointers(0, (), (), frozenset(), reason, transient)


@dataclass(frozen=True)
class Region:
    start: int
    # The file-backed part: a view into the file's bytes where the reader has them whole
    # (a library's sections are most of its bytes, not copied to read a few thousand
    # words and strings out of them).
    data: bytes | memoryview
    size: int
    executable: bool


class Image:
    """The loaded image as address ranges with their file bytes, for reads at addresses."""

    def __init__(self, regions: list[Region]) -> None:
        self._regions = sorted((r for r in regions if r.size), key=lambda r: r.start)
        self._starts = [r.start for r in self._regions]
        # A library's operator tables point at thousands of targets: a binary search finds
        # each one's region, which is the first that holds it only when none overlap.
        self._disjoint = all(a.start + a.size <= b.start for a, b in pairwise(self._regions))

    def _find(self, address: int) -> Region | None:
        if self._disjoint:
            index = bisect_right(self._starts, address) - 1
            if index >= 0:
                region = self._regions[index]
                if address < region.start + region.size:
                    return region
            return None
        for region in self._regions:
            if region.start <= address < region.start + region.size:
                return region
        return None

    def word(self, address: int, size: int) -> int | None:
        region = self._find(address)
        if region is None:
            return None
        offset = address - region.start
        # Bytes past the file-backed part (bss) read as zero, as they are loaded.
        return int.from_bytes(
            bytes(region.data[offset : offset + size]).ljust(size, b"\0"), "little"
        )

    def string(self, address: int) -> str | None:
        region = self._find(address)
        return None if region is None else _string_at(region, address)

    def executable(self, address: int) -> bool:
        region = self._find(address)
        return region is not None and region.executable

    def pointers(self, word_size: int, slots: dict[int, int]) -> RelocatedPointers:
        strings: list[tuple[int, str]] = []
        code: set[int] = set()
        for target in set(slots.values()):
            region = self._find(target)
            if region is None:
                continue
            if (text := _string_at(region, target)) is not None:
                strings.append((target, text))
            if region.executable:
                code.add(target)
        return RelocatedPointers(
            word_size, tuple(sorted(slots.items())), tuple(sorted(strings)), frozenset(code)
        )


def _string_at(region: Region, address: int) -> str | None:
    # The NUL-terminated string AT the address, which may be the tail of a
    # longer literal: exactly what the runtime reads through the pointer.
    offset = address - region.start
    window = bytes(region.data[offset : offset + _MAX_POINTED_STRING])
    end = window.find(b"\0")
    raw = window[:end] if end >= 0 else b""
    # Deleting every printable ASCII byte leaves nothing only when all of them are.
    if not raw or raw.translate(None, _PRINTABLE):
        return None
    return raw.decode("ascii")
