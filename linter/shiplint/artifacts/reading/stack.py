"""The reading stack, assembled: kept reads over the struct readers over lief.

`Reader` is what the areas above hold: `records(tree, members)` and
`pointers(tree, member)`, whatever reads them. Each layer asks the one below only
for what it cannot answer itself: `kept` (the user cache), `by_struct` (`elf_reader`,
and `macho_reader` for members too large to hold), then lief (`worker` in a child
process for a run, `lief_reader.InProcess` for tests and the link probe).
"""

from __future__ import annotations

from collections.abc import Iterable

from shiplint.artifacts.pointers import RelocatedPointers
from shiplint.artifacts.reading.by_struct import Below, Read, StructFirst
from shiplint.artifacts.reading.elf_reader import read_elf
from shiplint.artifacts.reading.kept import KeptFirst, note_lief_reads_kept
from shiplint.artifacts.reading.lief_reader import InProcess
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.artifacts.tree import Tree


class Reader:
    def __init__(self, below: Below) -> None:
        self._top = KeptFirst(StructFirst(below))

    def records(
        self, tree: Tree, members: Iterable[str], *, digested: Iterable[str] = ()
    ) -> dict[str, Read]:
        """A `Read` of each member (a record, or an error saying why there is none);
        `digested`: the members whose digest is wanted too."""
        reads = {
            read.member: read
            for read in self._top.records(tree, dict.fromkeys(members), frozenset(digested))
        }
        # When what lief read of this artifact is all kept, the next run reading it need
        # not start the lief worker up front (`session`).
        note_lief_reads_kept(
            tree, (m for m, r in reads.items() if isinstance(r.record, BinaryError))
        )
        return reads

    def pointers(self, tree: Tree, member: str) -> RelocatedPointers:
        """The member's relocated pointers (`unreadable` says why there are none)."""
        return self._top.pointers(tree, member)


# Reads in this process: tests, and callers that read a few files of their own.
IN_PROCESS = Reader(InProcess())


def read_binary(data: bytes, name: str) -> BinaryRecord | BinaryError:
    """One binary's record from its bytes, in this process (a file the caller built
    itself, never kept): the struct reader first, else lief."""
    return read_elf(data, name) or InProcess().binary(data, name)
