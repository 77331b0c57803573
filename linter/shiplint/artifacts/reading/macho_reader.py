"""A Mach-O file's record read with `struct`, from a buffer that need not be in memory.

A real SDK ships dylibs of hundreds of MiB (torch 2.14.1's libtorch_cpu.dylib is 368 MiB);
lief copies the whole file and then every segment's content before it lists a symbol
(1.1 GB resident for that one file). This reader looks only at the load commands and
the symbol and string tables, through a buffer the caller maps from a file (`mmap`), so
only those pages are ever read. It gives the record `lief_reader` gives with lief's
quick configuration, or None when the file is anything it is not sure of (then lief
reads it): `tests/test_artifacts_macho_reader.py` holds the two readers equal on real
dylibs.
"""

from __future__ import annotations

import mmap
import struct

from shiplint.artifacts.records import (
    BinaryFormat,
    BinaryRecord,
    Binding,
    FileType,
    Import,
    SymbolKind,
    SymbolRecord,
)
from shiplint.platforms import normalise_arch

_FAT = (b"\xca\xfe\xba\xbe",)
_THIN = {
    b"\xcf\xfa\xed\xfe": ("<", True),
    b"\xce\xfa\xed\xfe": ("<", False),
}
_CPU = {7: "x86", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "aarch64"}
_FILE_TYPES = {
    1: FileType.OBJECT,
    2: FileType.EXECUTABLE,
    6: FileType.SHARED_LIBRARY,
    8: FileType.BUNDLE,
}
_MH_TWOLEVEL = 0x80
_LC_SEGMENT, _LC_SEGMENT_64 = 0x1, 0x19
_LC_SYMTAB, _LC_DYSYMTAB = 0x2, 0xB
_LC_ID_DYLIB = 0xD
# Every command lief lists among a binary's libraries besides LC_ID_DYLIB: load, weak,
# re-export, lazy and upward loads.
_LC_DYLIBS = {0xC, 0x80000018, 0x8000001F, 0x20, 0x80000023}
_LC_REEXPORT_DYLIB = 0x8000001F
_LC_RPATH = 0x8000001C
_LC_BUILD_VERSION, _LC_VERSION_MIN_MACOSX = 0x32, 0x24
_PLATFORM_MACOS = 1
_MAX_COMMANDS = 65_536
_N_WEAK_DEF, _N_WEAK_REF = 0x0080, 0x0040
_DYNAMIC_LOOKUP_ORDINAL, _EXECUTABLE_ORDINAL = 0xFE, 0xFF


class _Unsure(Exception):
    """Something this reader does not model: lief decides."""


def read_macho(data: bytes | mmap.mmap, name: str) -> BinaryRecord | None:
    """The record lief_reader gives this Mach-O file, or None when not sure of it."""
    view = memoryview(data)
    try:
        return _read(view, name)
    except (_Unsure, struct.error, IndexError, ValueError, OverflowError):
        return None
    finally:
        view.release()


def _read(view: memoryview, name: str) -> BinaryRecord:
    magic = bytes(view[:4])
    if magic in _FAT:
        (count,) = struct.unpack_from(">I", view, 4)
        if not 1 <= count <= 16:
            raise _Unsure
        slices = []
        for index in range(count):
            _, _, offset, size = struct.unpack_from(">iiII", view, 8 + 20 * index)
            if offset + size > len(view):
                raise _Unsure  # lief's reason for a cut-short slice is its own
            slices.append(_Slice(view[offset : offset + size]))
        first = slices[0]
        arches = tuple(s.arch for s in slices)
        minimums = tuple(s.minimum for s in slices)
        # lief checks segments against the whole file only for a single slice.
        whole = len(view) if count == 1 else None
    else:
        first = _Slice(view)
        arches, minimums, whole = (first.arch,), (first.minimum,), len(view)
    if whole is not None:
        for segment_end in first.segment_ends:
            if segment_end > whole:
                raise _Unsure  # truncated: lief says where
    return first.record(name, arches, minimums)


class _Slice:
    """One architecture's image: its header and load commands, read on construction."""

    def __init__(self, view: memoryview) -> None:
        magic = bytes(view[:4])
        if magic not in _THIN:
            raise _Unsure
        order, wide = _THIN[magic]
        self.view, self.order = view, order
        cpu, _, file_type, ncmds, sizeofcmds, flags = struct.unpack_from(order + "iiIIII", view, 4)
        if cpu not in _CPU:
            raise _Unsure
        self.arch = normalise_arch(_CPU[cpu])
        self.file_type = _FILE_TYPES.get(file_type, FileType.OTHER)
        self.two_level = bool(flags & _MH_TWOLEVEL)
        self.wide = wide
        self.soname: str | None = None
        self.libraries: list[tuple[int, str]] = []
        self.rpaths: list[str] = []
        self.segment_ends: list[int] = []
        self.symtab: tuple[int, int, int, int] | None = None
        self.dysymtab: tuple[int, ...] | None = None
        self.minimum = ""
        version_min: str | None = None
        build: str | None = None
        offset = 32 if wide else 28
        end = offset + sizeofcmds
        # Real images hold tens of load commands: millions of tiny ones are not read here.
        if end > len(view) or ncmds > _MAX_COMMANDS:
            raise _Unsure
        for _ in range(ncmds):
            command, size = struct.unpack_from(order + "II", view, offset)
            if size < 8 or offset + size > end:
                raise _Unsure
            self._command(command, offset, size)
            if command == _LC_BUILD_VERSION and build is None:
                platform, minos = struct.unpack_from(order + "II", view, offset + 8)
                build = _dotted(minos) if platform == _PLATFORM_MACOS else ""
            elif command == _LC_VERSION_MIN_MACOSX and version_min is None:
                (version,) = struct.unpack_from(order + "I", view, offset + 8)
                version_min = _dotted(version)
            offset += size
        self.minimum = build if build is not None else (version_min or "")

    def _command(self, command: int, offset: int, size: int) -> None:
        order, view = self.order, self.view
        if command == _LC_SEGMENT_64:
            fileoff, filesize = struct.unpack_from(order + "QQ", view, offset + 40)
            self.segment_ends.append(fileoff + filesize)
        elif command == _LC_SEGMENT:
            fileoff, filesize = struct.unpack_from(order + "II", view, offset + 32)
            self.segment_ends.append(fileoff + filesize)
        elif command == _LC_ID_DYLIB or command in _LC_DYLIBS:
            text = self._string_in(offset, size)
            if command == _LC_ID_DYLIB:
                self.soname = text
            self.libraries.append((command, text))
        elif command == _LC_RPATH:
            self.rpaths.append(self._string_in(offset, size))
        elif command == _LC_SYMTAB:
            self.symtab = struct.unpack_from(order + "IIII", view, offset + 8)
        elif command == _LC_DYSYMTAB:
            self.dysymtab = struct.unpack_from(order + "IIIIII", view, offset + 8)

    def _string_in(self, offset: int, size: int) -> str:
        (at,) = struct.unpack_from(self.order + "I", self.view, offset + 8)
        if not 8 <= at < size:
            raise _Unsure
        raw = bytes(self.view[offset + at : offset + size])
        return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")

    def record(self, name: str, arches: tuple[str, ...], minimums: tuple[str, ...]) -> BinaryRecord:
        needed = [text for command, text in self.libraries if command != _LC_ID_DYLIB]
        reexports = [text for command, text in self.libraries if command == _LC_REEXPORT_DYLIB]
        defined: list[SymbolRecord] = []
        undefined: list[str] = []
        imports: list[Import] = []
        for raw, category, description in self._symbols():
            c_name = raw[1:] if raw.startswith("_") else raw
            if category == "undefined":
                undefined.append(c_name)
                imports.append(two_level_import(c_name, description, needed, self.two_level))
            elif category == "external":
                weak = description & _N_WEAK_DEF
                defined.append(
                    SymbolRecord(
                        name=c_name,
                        binding=Binding.WEAK if weak else Binding.GLOBAL,
                        visibility="default",
                        kind=SymbolKind.OTHER,
                    )
                )
        return BinaryRecord(
            name=name,
            format=BinaryFormat.MACHO,
            arches=arches,
            file_type=self.file_type,
            soname=self.soname,
            needed=tuple(needed),
            runpath=tuple(self.rpaths),
            rpath=(),
            defined=tuple(defined),
            undefined=tuple(undefined),
            imports=tuple(imports),
            reexports=tuple(reexports),
            min_os=minimums,
        )

    def _symbols(self) -> list[tuple[str, str, int]]:
        """Each symbol table entry: its name, its category by LC_DYSYMTAB's ranges (as lief
        gives it), and its n_desc."""
        if self.symtab is None:
            return []
        symoff, nsyms, stroff, strsize = self.symtab
        if nsyms and self.dysymtab is None:
            raise _Unsure
        entry = 16 if self.wide else 12
        if symoff + nsyms * entry > len(self.view) or stroff + strsize > len(self.view):
            raise _Unsure
        ilocal, nlocal, iext, next_, iundef, nundef = self.dysymtab or (0, 0, 0, 0, 0, 0)
        strings = self.view[stroff : stroff + strsize]
        layout = self.order + ("IBBHQ" if self.wide else "IBBhI")
        symbols = []
        for index, (strx, _, _, description, _) in enumerate(
            struct.iter_unpack(layout, self.view[symoff : symoff + nsyms * entry])
        ):
            if iext <= index < iext + next_:
                category = "external"
            elif iundef <= index < iundef + nundef:
                category = "undefined"
            elif ilocal <= index < ilocal + nlocal:
                category = "local"
            else:
                category = "none"
            if category in ("local", "none"):
                continue  # never part of the record
            if strx >= strsize:
                raise _Unsure
            end = _nul(strings, strx)
            text = bytes(strings[strx:end]).decode("utf-8", "surrogateescape")
            symbols.append((text, category, description & 0xFFFF))
        return symbols


def _nul(strings: memoryview, start: int) -> int:
    # A memoryview has no find(): look in growing windows for the name's end.
    width = 256
    while True:
        window = bytes(strings[start : start + width])
        at = window.find(b"\0")
        if at >= 0:
            return start + at
        if start + width >= len(strings):
            return len(strings)
        width *= 4


def _dotted(version: int) -> str:
    return f"{version >> 16}.{(version >> 8) & 0xFF}"


def two_level_import(name: str, description: int, needed: list[str], two_level: bool) -> Import:
    """An undefined symbol and the library its two-level ordinal binds it to: ordinal
    n is the n-th dylib load command after LC_ID_DYLIB, i.e. `needed[n - 1]`. Ordinal 0
    (the binary itself, an old form) or one past the load commands names no library, so
    it is looked up like a flat-namespace reference."""
    weak = bool(description & _N_WEAK_REF)
    ordinal = (description >> 8) & 0xFF
    if not two_level or ordinal == _DYNAMIC_LOOKUP_ORDINAL:
        return Import(name, weak)
    if ordinal == _EXECUTABLE_ORDINAL:
        return Import(name, weak, from_executable=True)
    if 1 <= ordinal <= len(needed):
        return Import(name, weak, library=needed[ordinal - 1])
    return Import(name, weak)
