"""The middle layer: the struct readers first, lief (the layer below) for what they decline.

`elf_reader` reads an ELF file it is sure of in this process, with no native code to
crash and without lief's import (0.6 s or more), and so a static archive whose first
object is such a file (`static_archive`: what lief's layer makes of it, read the same
way); a member too large to hold is copied to a file and mapped (`large`), where
`macho_reader` reads a Mach-O file too. What neither
is sure of is handed to the layer below, which reads it with lief. Members are read and
handed down as they come: the layer below parses while the next one is inflated here.

Every answer says which side read it, as what is kept of it is decided by other code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Protocol

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.headers import AR_MAGICS, ELF_MAGIC
from shiplint.artifacts.pointers import RelocatedPointers, unreadable_pointers
from shiplint.artifacts.reading.elf_reader import read_elf, read_elf_pointers
from shiplint.artifacts.reading.large import IN_MEMORY_BYTES, read_large
from shiplint.artifacts.reading.static_archive import read_archive
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass


class Below(Protocol):
    """The layer below: lief, in a worker process or in this one."""

    def binaries(
        self, items: Iterable[tuple[str, bytes]]
    ) -> Iterator[tuple[str, BinaryRecord | BinaryError]]:
        """(name, record) per (name, bytes), in order; `items` is consumed as it goes."""
        ...

    def pointers(self, data: bytes, name: str) -> RelocatedPointers: ...


@dataclass(frozen=True)
class Read:
    member: str
    record: BinaryRecord | BinaryError
    # blake2b-128 of the member's bytes, when asked for (copies are compared by it).
    digest: bytes | None
    # Read by the struct readers (or refused by the archive), not by the layer below.
    by_struct: bool


class StructFirst:
    def __init__(self, below: Below) -> None:
        self._below = below

    def records(
        self, tree: Tree, members: Iterable[str], digested: frozenset[str]
    ) -> Iterator[Read]:
        """A `Read` of each member, once each; `digested`: the members whose digest is
        wanted too. A member the archive cannot give is a transient error (never kept)."""
        done: list[Read] = []
        digests: dict[str, bytes | None] = {}

        def declined() -> Iterator[tuple[str, bytes]]:
            for member in members:
                try:
                    read, data = self._read(tree, member, member in digested)
                except MemberError as exc:
                    done.append(
                        Read(member, BinaryError(member, exc.reason, transient=True), None, True)
                    )
                    continue
                if read.record is not None:
                    done.append(Read(member, read.record, read.digest, True))
                else:
                    digests[member] = read.digest
                    yield member, data

        for member, record in self._below.binaries(declined()):
            yield from drained(done)
            yield Read(member, record, digests.pop(member), False)
        yield from drained(done)

    def _read(self, tree: Tree, member: str, digested: bool) -> tuple[_Sure, bytes]:
        """What the struct readers make of the member (a record or None), and the bytes
        to hand down when they decline it. Raises MemberError."""
        if tree.size(member) > IN_MEMORY_BYTES:
            large = read_large(tree, member, member, digested)
            if large.record is not None:
                return _Sure(large.record, large.digest), b""
            # Neither struct reader is sure of it: lief reads it whole after all.
            return _Sure(None, large.digest), tree.read(member, tree.size(member))
        data = tree.read(member)
        digest = hashlib.blake2b(data, digest_size=16).digest() if digested else None
        return _Sure(_read_small(data, member), digest), data

    def pointers(self, tree: Tree, member: str) -> tuple[RelocatedPointers, bool]:
        """The member's relocated pointers, and whether the struct reader read them."""
        try:
            data = tree.read(member)
        except MemberError as exc:
            return unreadable_pointers(exc.reason, transient=True), True
        pointers = read_elf_pointers(data)
        if pointers is not None:
            return pointers, True
        return self._below.pointers(data, member), False


def _read_small(data: bytes, name: str) -> BinaryRecord | None:
    """An ELF file, or a static archive (`!<arch>`) whose first object is one, read as
    lief's layer reads them; None when not sure."""
    if data[:8] in AR_MAGICS:
        return _read_archive(data, name)
    return read_elf(data, name)


class _Unsure(Exception):
    """An archive's object the struct reader is not sure of."""


def _read_archive(data: bytes, name: str) -> BinaryRecord | None:
    """The archive's record as lief's layer makes it (its objects go to `read_elf` there
    too, then to lief); None, and lief's layer reads it, for an object `read_elf` is not
    sure of and for a damaged archive (whose error is that layer's to word)."""

    def read_object(body: bytes, object_name: str) -> BinaryRecord:
        record = read_elf(body, object_name) if body.startswith(ELF_MAGIC) else None
        if record is None:
            raise _Unsure
        return record

    try:
        record = read_archive(data, name, read_object)
    except (_Unsure, ValueError, IndexError, UnicodeError):
        return None
    return record if isinstance(record, BinaryRecord) else None


@dataclass(frozen=True)
class _Sure:
    record: BinaryRecord | None
    digest: bytes | None


def drained(reads: list[Read]) -> Iterator[Read]:
    """The reads gathered so far, in order, taken out as they are yielded."""
    while reads:
        yield reads.pop(0)
