"""Read a binary too large to hold in memory: copied from the archive into a temporary
file piece by piece, then mapped, so a reader touches only the pages it looks at.

A real SDK ships dylibs of hundreds of MiB (torch 2.14.1's macOS libtorch_cpu.dylib is
368 MiB): inflated whole, handed to lief (which copies it twice more), one such file
took a run to 1.5 GB. The struct readers (`macho_reader`, `elf_reader`) read the load
commands or dynamic section and the symbol tables, a few tens of MiB of the mapping.
"""

from __future__ import annotations

import hashlib
import mmap
import tempfile
from typing import IO

from shiplint.artifacts.archive import IN_MEMORY_BYTES as IN_MEMORY_BYTES
from shiplint.artifacts.headers import ELF_MAGIC, MACHO_MAGICS
from shiplint.artifacts.reading.elf_reader import read_elf
from shiplint.artifacts.reading.macho_reader import read_macho
from shiplint.artifacts.records import BinaryRecord
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass

_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class LargeRead:
    # The record, or None when neither struct reader is sure of the file (lief decides).
    record: BinaryRecord | None
    # blake2b-128 of the bytes, when asked for (copies are compared by it).
    digest: bytes | None


def read_large(tree: Tree, member: str, name: str, want_digest: bool) -> LargeRead:
    """The member's record and digest, never holding it whole. Raises MemberError."""
    with tempfile.TemporaryFile(prefix="shiplint-large-") as spool:
        size = tree.copy_to(member, spool)
        spool.flush()
        digest = _digest(spool) if want_digest else None
        if size == 0:
            return LargeRead(None, digest)
        with mmap.mmap(spool.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            magic = mapped[:4]
            record = None
            if magic in MACHO_MAGICS:
                record = read_macho(mapped, name)
            elif magic == ELF_MAGIC:
                record = read_elf(mapped, name)
            return LargeRead(record, digest)


def _digest(spool: IO[bytes]) -> bytes:
    spool.seek(0)
    hasher = hashlib.blake2b(digest_size=16)
    while chunk := spool.read(_CHUNK):
        hasher.update(chunk)
    return hasher.digest()
