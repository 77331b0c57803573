"""ELF facts read with `struct`, without lief: the same `BinaryRecord` and `RelocatedPointers`
that `lief_reader` builds through lief, for a file consistent enough to be sure of them.

Why not lief for every ELF file: importing lief 1.0 costs 0.6-0.7 s, most of a Linux
artifact run. Why not pyelftools, the well-kept smaller reader: measured on this project's
machine, pyelftools 0.33 imports in 0.05 s but takes 0.54 s just to iterate the 13.6k
dynamic symbols of the ExecuTorch 1.5.1 x86_64 wheel's ELF files (about 40 us a symbol,
its structs are construct-based), no faster than lief. `struct` over the file's own bytes
gives the whole records of those files in about 0.1 s, symbols, versions and all.

The record must be exactly lief's, so every choice lief 1.0's parser makes is made the
same way here: the dynamic table read through the LOAD segment that wraps PT_DYNAMIC,
the string table from the first DT_STRTAB, the dynamic symbol count chosen from the
.dynsym section, the hash tables and the relocations as lief's "auto" count chooses it,
version indices matched with the hidden bit masked (verneed first, then the first
verdef), names that are not UTF-8 kept as surrogates. lief reads section and program
headers at their structure size and the whole table from DT_SYMTAB on, and so does this.
lief 0.15.0, the lowest release the project accepts, gives the same records and pointers
for every ELF file of the test material; on corrupted files the releases differ (0.15
raises on a relocation type it has no name for, where 1.0 reads on), and this reader
answers as 1.0 does.

Where the file is not consistent enough to be sure what lief would make of it (a header
or table cut short, an entry size that is not the structure's, a machine or class this
module has no table for, packed Android relocations, a string table nowhere), the
readers return None and the caller asks lief, so odd and hostile input keeps exactly the
record or the error lief gives it. Every loop is bounded by the file's size.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator

from shiplint.artifacts.headers import ELF_MAGIC, elf_truncation
from shiplint.artifacts.pointers import Image, Region, RelocatedPointers
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
from shiplint.fastclass import dataclass
from shiplint.platforms import normalise_arch

_MASK64 = (1 << 64) - 1
# lief's own limits (ELF/Parser.hpp), applied where lief applies them.
_NB_MAX_SYMBOLS = 1_000_000
_DELTA_NB_SYMBOLS = 3000
_NB_MAX_SEGMENTS = 10_000
_NB_MAX_RELOCATIONS = 3_000_000
_NB_MAX_DYNAMIC_ENTRIES = 1000
# lief caps a section at 2 GiB; a file that large is left to lief.
_MAX_FILE = 1 << 31
# This reader runs in the run's own process, without the worker's time limit, and a hostile
# file can make lief's loops quadratic (names pointing into long runs without a NUL,
# version entries chained a byte apart, a relocation looked up among thousands of
# sections). A consistent file stays far inside these bounds; past one, lief reads the
# file in the worker, under its limit, as before.
_STRING_BYTES_PER_FILE_BYTE = 4
_VERSION_ENTRIES_PER_FILE_BYTE = 1 / 8
_POINTER_LOOKUPS = 50_000_000

# e_machine -> (the architecture as lief names it, the class lief derives from the
# machine or None when lief takes EI_CLASS, the byte order lief forces or None when it
# takes EI_DATA).
_MACHINES: dict[int, tuple[str, int | None, str | None]] = {
    62: ("x86_64", 64, "<"),
    183: ("aarch64", 64, None),
    3: ("x86", 32, "<"),
    40: ("arm", 32, None),
    21: ("ppc64le", 64, None),
    22: ("s390x", None, ">"),
    243: ("riscv64", None, None),
}
# lief types a relocation as its r_type OR-ed with its machine's bits (Relocation::type_from,
# so high r_type bits can name another kind, even another machine's), and
# `lief_reader._elf_pointers` keeps the kinds whose names end _RELATIVE / _RELATIVE64, and
# those ending _64, ABS64, _32, ABS32 whose size in bits lief gives as 32 or 64. Read off
# lief 1.0's enum.
_TYPE_BITS = {
    62: 0x08000000,
    183: 0x10000000,
    40: 0x18000000,
    3: 0x28000000,
    21: 0x48000000,
    22: 0x58000000,
    243: 0x60000000,
}
_RELATIVE = frozenset(
    {
        0x08000008, 0x08000026, 0x10000403, 0x18000017, 0x20000023, 0x28000008, 0x30000003,
        0x40000016, 0x48000016, 0x50000016, 0x5800000C, 0x60000003, 0x700000A5, 0x700000C4,
    }
)  # fmt: skip
_ABSOLUTE = {
    0x08000001: 64, 0x0800000A: 32, 0x10000101: 64, 0x10000102: 32, 0x18000002: 32,
    0x28000001: 32, 0x28000018: 32, 0x2800001C: 32, 0x28000020: 32, 0x28000021: 32,
    0x28000022: 32, 0x30000001: 32, 0x30000002: 64, 0x38000002: 32, 0x38000012: 64,
    0x60000001: 32, 0x60000002: 64, 0x70000090: 32, 0x70000091: 32, 0x70000092: 32,
    0x70000093: 32, 0x70000094: 32,
}  # fmt: skip
# The type lief's RELR parser gives a RELR entry; a machine not here gets none we keep.
_RELR_TYPE = {62: 0x08000008, 183: 0x10000403, 40: 0x18000017, 3: 0x28000008, 21: 0x48000016}

_PT_LOAD, _PT_DYNAMIC = 1, 2
_SHT_DYNSYM, _SHT_NOBITS = 11, 8
_SHF_ALLOC, _SHF_EXECINSTR = 0x2, 0x4
_DT_NULL, _DT_NEEDED, _DT_PLTRELSZ, _DT_HASH, _DT_STRTAB, _DT_SYMTAB = 0, 1, 2, 4, 5, 6
_DT_RELA, _DT_RELASZ, _DT_SONAME, _DT_RPATH, _DT_REL, _DT_RELSZ = 7, 8, 14, 15, 17, 18
_DT_PLTREL, _DT_JMPREL, _DT_RUNPATH, _DT_RELRSZ, _DT_RELR = 20, 23, 29, 35, 36
_DT_GNU_HASH, _DT_VERSYM, _DT_FLAGS_1 = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFB
_DT_VERDEF, _DT_VERDEFNUM, _DT_VERNEED, _DT_VERNEEDNUM = (
    0x6FFFFFFC,
    0x6FFFFFFD,
    0x6FFFFFFE,
    0x6FFFFFFF,
)
_DT_ANDROID_RELR, _DT_ANDROID_RELRSZ = 0x6FFFE000, 0x6FFFE001
_DT_ANDROID_PACKED = frozenset({0x6000000F, 0x60000010, 0x60000011, 0x60000012})
_DF_1_PIE = 0x08000000

_BINDINGS = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 10: "GNU_UNIQUE"}
_VISIBILITIES = {0: "default", 1: "internal", 2: "hidden", 3: "protected"}
_KINDS = {
    2: SymbolKind.FUNCTION,
    10: SymbolKind.FUNCTION,
    1: SymbolKind.OBJECT,
    6: SymbolKind.OBJECT,
}
# The same lookups as tables over every value a byte field can hold (st_info's binding and
# type are its two halves, st_other a byte): lief's name for a value it has no name for is
# the number.
_STB_LOCAL, _STB_WEAK = 0, 2
_RECORD_BINDINGS = tuple(
    {"WEAK": Binding.WEAK, "GNU_UNIQUE": Binding.UNIQUE}.get(
        _BINDINGS.get(value, str(value)), Binding.GLOBAL
    )
    for value in range(16)
)
_KIND_BY_TYPE = tuple(_KINDS.get(value, SymbolKind.OTHER) for value in range(16))
_VISIBILITY_NAMES = tuple(_VISIBILITIES.get(value, str(value)) for value in range(256))
_FILE_TYPES = {2: FileType.EXECUTABLE, 1: FileType.OBJECT}
_ET_DYN = 3


class _Unsure(Exception):
    """The file is not consistent enough to be sure what lief makes of it."""


@dataclass(frozen=True)
class _Layout:
    """The structures of one class and byte order."""

    word: int
    header: struct.Struct
    phdr: struct.Struct
    shdr: struct.Struct
    dyn: struct.Struct
    sym: struct.Struct
    rel: struct.Struct
    rela: struct.Struct
    info_shift: int
    type_mask: int
    u16: struct.Struct
    u32: struct.Struct
    verneed: struct.Struct
    vernaux: struct.Struct
    verdef: struct.Struct
    verdaux: struct.Struct


def _layout(word: int, order: str) -> _Layout:
    if word == 8:
        return _Layout(
            8,
            struct.Struct(order + "16xHHIQQQIHHHHHH"),
            struct.Struct(order + "IIQQQQQQ"),
            struct.Struct(order + "IIQQQQIIQQ"),
            struct.Struct(order + "QQ"),
            struct.Struct(order + "IBBHQQ"),
            struct.Struct(order + "QQ"),
            struct.Struct(order + "QQq"),
            32,
            0xFFFFFFFF,
            struct.Struct(order + "H"),
            struct.Struct(order + "I"),
            struct.Struct(order + "HHIII"),
            struct.Struct(order + "IHHII"),
            struct.Struct(order + "HHHHIII"),
            struct.Struct(order + "II"),
        )
    return _Layout(
        4,
        struct.Struct(order + "16xHHIIIIIHHHHHH"),
        struct.Struct(order + "IIIIIIII"),
        struct.Struct(order + "IIIIIIIIII"),
        struct.Struct(order + "II"),
        struct.Struct(order + "IIIBBH"),
        struct.Struct(order + "II"),
        struct.Struct(order + "IIi"),
        8,
        0xFF,
        struct.Struct(order + "H"),
        struct.Struct(order + "I"),
        struct.Struct(order + "HHIII"),
        struct.Struct(order + "IHHII"),
        struct.Struct(order + "HHHHIII"),
        struct.Struct(order + "II"),
    )


_LAYOUTS = {(w, o): _layout(w, o) for w in (4, 8) for o in ("<", ">")}


@dataclass(frozen=True)
class _Segment:
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int


@dataclass(frozen=True)
class _Section:
    type: int
    flags: int
    addr: int
    offset: int
    size: int


# A dynamic symbol: (name, st_info, st_other, st_shndx, st_value); plain tuples, as a
# library has thousands.
_Symbol = tuple[str, int, int, int, int]


class _Elf:
    """One ELF file's headers and dynamic table, read as lief reads them."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        if len(data) >= _MAX_FILE or elf_truncation(data) is not None:
            raise _Unsure
        self.data = data
        self.size = len(data)
        self._string_budget = _STRING_BYTES_PER_FILE_BYTE * self.size + (1 << 20)
        self._entry_budget = int(_VERSION_ENTRIES_PER_FILE_BYTE * self.size) + 1024
        ei_class, ei_data = data[4], data[5]
        if ei_class not in (1, 2) or ei_data not in (1, 2):
            raise _Unsure
        order = "<" if ei_data == 1 else ">"
        word = 8 if ei_class == 2 else 4
        self.layout = layout = _LAYOUTS[(word, order)]
        (e_type, machine, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = (
            layout.header.unpack_from(data, 0)
        )
        known = _MACHINES.get(machine)
        if known is None:
            raise _Unsure
        arch, machine_class, machine_order = known
        # lief takes the class and byte order from the machine where the machine has only
        # one; a file whose header says otherwise is read differently by lief: leave it.
        if machine_class not in (None, word * 8) or machine_order not in (None, order):
            raise _Unsure
        self.machine = machine
        self.arch = normalise_arch(arch)
        self.file_type = e_type
        self.word = word
        self.segments: list[_Segment] = []
        self.sections: list[_Section] = []
        if phoff > 0:
            if phnum and phentsize != layout.phdr.size:
                raise _Unsure
            self.segments = [
                self._segment(phoff + i * layout.phdr.size)
                for i in range(min(phnum, _NB_MAX_SEGMENTS))
            ]
        if shoff > 0:
            if shnum and shentsize != layout.shdr.size:
                raise _Unsure
            self.sections = [self._section(shoff + i * layout.shdr.size) for i in range(shnum)]
        self.dynamic = self._dynamic_entries()
        self.first: dict[int, int] = {}
        for tag, value in self.dynamic:
            self.first.setdefault(tag, value)

    def _segment(self, offset: int) -> _Segment:
        fields = self.layout.phdr.unpack_from(self.data, offset)
        if self.word == 8:
            p_type, flags, p_offset, vaddr, _, filesz, memsz, _ = fields
        else:
            p_type, p_offset, vaddr, _, filesz, memsz, flags, _ = fields
        return _Segment(p_type, flags, p_offset, vaddr, filesz, memsz)

    def _section(self, offset: int) -> _Section:
        _, sh_type, flags, addr, sh_offset, size, *_ = self.layout.shdr.unpack_from(
            self.data, offset
        )
        return _Section(sh_type, flags, addr, sh_offset, size)

    def _dynamic_entries(self) -> list[tuple[int, int]]:
        """The entries up to DT_NULL, read from the last LOAD segment that wraps PT_DYNAMIC."""
        dynamic = next((s for s in self.segments if s.type == _PT_DYNAMIC), None)
        if dynamic is None:
            return []
        start, end = dynamic.vaddr, dynamic.vaddr + dynamic.memsz
        wrapping = [
            s
            for s in self.segments
            if s.type == _PT_LOAD
            and s.vaddr <= start < s.vaddr + s.memsz
            and s.vaddr < end <= s.vaddr + s.memsz
        ]
        if not wrapping:
            raise _Unsure  # lief then reads from the file offset to the end of the file
        load = wrapping[-1]
        content_size = load.filesz if 0 < load.filesz < (3 << 30) else 0
        relative = start - load.vaddr
        if relative >= content_size:
            raise _Unsure  # lief reads no entry at all
        entry = self.layout.dyn
        count = min((content_size - relative) // entry.size, _NB_MAX_DYNAMIC_ENTRIES)
        base = load.offset + relative
        entries: list[tuple[int, int]] = []
        for tag, value in entry.iter_unpack(self.data[base : base + count * entry.size]):
            if tag > 0xFFFFFFFF:
                raise _Unsure  # no tag lief knows, and no telling how it maps it
            entries.append((tag, value))
            if tag == _DT_NULL:
                break
        return entries

    def offset(self, address: int) -> int | None:
        """lief's virtual_address_to_offset: through the first LOAD segment holding it."""
        for s in self.segments:
            if s.type == _PT_LOAD and s.vaddr <= address < s.vaddr + s.memsz:
                return (address - s.vaddr + s.offset) & _MASK64
        return None

    def string(self, offset: int, errors: str = "surrogateescape") -> str:
        """The C string at a file offset as lief's peek_string_at reads it. Version names
        are read with `errors="strict"`: lief hands a version name that is not UTF-8 back
        in a form of its own (bytes, or an exception), so such a file goes to lief."""
        data = self.data
        if offset >= self.size:
            return ""
        end = data.find(b"\0", offset)
        self._string_budget -= (end if end >= 0 else self.size) - offset
        if self._string_budget < 0:
            raise _Unsure
        # Without a NUL before the end, lief overwrites the last byte it read with one.
        raw = data[offset:end] if end >= 0 else data[offset : self.size - 1]
        return raw.decode("utf-8", errors=errors)

    def entry_read(self) -> None:
        """Count one version entry against the file's budget."""
        self._entry_budget -= 1
        if self._entry_budget < 0:
            raise _Unsure

    def strtab(self) -> int:
        """The dynamic string table's file offset, from the first DT_STRTAB."""
        address = self.first.get(_DT_STRTAB)
        offset = None if address is None else self.offset(address)
        if not offset:
            # lief then scans further or looks for a section named .dynstr.
            raise _Unsure
        return offset

    def table(self, offset: int, count: int, shape: struct.Struct) -> Iterator[tuple[int, ...]]:
        """Up to `count` consecutive structures from `offset`, as many as the file holds."""
        if offset > self.size:
            return iter(())
        count = min(count, (self.size - offset) // shape.size)
        return shape.iter_unpack(self.data[offset : offset + count * shape.size])

    # ------------------------------------------------------------ dynamic symbols

    def symbols(self, named: bool = True) -> list[_Symbol]:
        """The dynamic symbols lief reads; without their names (all "") when not `named`,
        which the relocated pointers do not need."""
        address = self.first.get(_DT_SYMTAB)
        if address is None:
            return []
        offset = self.offset(address)
        if offset is None:
            return []
        count = self._symbol_count()
        strtab = self.strtab()  # lief reads no symbol at all without one
        rows = self.table(offset, count, self.layout.sym)
        if self.word == 8:
            fields = [(n, i, o, x, v) for n, i, o, x, v, _ in rows]
        else:
            fields = [(n, i, o, x, v) for n, v, _, i, o, x in rows]
        if not named:
            return [("", i, o, x, v) for _, i, o, x, v in fields]
        # The string reads inlined: this is the loop over every symbol of every library.
        data, size, find = self.data, self.size, self.data.find
        budget = self._string_budget
        out: list[_Symbol] = []
        for st_name, info, other, shndx, value in fields:
            name = ""
            at = strtab + st_name
            if st_name and at < size:
                end = find(b"\0", at)
                budget -= (end if end >= 0 else size) - at
                if budget < 0:
                    raise _Unsure
                # Without a NUL before the end, lief overwrites the last byte it read.
                raw = data[at:end] if end >= 0 else data[at : size - 1]
                name = raw.decode("utf-8", "surrogateescape")
            out.append((name, info, other, shndx, value))
        self._string_budget = budget
        return out

    def _symbol_count(self) -> int:
        """lief's automatic count of dynamic symbols (Parser::get_numberof_dynamic_symbols)."""
        dynsym = next((s for s in self.sections if s.type == _SHT_DYNSYM), None)
        in_section = (dynsym.size // self.layout.sym.size) & 0xFFFFFFFF if dynsym else 0
        in_hash = self._hash_count()
        if in_hash > 0 and in_section == in_hash:
            return in_hash
        candidate = self._relocation_count()
        if in_section < _NB_MAX_SYMBOLS and 0 < in_section - candidate < _DELTA_NB_SYMBOLS:
            candidate = in_section
        if in_hash == 0:
            return candidate
        if in_hash < _NB_MAX_SYMBOLS and 0 < in_hash - candidate < _DELTA_NB_SYMBOLS:
            candidate = in_hash
        return candidate

    def _hash_count(self) -> int:
        if _DT_HASH in self.first:
            offset = self.offset(self.first[_DT_HASH])
            if offset is None or offset + 8 > self.size:
                return 0
            return int(self.layout.u32.unpack_from(self.data, offset + 4)[0])
        if _DT_GNU_HASH in self.first:
            return self._gnu_hash_count(self.first[_DT_GNU_HASH])
        return 0

    def _gnu_hash_count(self, address: int) -> int:
        """GnuHash::nb_symbols, read inside the first segment holding the table."""
        segment = next((s for s in self.segments if s.vaddr <= address < s.vaddr + s.memsz), None)
        if segment is None:
            return 0
        filesz = segment.filesz if 0 < segment.filesz < (3 << 30) else 0
        content = memoryview(self.data)[segment.offset : segment.offset + filesz]
        position = address - segment.vaddr
        u32 = self.layout.u32
        if position + 16 > len(content):
            return 0
        nbuckets, symndx, maskwords = struct.unpack_from(u32.format[0] + "III", content, position)
        if maskwords & (maskwords - 1) & 0xFFFFFFFF:
            return 0
        position += 16 + self.word * maskwords
        readable = (
            max(0, min(nbuckets, (len(content) - position) // 4)) if position <= len(content) else 0
        )
        buckets = (
            struct.unpack_from(f"{u32.format[0]}{readable}I", content, position) if readable else ()
        )
        max_bucket = max(buckets, default=0)
        if max_bucket == 0 or max_bucket < symndx:
            return 0
        position += 4 * readable + 4 * (max_bucket - symndx)
        count = 0
        while True:
            if position + 4 > len(content):
                return 0
            (value,) = u32.unpack_from(content, position)
            position += 4
            count += 1
            if value & 1:
                return (max_bucket + count) & 0xFFFFFFFF

    def _relocation_count(self) -> int:
        """One past the largest symbol index the RELA, REL and PLT relocations name."""
        largest = 0
        for table, size_tag, rela in self._counted_tables():
            offset = self.offset(self.first[table])
            if offset is None:
                continue
            shape = self.layout.rela if rela else self.layout.rel
            count = (self.first[size_tag] // shape.size) & 0xFFFFFFFF
            index = max(
                (
                    (f[1] >> self.layout.info_shift) & 0xFFFFFFFF
                    for f in self.table(offset, count, shape)
                ),
                default=0,
            )
            largest = max(largest, (index + 1) & 0xFFFFFFFF)
        return largest

    def _counted_tables(self) -> Iterator[tuple[int, int, bool]]:
        if _DT_RELA in self.first and _DT_RELASZ in self.first:
            yield _DT_RELA, _DT_RELASZ, True
        if _DT_REL in self.first and _DT_RELSZ in self.first:
            yield _DT_REL, _DT_RELSZ, False
        if _DT_JMPREL in self.first and _DT_PLTRELSZ in self.first:
            yield _DT_JMPREL, _DT_PLTRELSZ, self._plt_rela()

    def _plt_rela(self) -> bool:
        kind = self.first.get(_DT_PLTREL)
        # Without DT_PLTREL lief guesses RELA for ELF64, REL for ELF32.
        return self.word == 8 if kind is None else kind == _DT_RELA

    # ------------------------------------------------------------ symbol versions

    def versions(self, count: int) -> tuple[list[str | None] | None, dict[str, str]]:
        """Each dynamic symbol's version name (None: no auxiliary version), or None when
        lief links no versions at all; and the file each required version comes from."""
        address = self.first.get(_DT_VERSYM)
        offset = None if address is None else self.offset(address)
        values = (
            [v for (v,) in self.table(offset, count, self.layout.u16)] if offset is not None else []
        )
        requirements = self._requirements()
        names: dict[int, str] = {}
        for _file, auxiliaries in requirements:
            for other, name in auxiliaries:
                names[other] = name
        for index, name in self._definitions():
            if index > 1:
                names.setdefault(index, name)
        files: dict[str, str] = {}
        for file, auxiliaries in requirements:
            for _other, name in auxiliaries:
                files[name] = file
        if len(values) != count or not values:
            return None, files
        # An empty version name is no version, as lief_reader reads it.
        return [names.get(v & 0x7FFF) or None for v in values], files

    def _requirements(self) -> list[tuple[str, list[tuple[int, str]]]]:
        """DT_VERNEED as lief reads it: (file, [(vna_other, version name)])."""
        if _DT_VERNEED not in self.first or _DT_VERNEEDNUM not in self.first:
            return []
        start = self.offset(self.first[_DT_VERNEED])
        if start is None:
            return []
        strtab = self.strtab()
        layout, data = self.layout, self.data
        out: list[tuple[str, list[tuple[int, str]]]] = []
        here = 0
        for _ in range(min(_NB_MAX_SYMBOLS, self.first[_DT_VERNEEDNUM] & 0xFFFFFFFF)):
            if start + here + 16 > self.size:
                break
            self.entry_read()
            _, cnt, vn_file, vn_aux, vn_next = layout.verneed.unpack_from(data, start + here)
            file = self.string(strtab + vn_file, "strict")
            if cnt > 0 and vn_aux > 0:
                auxiliaries: list[tuple[int, str]] = []
                aux = 0
                for _ in range(cnt):
                    at = start + here + vn_aux + aux
                    if at + 16 > self.size:
                        break
                    self.entry_read()
                    _, _, other, vna_name, vna_next = layout.vernaux.unpack_from(data, at)
                    auxiliaries.append((other, self.string(strtab + vna_name, "strict")))
                    if vna_next == 0:
                        break
                    aux += vna_next
                out.append((file, auxiliaries))
            if vn_next == 0:
                break
            here += vn_next
        return out

    def _definitions(self) -> list[tuple[int, str]]:
        """DT_VERDEF as lief reads it: (vd_ndx, first name) for each definition with a name."""
        if _DT_VERDEF not in self.first or _DT_VERDEFNUM not in self.first:
            return []
        position = self.offset(self.first[_DT_VERDEF])
        if position is None:
            return []
        strtab = self.strtab()
        layout, data = self.layout, self.data
        out: list[tuple[int, str]] = []
        for _ in range(min(_NB_MAX_SYMBOLS, self.first[_DT_VERDEFNUM] & 0xFFFFFFFF)):
            if position + 20 > self.size:
                break
            self.entry_read()
            _, _, ndx, cnt, _, vd_aux, vd_next = layout.verdef.unpack_from(data, position)
            at = position + vd_aux
            # Only a definition's first name is what lief binds a symbol to.
            if cnt > 0 and at + 8 <= self.size:
                (vda_name, _) = layout.verdaux.unpack_from(data, at)
                out.append((ndx, self.string(strtab + vda_name, "strict")))
            if vd_next == 0:
                break
            position += vd_next
        return out


def read_elf(data: bytes | mmap.mmap, name: str) -> BinaryRecord | None:
    """The record lief_reader's lief path gives this ELF file, or None when the file is
    not consistent enough to be sure of it (then ask lief). `data` may be a mapping of a
    file too large to hold (`shiplint.artifacts.reading.large`): only the pages read are loaded."""
    if data[: len(ELF_MAGIC)] != ELF_MAGIC:
        return None
    try:
        elf = _Elf(data)
        return _record(elf, name)
    except (_Unsure, struct.error, IndexError, ValueError, OverflowError):
        return None


def _record(elf: _Elf, name: str) -> BinaryRecord:
    soname = None
    needed: list[str] = []
    runpath: list[str] = []
    rpath: list[str] = []
    pie = False
    strings = [t for t, _ in elf.dynamic if t in (_DT_NEEDED, _DT_SONAME, _DT_RUNPATH, _DT_RPATH)]
    strtab = elf.strtab() if strings else 0
    for tag, value in elf.dynamic:
        if tag == _DT_NEEDED:
            needed.append(elf.string(strtab + value))
        elif tag == _DT_SONAME:
            soname = elf.string(strtab + value)
        elif tag == _DT_RUNPATH:
            runpath.extend(p for p in elf.string(strtab + value).split(":") if p)
        elif tag == _DT_RPATH:
            rpath.extend(p for p in elf.string(strtab + value).split(":") if p)
        elif tag == _DT_FLAGS_1:
            pie = bool(value & _DF_1_PIE)
    symbols = elf.symbols()
    versions, version_files = elf.versions(len(symbols)) if symbols else (None, {})
    defined: list[SymbolRecord] = []
    undefined: list[str] = []
    imports: list[Import] = []
    # The loop over every symbol of every library: each field is looked up in a table.
    for index, (symbol_name, info, other, shndx, _) in enumerate(symbols):
        if not symbol_name:
            continue
        binding = info >> 4
        version = versions[index] if versions is not None else None
        if shndx == 0:
            undefined.append(symbol_name)
            if binding != _STB_LOCAL:
                imports.append(
                    import_record(
                        symbol_name,
                        binding == _STB_WEAK,
                        version,
                        version_files.get(version or ""),
                    )
                )
            continue
        visibility = _VISIBILITY_NAMES[other]
        if binding == _STB_LOCAL or visibility in ("hidden", "internal"):
            continue
        defined.append(
            symbol_record(
                symbol_name,
                _RECORD_BINDINGS[binding],
                visibility,
                _KIND_BY_TYPE[info & 0xF],
                version,
            )
        )
    if elf.file_type == _ET_DYN:
        # A position-independent executable is ET_DYN too; DF_1_PIE tells them apart.
        file_type = FileType.EXECUTABLE if pie else FileType.SHARED_LIBRARY
    else:
        file_type = _FILE_TYPES.get(elf.file_type, FileType.OTHER)
    return BinaryRecord(
        name=name,
        format=BinaryFormat.ELF,
        arches=(elf.arch,),
        file_type=file_type,
        soname=soname,
        needed=tuple(needed),
        runpath=tuple(runpath),
        rpath=tuple(rpath),
        defined=tuple(defined),
        undefined=tuple(undefined),
        imports=tuple(imports),
    )


# ---------------------------------------------------------------- relocated pointers


def read_elf_pointers(data: bytes) -> RelocatedPointers | None:
    """The pointers lief_reader's lief path gives this ELF file, or None when the file is
    not consistent enough to be sure of them (then ask lief)."""
    if not data.startswith(ELF_MAGIC):
        return None
    try:
        return _pointers(_Elf(data))
    except (_Unsure, struct.error, IndexError, ValueError, OverflowError):
        return None


# (address, type as lief types it: r_type | the machine's bits, index into the dynamic
# symbols or None for RELR, addend or None for REL and RELR: the addend is in the slot).
# A plain tuple: a library has tens of thousands of relocations, and a frozen
# dataclass's constructor was a third of reading them, and a NamedTuple's is Python code.
_Relocation = tuple[int, int, int | None, int | None]


def _pointers(elf: _Elf) -> RelocatedPointers:
    if any(tag in _DT_ANDROID_PACKED for tag, _ in elf.dynamic):
        raise _Unsure
    symbols = elf.symbols(named=False)
    regions = _regions(elf)
    relocations = list(_dynamic_relocations(elf))
    # Each relocation (and its target) is looked up among the regions one by one.
    if 2 * len(relocations) * len(regions) > _POINTER_LOOKUPS:
        raise _Unsure
    image = Image(regions)
    word = elf.word
    slots: dict[int, int] = {}
    for address, kind, symbol, addend in relocations:
        target: int | None
        if kind in _RELATIVE:
            target = addend if addend is not None else image.word(address, word)
        elif (
            _ABSOLUTE.get(kind) == word * 8
            and symbol is not None
            and symbol < len(symbols)
            and symbols[symbol][3] != 0
        ):
            if addend is None:
                addend = image.word(address, word)
            target = symbols[symbol][4] + (addend or 0)
        else:
            continue
        if target is not None:
            slots[address] = target
    return image.pointers(word, slots)


def _dynamic_relocations(elf: _Elf) -> Iterator[_Relocation]:
    """lief's dynamic relocations in its order: DT_RELA, else DT_REL, then RELR tables."""
    any_table = False
    for table, size_tag, rela in ((_DT_RELA, _DT_RELASZ, True), (_DT_REL, _DT_RELSZ, False)):
        if any_table or table not in elf.first or size_tag not in elf.first:
            continue
        offset = elf.offset(elf.first[table])
        if offset is None:
            continue
        shape = elf.layout.rela if rela else elf.layout.rel
        count = min((elf.first[size_tag] // shape.size) & 0xFFFFFFFF, _NB_MAX_RELOCATIONS)
        shift, mask = elf.layout.info_shift, elf.layout.type_mask
        bits = _TYPE_BITS[elf.machine]
        for fields in elf.table(offset, count, shape):
            any_table = True
            info = fields[1]
            yield (fields[0], info & mask | bits, (info >> shift) & 0xFFFFFFFF,
                   fields[2] if rela else None)  # fmt: skip
    for table, size_tag in ((_DT_RELR, _DT_RELRSZ), (_DT_ANDROID_RELR, _DT_ANDROID_RELRSZ)):
        if table in elf.first and size_tag in elf.first:
            offset = elf.offset(elf.first[table])
            if offset is not None:
                yield from _relr(elf, offset, elf.first[size_tag])


def _relr(elf: _Elf, offset: int, size: int) -> Iterator[_Relocation]:
    kind = _RELR_TYPE.get(elf.machine, -1)
    word = elf.word
    # lief computes RELR addresses in the class's own address width.
    mask = (1 << (8 * word)) - 1
    shape = elf.layout.u32 if word == 4 else struct.Struct(elf.layout.u32.format[0] + "Q")
    base = 0
    produced = 0
    for (entry,) in elf.table(offset, (size + word - 1) // word, shape):
        if produced >= _NB_MAX_RELOCATIONS:
            return
        if entry & 1 == 0:
            yield (entry, kind, None, None)
            produced += 1
            base = (entry + word) & mask
        else:
            address = base
            entry >>= 1
            while entry:
                if entry & 1:
                    yield (address & mask, kind, None, None)
                    produced += 1
                entry >>= 1
                address += word
            base = (base + (8 * word - 1) * word) & mask


def _regions(elf: _Elf) -> list[Region]:
    """The ALLOC sections, else the LOAD segments: what lief_reader reads pointers in."""
    regions: list[Region] = []
    # Views, not copies, of the file's bytes (a mapped file is sliced: a view would keep
    # its mapping from closing).
    view = memoryview(elf.data) if isinstance(elf.data, bytes) else elf.data
    for section in elf.sections:
        if not section.flags & _SHF_ALLOC:
            continue
        content: bytes | memoryview = b""
        if section.type == _SHT_NOBITS or section.size == 0:
            pass
        elif section.offset > elf.size or section.size > elf.size - section.offset:
            raise _Unsure  # lief keeps no content for it
        else:
            content = view[section.offset : section.offset + section.size]
        regions.append(
            Region(section.addr, content, section.size, bool(section.flags & _SHF_EXECINSTR))
        )
    if regions:
        return regions
    return [
        Region(
            s.vaddr,
            view[s.offset : s.offset + s.filesz] if 0 < s.filesz < (3 << 30) else b"",
            s.memsz,
            bool(s.flags & 1),
        )
        for s in elf.segments
        if s.type == _PT_LOAD
    ]
