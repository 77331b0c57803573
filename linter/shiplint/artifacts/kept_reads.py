"""What the struct ELF reader made of an archive member, kept in the user cache under the
member's fingerprint: a later run that reads the same member neither inflates nor parses
it (most of reading a wheel's binaries: the 1.5.1 Linux wheel's 23 MB of libraries).

Only `elf_reader`'s answers are kept: a pure function of the member's bytes, which the
fingerprint stands for (`shiplint.artifacts.fingerprint`), and of this package's code,
which is in the key. What lief reads (the files that reader declines, other formats)
is read again every run, in the worker, where a crash costs only that file. A member
without a fingerprint (in a tar or a directory) is read every run too.

Entries are plain tuples in `marshal` form (which builds no object of an arbitrary
class), turned back into the frozen records; one that does not decode is read again.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.artifacts import elf_reader, fingerprint, headers, pointers, records
from shiplint.artifacts.archive import ArtifactTree
from shiplint.artifacts.pointers import RelocatedPointers
from shiplint.artifacts.prefix import PrefixTree
from shiplint.artifacts.records import (
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

_RECORDS = "elf-records"
_POINTERS = "elf-pointers"
_DECODE_ERRORS = (EOFError, ValueError, TypeError, IndexError, KeyError)
_BINDINGS = {binding.value: binding for binding in Binding}
_KINDS = {kind.value: kind for kind in SymbolKind}


@dataclass(frozen=True)
class KeptRecord:
    record: BinaryRecord
    # The member's digest as the inventory finds version-sibling copies by (blake2b, 16
    # bytes), when it was taken with the record.
    digest: bytes | None


def member_fingerprint(tree: Tree, member: str) -> bytes | None:
    """The member's fingerprint, or None when its tree has none (see the module)."""
    if isinstance(tree, (ArtifactTree, PrefixTree)):
        return tree.fingerprint(member)
    return None


def kept_record(fingerprint: bytes, member: str) -> KeptRecord | None:
    """The record kept for a member with this fingerprint, named `member`, or None."""
    payload = cache.read(_RECORDS, _name(_RECORDS, fingerprint))
    if payload is None:
        return None
    try:
        encoded, digest = marshal.loads(payload)
        return KeptRecord(_decode_record(encoded, member), digest)
    except _DECODE_ERRORS:
        return None  # damaged, or another format's: read the member again


def keep_record(fingerprint: bytes, record: BinaryRecord, digest: bytes | None) -> None:
    payload = marshal.dumps((_encode_record(record), digest))
    cache.write(_RECORDS, _name(_RECORDS, fingerprint), payload)


def kept_pointers(fingerprint: bytes) -> RelocatedPointers | None:
    """The relocated pointers kept for a member with this fingerprint, or None."""
    payload = cache.read(_POINTERS, _name(_POINTERS, fingerprint))
    if payload is None:
        return None
    try:
        word_size, slots, strings, code = marshal.loads(payload)
        # marshal gives the tuples and the frozenset back as they were stored.
        return RelocatedPointers(word_size, slots, strings, frozenset(code))
    except _DECODE_ERRORS:
        return None


def keep_pointers(fingerprint: bytes, image: RelocatedPointers) -> None:
    if image.unreadable is not None:
        return  # only what the struct reader read is kept, and it reads or declines
    payload = marshal.dumps((image.word_size, image.slots, image.strings, image.code))
    cache.write(_POINTERS, _name(_POINTERS, fingerprint), payload)


def _name(kind: str, fingerprint: bytes) -> str:
    return cache.key(kind.encode(), _identity(), fingerprint)


@functools.cache
def _identity() -> bytes:
    """The code that decides a kept answer: the struct reader, the records it builds, the
    fingerprint and this module's form of them (their digest: every entry's key holds it)."""
    from shiplint import platforms

    modules = (elf_reader, records, pointers, headers, fingerprint, platforms)
    files = tuple(Path(module.__file__ or "") for module in modules)
    return hashlib.sha256(cache.source_bytes((*files, Path(__file__)))).digest()


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
    )


def _symbol(encoded: Any) -> SymbolRecord:
    name, binding, visibility, kind, version = encoded
    return symbol_record(name, _BINDINGS[binding], visibility, _KINDS[kind], version)


def _import(encoded: Any) -> Import:
    return import_record(*encoded)
