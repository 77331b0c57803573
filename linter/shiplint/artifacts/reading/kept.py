"""The reading stack's top layer: what a reader made of an archive member, kept in the
user cache under the member's fingerprint. A later run that reads the same member
neither inflates nor parses it (most of reading a wheel's binaries: the 1.5.1 Linux
wheel's 23 MB of libraries), and, when every file lief read is kept, starts no lief
worker at all (`session`).

An answer is a pure function of the member's bytes, which the fingerprint stands for
(`shiplint.artifacts.fingerprint`), and of the code that read it, which is in the key:
for `elf_reader`'s answers this package's struct reader; for lief's (Mach-O, PE, the ELF
files the struct reader declines) also `lief_reader` and the installed lief (its
version and its files' sizes and times), so another lief misses. What lief found
wrong with a file (a BinaryError, pointers it cannot read) is kept too, as it is a
statement about the bytes; never one marked `transient`: the worker's fate (a crash, a
timeout) or an exception inside lief, whose text may differ next time. Such a file is
read again every run, in the worker, where a crash costs only that file. A member
without a fingerprint (in a tar or a directory) is read every run too.

Each kind is a `shiplint.memo.Memo`: entries are plain tuples (which `marshal` keeps
without building an object of an arbitrary class), turned back into the frozen records;
one that does not decode is read again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.artifacts import fingerprint, headers, pointers, records
from shiplint.artifacts.archive import ArtifactTree, MemberError
from shiplint.artifacts.platform import linux_wheel
from shiplint.artifacts.pointers import RelocatedPointers, unreadable_pointers
from shiplint.artifacts.prefix import PrefixTree, member_fingerprint
from shiplint.artifacts.reading import elf_reader
from shiplint.artifacts.reading.by_struct import Read, StructFirst, drained
from shiplint.artifacts.records import (
    BinaryError,
    BinaryFormat,
    BinaryRecord,
    Binding,
    FileType,
    Import,
    SymbolKind,
    SymbolRecord,
    import_record,
    symbol_record,
)
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass
from shiplint.memo import Memo

_RECORDS = "elf-records"
_POINTERS = "elf-pointers"
_LIEF_RECORDS = "lief-records"
_LIEF_POINTERS = "lief-pointers"
# Per artifact file (its path, size and time): its last reading kept every lief read.
_LIEF_KEPT = "lief-kept"
_BINDINGS = {binding.value: binding for binding in Binding}
_KINDS = {kind.value: kind for kind in SymbolKind}


@dataclass(frozen=True)
class KeptRecord:
    record: BinaryRecord | BinaryError  # an error only as lief read it (see the module)
    # The member's digest as the inventory finds version-sibling copies by (blake2b, 16
    # bytes), when it was taken with the record.
    digest: bytes | None


class KeptFirst:
    """The top layer: a member's kept answer when there is one, else the layer below's
    answer, kept for the next run (unless it is about the reading, not the bytes)."""

    def __init__(self, below: StructFirst) -> None:
        self._below = below

    def records(
        self, tree: Tree, members: Iterable[str], digested: frozenset[str]
    ) -> Iterator[Read]:
        """A `Read` of each member; `digested` as for `StructFirst.records`."""
        hits: list[Read] = []
        fingerprints: dict[str, bytes | None] = {}

        def unkept() -> Iterator[str]:
            for member in members:
                found = fingerprints[member] = _fingerprint(tree, member)
                kept = _usable(found, member, member in digested)
                if kept is None:
                    yield member
                else:
                    digest = kept.digest if member in digested else None
                    hits.append(Read(member, kept.record, digest, by_struct=False))

        for read in self._below.records(tree, unkept(), digested):
            yield from drained(hits)
            found = fingerprints[read.member]
            if found is not None:
                keep_record(found, read.record, read.digest, by_lief=not read.by_struct)
            yield read
        yield from drained(hits)

    def pointers(self, tree: Tree, member: str) -> RelocatedPointers:
        try:
            found = member_fingerprint(tree, member)
        except MemberError as exc:
            return unreadable_pointers(exc.reason, transient=True)
        if found is not None:
            kept = kept_pointers(found) or kept_pointers(found, by_lief=True)
            if kept is not None:
                return kept
        image, by_struct = self._below.pointers(tree, member)
        if found is not None:
            keep_pointers(found, image, by_lief=not by_struct)
        return image


def _fingerprint(tree: Tree, member: str) -> bytes | None:
    try:
        return member_fingerprint(tree, member)
    except MemberError:
        return None  # reading it says why


def _usable(found: bytes | None, member: str, digested: bool) -> KeptRecord | None:
    """The kept answer that stands for reading the member: whichever reader read it; a
    record wanted with its digest only when that was taken with it."""
    if found is None:
        return None
    kept = kept_record(found, member) or kept_record(found, member, by_lief=True)
    if kept is None or isinstance(kept.record, BinaryError):
        return kept
    return kept if kept.digest is not None or not digested else None


def kept_record(fingerprint: bytes, member: str, *, by_lief: bool = False) -> KeptRecord | None:
    """The record kept for a member with this fingerprint, named `member`, or None;
    `by_lief`: the one lief read (the struct reader declined the member)."""
    memo = _LIEF_RECORDS_MEMO if by_lief else _RECORDS_MEMO
    return memo.get(fingerprint, decode=lambda kept: _kept_record(kept, member, by_lief))


def _kept_record(kept: Any, member: str, by_lief: bool) -> KeptRecord:
    encoded, digest = kept
    if by_lief and len(encoded) == 1:
        (reason,) = encoded
        return KeptRecord(BinaryError(member, str(reason)), None)
    return KeptRecord(_decode_record(encoded, member), digest)


def keep_record(
    fingerprint: bytes,
    record: BinaryRecord | BinaryError,
    digest: bytes | None,
    *,
    by_lief: bool = False,
) -> None:
    if isinstance(record, BinaryError) and (record.transient or not by_lief):
        return  # see the module
    (_LIEF_RECORDS_MEMO if by_lief else _RECORDS_MEMO).put(KeptRecord(record, digest), fingerprint)


def _encode_kept(kept: KeptRecord) -> tuple[Any, ...]:
    if isinstance(kept.record, BinaryError):
        return ((kept.record.reason,), None)
    return (_encode_record(kept.record), kept.digest)


def kept_pointers(fingerprint: bytes, *, by_lief: bool = False) -> RelocatedPointers | None:
    """The relocated pointers kept for a member with this fingerprint, or None."""
    return (_LIEF_POINTERS_MEMO if by_lief else _POINTERS_MEMO).get(fingerprint)


def keep_pointers(fingerprint: bytes, image: RelocatedPointers, *, by_lief: bool = False) -> None:
    if image.transient or (image.unreadable is not None and not by_lief):
        return  # see the module; the struct reader reads or declines
    (_LIEF_POINTERS_MEMO if by_lief else _POINTERS_MEMO).put(image, fingerprint)


def _encode_pointers(image: RelocatedPointers) -> tuple[Any, ...]:
    return (image.word_size, image.slots, image.strings, image.code, image.unreadable)


def _decode_pointers(kept: Any) -> RelocatedPointers:
    word_size, slots, strings, code, unreadable = kept
    # marshal gives the tuples and the frozenset back as they were stored.
    return RelocatedPointers(word_size, slots, strings, frozenset(code), unreadable)


def lief_reads_kept(paths: Iterable[Path]) -> bool:
    """Whether the last reading of each of these artifact files (as they are now) kept
    every file lief read: then a run reading them again likely needs no lief worker. A
    guess, never an answer: a wrong one only starts the worker later or sooner."""
    return all(_LIEF_KEPT_MEMO.get(_artifact_seen(path)) for path in paths)


def note_lief_reads_kept(tree: Tree, unreadable: Iterable[str]) -> None:
    """Note that reading `tree`'s archives kept every file lief read (`lief_reads_kept`),
    when each of its `unreadable` members is one whose error lief's reading kept; not for
    Linux wheels, which are never expected to need lief."""
    paths = [t.path for t in _archives(tree)]
    if all(map(linux_wheel, paths)) or lief_reads_kept(paths):
        return
    for member in unreadable:
        try:
            fingerprint = member_fingerprint(tree, member)
        except MemberError:
            return
        kept = kept_record(fingerprint, member, by_lief=True) if fingerprint else None
        if kept is None or not isinstance(kept.record, BinaryError):
            return  # read again next time (a member the archive cannot give, a crash)
    for path in paths:
        _LIEF_KEPT_MEMO.put(True, _artifact_seen(path))


def _archives(tree: Tree) -> tuple[ArtifactTree, ...]:
    if isinstance(tree, PrefixTree):
        return tuple(t for t in tree.archives if isinstance(t, ArtifactTree))
    return (tree,) if isinstance(tree, ArtifactTree) else ()


def _artifact_seen(path: Path) -> bytes:
    """The artifact file as it is now: where it is, its size and time."""
    try:
        stat = path.stat()
        where = str(path.resolve())
    except OSError:
        return b"missing"
    return f"{where}\0{stat.st_size}\0{stat.st_mtime_ns}".encode("utf-8", "surrogateescape")


@functools.cache
def _identity() -> bytes:
    """The code that decides a kept answer: the struct readers (ELF, static archives of
    ELF objects, and Mach-O for the members too large to hold), the records they build, the fingerprint and this module's
    form of them (their digest: every entry's key holds it)."""
    from shiplint import platforms
    from shiplint.artifacts.reading import by_struct, macho_reader, static_archive

    modules = (
        elf_reader, macho_reader, static_archive, by_struct, records, pointers, headers,
        fingerprint, platforms,
    )  # fmt: skip
    files = tuple(Path(module.__file__ or "") for module in modules)
    return hashlib.sha256(cache.source_bytes((*files, Path(__file__)))).digest()


@functools.cache
def _lief_identity() -> bytes:
    """What decides lief's answers besides the struct reader's code: `lief_reader` and the
    archive reader it hands `!<arch>` files to (their sources, not imported here), and the
    installed lief, its version and its files' sizes and times, found without importing it."""
    here = Path(__file__).parent
    code = cache.source_bytes((here / "lief_reader.py", here / "static_archive.py"))
    return hashlib.sha256(_identity() + code + _installed_lief()).digest()


def _true(kept: Any) -> bool:
    if kept is not True:
        raise ValueError("not a note")  # another format's entry: a miss
    return True


# Records decode with the member's name (kept_record gives it); pointers need nothing. Keys: the kind, the reader's code, the member's fingerprint.
_RECORDS_MEMO: Memo[KeptRecord] = Memo(_RECORDS, _identity, encode=_encode_kept)
_LIEF_RECORDS_MEMO: Memo[KeptRecord] = Memo(_LIEF_RECORDS, _lief_identity, encode=_encode_kept)
_POINTERS_MEMO: Memo[RelocatedPointers] = Memo(
    _POINTERS, _identity, encode=_encode_pointers, decode=_decode_pointers
)
_LIEF_POINTERS_MEMO: Memo[RelocatedPointers] = Memo(
    _LIEF_POINTERS, _lief_identity, encode=_encode_pointers, decode=_decode_pointers
)
# Per artifact file: True when its last reading kept every lief read (see `lief_reads_kept`).
_LIEF_KEPT_MEMO: Memo[bool] = Memo(_LIEF_KEPT, _lief_identity, decode=_true)


def _installed_lief() -> bytes:
    spec = importlib.util.find_spec("lief")
    if spec is None or spec.origin is None:
        return b""
    package = Path(spec.origin).parent
    # The version is in the name of its distribution's metadata directory.
    versions = sorted(p.name for p in package.parent.glob("lief-*.dist-info"))
    return "\0".join(versions).encode() + b"\0" + cache.installed("lief")


def _encode_record(record: BinaryRecord) -> tuple[Any, ...]:
    return (
        record.format.value,
        record.arches,
        record.file_type.value,
        record.soname,
        record.needed,
        record.runpath,
        record.rpath,
        tuple(
            (s.name, s.binding.value, s.visibility, s.kind.value, s.version) for s in record.defined
        ),
        record.undefined,
        record.archive_members,
        tuple(
            (i.name, i.weak, i.version, i.file, i.library, i.ordinal, i.from_executable)
            for i in record.imports
        ),
        tuple(sorted(record.export_ordinals)),
        record.reexports,
        record.min_os,
    )


def _decode_record(encoded: Any, name: str) -> BinaryRecord:
    (
        form,
        arches,
        file_type,
        soname,
        needed,
        runpath,
        rpath,
        defined,
        undefined,
        archive_members,
        imports,
        export_ordinals,
        reexports,
        min_os,
    ) = encoded
    return BinaryRecord(
        name=name,
        format=BinaryFormat(form),
        arches=tuple(arches),
        file_type=FileType(file_type),
        soname=soname,
        needed=tuple(needed),
        runpath=tuple(runpath),
        rpath=tuple(rpath),
        defined=tuple(map(_symbol, defined)),
        undefined=tuple(undefined),
        archive_members=archive_members,
        imports=tuple(map(_import, imports)),
        export_ordinals=frozenset(export_ordinals),
        reexports=tuple(reexports),
        min_os=tuple(min_os),
    )


def _symbol(encoded: Any) -> SymbolRecord:
    name, binding, visibility, kind, version = encoded
    return symbol_record(name, _BINDINGS[binding], visibility, _KINDS[kind], version)


def _import(encoded: Any) -> Import:
    return import_record(*encoded)
