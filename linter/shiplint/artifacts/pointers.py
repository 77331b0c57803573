"""Relocated pointers: what operator tables are read from, free of lief.

`shiplint.artifacts.lief_reader` finds the relocations and the loaded regions; this
module holds the result and the address arithmetic over the image.
"""

from __future__ import annotations

from dataclasses import dataclass

# A pointed-to string longer than this is no operator name or kernel key.
_MAX_POINTED_STRING = 512


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


def unreadable_pointers(reason: str) -> RelocatedPointers:
    """No pointers, and why."""
    return RelocatedPointers(0, (), (), frozenset(), reason)


@dataclass(frozen=True)
class Region:
    start: int
    data: bytes
    size: int
    executable: bool


class Image:
    """The loaded image as address ranges with their file bytes, for reads at addresses."""

    def __init__(self, regions: list[Region]) -> None:
        self._regions = sorted((r for r in regions if r.size), key=lambda r: r.start)

    def _find(self, address: int) -> Region | None:
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
        return int.from_bytes(region.data[offset : offset + size].ljust(size, b"\0"), "little")

    def string(self, address: int) -> str | None:
        # The NUL-terminated string AT the address, which may be the tail of a
        # longer literal: exactly what the runtime reads through the pointer.
        region = self._find(address)
        if region is None:
            return None
        offset = address - region.start
        end = region.data.find(b"\0", offset, offset + _MAX_POINTED_STRING)
        raw = region.data[offset:end] if end >= 0 else b""
        if not raw or not all(0x20 <= c < 0x7F for c in raw):
            return None
        return raw.decode("ascii")

    def executable(self, address: int) -> bool:
        region = self._find(address)
        return region is not None and region.executable

    def pointers(self, word_size: int, slots: dict[int, int]) -> RelocatedPointers:
        targets = set(slots.values())
        strings = tuple(sorted((t, s) for t in targets if (s := self.string(t)) is not None))
        code = frozenset(t for t in targets if self.executable(t))
        return RelocatedPointers(word_size, tuple(sorted(slots.items())), strings, code)
