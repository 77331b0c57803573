"""The ONE module that imports lief: one binary's bytes in, a frozen record out.

`read_binary(data, name) -> BinaryRecord | BinaryError` reads ELF, Mach-O and PE
(and `!<arch>` static archives, which lief does not parse, through
`static_archive`) from bytes. What reaches it was declined by the struct readers
(`shiplint.artifacts.reading.by_struct`), so it reads with lief directly; only an
archive's objects go to `elf_reader` first. Only what the rules need is parsed: the dynamic
section, the dynamic symbol table, load commands, imports/exports; no relocations,
no static symbol table, no resources. `read_relocated_pointers` reads the
relocations too, for the operator tables. lief's API changes between releases stay
in this file. lief is imported on the first call that needs it, so a run that reads
no binary, or only ELF files `elf_reader` is sure of, never loads it; a run reads
with it only inside the worker process (`shiplint.artifacts.reading.worker`), tests
and the link probe's own consumers in this one (`InProcess`).

Every failure on one file, including an exception inside lief, becomes a
`BinaryError` for that file: never a crash of the run.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from shiplint.artifacts.headers import (
    AR_MAGICS,
    ELF_MAGIC,
    MACHO_MAGICS,
    elf_truncation,
    macho_problem,
)
from shiplint.artifacts.pointers import Image, Region, RelocatedPointers, unreadable_pointers
from shiplint.artifacts.reading.elf_reader import read_elf
from shiplint.artifacts.reading.macho_reader import two_level_import
from shiplint.artifacts.reading.static_archive import read_archive
from shiplint.artifacts.records import (
    BinaryError,
    BinaryFormat,
    BinaryRecord,
    Binding,
    FileType,
    Import,
    SymbolKind,
    SymbolRecord,
)
from shiplint.platforms import normalise_arch

# Mach-O n_desc flag: the definition is weak (coalesced by the loader). A reference's
# flags and ordinal are read by macho_reader.two_level_import.
_N_WEAK_DEF = 0x0080


@functools.cache
def _lief() -> ModuleType:
    import lief

    # lief logs parse problems to stderr; shiplint reports them as findings instead.
    lief.logging.disable()
    return lief


def preload() -> None:
    """Import lief now (a worker does this while its parent is still reading the archive)."""
    _lief()


class InProcess:
    """lief in this process, as the layer below the struct readers (tests, and the link
    probe's own freshly built consumers)."""

    def binaries(
        self, items: Iterable[tuple[str, bytes]]
    ) -> Iterator[tuple[str, BinaryRecord | BinaryError]]:
        for name, data in items:
            yield name, read_binary(data, name)

    def binary(self, data: bytes, name: str) -> BinaryRecord | BinaryError:
        return read_binary(data, name)

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        return read_relocated_pointers(data)


def read_binary(data: bytes, name: str) -> BinaryRecord | BinaryError:
    """Read one binary from its bytes with lief. Never raises for bad input."""
    head = data[:8]
    if not data:
        return BinaryError(name, "empty file (0 bytes)")
    try:
        # lief's enums warn on out-of-range values in a corrupt file; the record
        # (or the BinaryError) already says what is wrong, stderr must stay clean.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if head.startswith(ELF_MAGIC):
                return _read_elf(data, name)
            if head[:4] in MACHO_MAGICS:
                return _read_macho(data, name)
            if head.startswith(b"MZ"):
                return _read_pe(data, name)
            if head in AR_MAGICS:
                return read_archive(data, name, _archive_object)
    # lief raises its own error types, and some inputs reach plain ValueError,
    # TypeError or RuntimeError inside its bindings; any of them is a fact about
    # this one file, so the run goes on and the rules report it.
    except Exception as exc:
        # What an exception says (an address, memory, recursion depth) may differ next time.
        reason = f"cannot be parsed: {type(exc).__name__}: {exc}"
        return BinaryError(name, reason, transient=True)
    return BinaryError(
        name, f"not a binary: starts with {data[:4]!r}, no ELF, Mach-O, PE or ar magic"
    )


def _archive_object(data: bytes, name: str) -> BinaryRecord | BinaryError:
    """An archive's object: read as a wheel's member is, the struct reader first."""
    return (read_elf(data, name) if data.startswith(ELF_MAGIC) else None) or read_binary(data, name)


def _text(value: str | bytes) -> str:
    """A name as text. lief hands back a name that is not UTF-8 (a symbol `bad\\xffname`)
    as bytes; undecodable bytes are kept as surrogates, which reports print escaped."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    return value


def _stream(data: bytes) -> io.BytesIO:
    """The bytes as a file object for lief's `parse`: lief 0.15 and 0.16 take a `bytes`
    argument for a path (and parse nothing), while every release from 0.15 on reads a
    stream, no slower than bytes."""
    return io.BytesIO(data)


def _enum_name(value: Any) -> str:
    return str(getattr(value, "name", value)).rsplit(".", 1)[-1]


def _elf_config(lief: ModuleType, *, relocations: bool) -> Any:
    """What an ELF parse reads: the dynamic section and symbols, relocations only when
    pointers are wanted, symbol versions (which library a reference binds to); never the
    static symbol table, notes or overlay."""
    config = lief.ELF.ParserConfig()
    config.parse_relocations = relocations
    config.parse_symtab_symbols = False
    config.parse_notes = False
    config.parse_overlay = False
    config.parse_symbol_versions = True
    return config


def _pe_config(lief: ModuleType, *, relocations: bool) -> Any:
    """What a PE parse reads: headers, imports and exports; base relocations only when
    pointers are wanted."""
    config = lief.PE.ParserConfig()
    # lief 0.17 added exception-table parsing (on by default); older releases never read it.
    if hasattr(config, "parse_exceptions"):
        config.parse_exceptions = False
    config.parse_reloc = relocations
    config.parse_rsrc = False
    config.parse_signature = False
    return config


# ---------------------------------------------------------------- ELF

_ELF_ARCH = {
    "X86_64": "x86_64",
    "AARCH64": "aarch64",
    "I386": "x86",
    "ARM": "arm",
    "PPC64": "ppc64le",
    "S390": "s390x",
    "RISCV": "riscv64",
}


def _read_elf(data: bytes, name: str) -> BinaryRecord | BinaryError:
    lief = _lief()
    truncated = elf_truncation(data)
    if truncated:
        return BinaryError(name, truncated)
    binary = lief.ELF.parse(_stream(data), _elf_config(lief, relocations=False))
    if binary is None:
        return BinaryError(name, "lief cannot parse this ELF file")
    tags = lief.ELF.DynamicEntry.TAG
    soname = None
    needed: list[str] = []
    runpath: list[str] = []
    rpath: list[str] = []
    pie = False
    for entry in binary.dynamic_entries:
        tag = entry.tag
        if tag == tags.NEEDED:
            needed.append(_text(entry.name))
        elif tag == tags.SONAME:
            soname = _text(entry.name)
        elif tag == tags.RUNPATH:
            runpath.extend(p for p in _text(entry.runpath).split(":") if p)
        elif tag == tags.RPATH:
            rpath.extend(p for p in _text(entry.rpath).split(":") if p)
        elif tag == tags.FLAGS_1:
            pie = entry.has(lief.ELF.DynamicEntryFlags.FLAG.PIE)
    # Which file each required version comes from (GLIBCXX_3.4 -> libstdc++.so.6).
    version_files = {
        aux.name: requirement.name
        for requirement in binary.symbols_version_requirement
        for aux in requirement.get_auxiliary_symbols()
    }
    defined: list[SymbolRecord] = []
    undefined: list[str] = []
    imports: list[Import] = []
    for symbol in binary.dynamic_symbols:
        symbol_name = _text(symbol.name)
        if not symbol_name:
            continue
        binding = _enum_name(symbol.binding)
        version = _elf_version(symbol)
        if symbol.shndx == 0:
            undefined.append(symbol_name)
            if binding != "LOCAL":
                imports.append(
                    Import(
                        symbol_name, binding == "WEAK", version, version_files.get(version or "")
                    )
                )
            continue
        visibility = _enum_name(symbol.visibility).lower()
        if binding == "LOCAL" or visibility in ("hidden", "internal"):
            continue
        defined.append(
            SymbolRecord(
                name=symbol_name,
                binding={"WEAK": Binding.WEAK, "GNU_UNIQUE": Binding.UNIQUE}.get(
                    binding, Binding.GLOBAL
                ),
                visibility=visibility,
                kind=_elf_kind(_enum_name(symbol.type)),
                version=version,
            )
        )
    machine = _enum_name(binary.header.machine_type)
    return BinaryRecord(
        name=name,
        format=BinaryFormat.ELF,
        arches=(normalise_arch(_ELF_ARCH.get(machine, machine)),),
        file_type=_elf_file_type(_enum_name(binary.header.file_type), pie),
        soname=soname,
        needed=tuple(needed),
        runpath=tuple(runpath),
        rpath=tuple(rpath),
        defined=tuple(defined),
        undefined=tuple(undefined),
        imports=tuple(imports),
    )


def _elf_version(symbol: Any) -> str | None:
    """The version name a dynamic symbol carries; None when unversioned (local or global)."""
    if not symbol.has_version:
        return None
    version = symbol.symbol_version
    if version is None or not version.has_auxiliary_version:
        return None
    name: str = version.symbol_version_auxiliary.name
    return name or None


_ELF_KINDS = {
    "FUNC": SymbolKind.FUNCTION,
    "GNU_IFUNC": SymbolKind.FUNCTION,
    "OBJECT": SymbolKind.OBJECT,
    "TLS": SymbolKind.OBJECT,
}


def _elf_kind(symbol_type: str) -> SymbolKind:
    return _ELF_KINDS.get(symbol_type, SymbolKind.OTHER)


def _elf_file_type(file_type: str, pie: bool) -> FileType:
    if file_type == "DYN":
        # A position-independent executable is ET_DYN too; DF_1_PIE tells them apart.
        return FileType.EXECUTABLE if pie else FileType.SHARED_LIBRARY
    return {"EXEC": FileType.EXECUTABLE, "REL": FileType.OBJECT}.get(file_type, FileType.OTHER)


# ---------------------------------------------------------------- Mach-O

_MACHO_ARCH = {"ARM64": "aarch64", "X86_64": "x86_64", "X86": "x86", "ARM": "arm"}
_MACHO_TYPES = {
    "DYLIB": FileType.SHARED_LIBRARY,
    "BUNDLE": FileType.BUNDLE,
    "EXECUTE": FileType.EXECUTABLE,
    "OBJECT": FileType.OBJECT,
}


def _read_macho(data: bytes, name: str) -> BinaryRecord | BinaryError:
    lief = _lief()
    problem = macho_problem(data)
    if problem:
        return BinaryError(name, problem)
    fat = lief.MachO.parse(_stream(data), lief.MachO.ParserConfig.quick)
    if fat is None or fat.size == 0:
        return BinaryError(name, "lief cannot parse this Mach-O file")
    arches = tuple(
        normalise_arch(_MACHO_ARCH.get(m, m))
        for m in (_enum_name(fat.at(i).header.cpu_type) for i in range(fat.size))
    )
    binary = fat.at(0)
    for segment in binary.segments:
        if segment.file_offset + segment.file_size > len(data) and fat.size == 1:
            return BinaryError(
                name,
                f"truncated: segment {segment.name} ends at "
                f"{segment.file_offset + segment.file_size}, file has {len(data)} bytes",
            )
    commands = lief.MachO.LoadCommand.TYPE
    soname = None
    needed: list[str] = []
    reexports: list[str] = []
    for library in binary.libraries:
        # lief lists the library's own LC_ID_DYLIB among its `libraries`: it is
        # the install name, not a dependency.
        if library.command == commands.ID_DYLIB:
            soname = _text(library.name)
            continue
        needed.append(_text(library.name))
        if library.command == commands.REEXPORT_DYLIB:
            reexports.append(_text(library.name))
    runpath = tuple(_text(command.path) for command in binary.rpaths)
    # Without MH_TWOLEVEL the ordinals mean nothing: every image loaded is searched.
    two_level = "TWOLEVEL" in {_enum_name(f) for f in binary.header.flags_list}
    defined: list[SymbolRecord] = []
    undefined: list[str] = []
    imports: list[Import] = []
    category = lief.MachO.Symbol.CATEGORY
    for symbol in binary.symbols:
        # The C-level name: Mach-O prefixes every C symbol with `_`.
        raw = _text(symbol.name)
        c_name = raw[1:] if raw.startswith("_") else raw
        if symbol.category == category.UNDEFINED:
            undefined.append(c_name)
            imports.append(two_level_import(c_name, symbol.description, needed, two_level))
        elif symbol.category == category.EXTERNAL:
            defined.append(
                SymbolRecord(
                    name=c_name,
                    binding=Binding.WEAK if symbol.description & _N_WEAK_DEF else Binding.GLOBAL,
                    visibility="default",
                    kind=SymbolKind.OTHER,
                )
            )
    return BinaryRecord(
        name=name,
        format=BinaryFormat.MACHO,
        arches=arches,
        file_type=_MACHO_TYPES.get(_enum_name(binary.header.file_type), FileType.OTHER),
        soname=soname,
        needed=tuple(needed),
        runpath=runpath,
        rpath=(),
        defined=tuple(defined),
        undefined=tuple(undefined),
        imports=tuple(imports),
        reexports=tuple(reexports),
        min_os=tuple(_macos_minimum(fat.at(i)) for i in range(fat.size)),
    )


def _macos_minimum(binary: Any) -> str:
    """The oldest macOS a slice says it loads on: LC_BUILD_VERSION's minos (a macOS
    platform only), else LC_VERSION_MIN_MACOSX; "" when it states neither."""
    if binary.has_build_version:
        command = binary.build_version
        if _enum_name(command.platform) == "MACOS":
            return _dotted(command.minos)
        return ""
    if binary.has_version_min:
        return _dotted(binary.version_min.version)
    return ""


def _dotted(parts: Any) -> str:
    major, minor = [*list(parts), 0, 0][:2]
    return f"{major}.{minor}"


# ---------------------------------------------------------------- PE

_PE_ARCH = {"AMD64": "x86_64", "ARM64": "aarch64", "I386": "x86", "ARMNT": "arm"}


def _read_pe(data: bytes, name: str) -> BinaryRecord | BinaryError:
    lief = _lief()
    binary = lief.PE.parse(_stream(data), _pe_config(lief, relocations=False))
    if binary is None:
        return BinaryError(name, "lief cannot parse this PE file (MZ header without a valid PE)")
    for section in binary.sections:
        if section.pointerto_raw_data + section.sizeof_raw_data > len(data):
            return BinaryError(
                name,
                f"truncated: section {section.name} ends at "
                f"{section.pointerto_raw_data + section.sizeof_raw_data}, "
                f"file has {len(data)} bytes",
            )
    characteristics = {_enum_name(c) for c in binary.header.characteristics_list}
    export = binary.get_export() if binary.has_exports else None
    # A DLL export has no weak form: every export is a strong definition.
    defined = tuple(
        SymbolRecord(
            name=_text(entry.name),
            binding=Binding.GLOBAL,
            visibility="default",
            kind=SymbolKind.FUNCTION if not entry.is_extern else SymbolKind.OTHER,
        )
        for entry in (export.entries if export is not None else ())
        if entry.name
    )
    undefined = tuple(
        _text(entry.name) for imported in binary.imports for entry in imported.entries if entry.name
    )
    # A DLL import has no weak form: the loader fails when the DLL lacks the entry.
    imports = tuple(
        Import(f"#{entry.ordinal}", False, library=_text(imported.name), ordinal=entry.ordinal)
        if entry.is_ordinal
        else Import(_text(entry.name), False, library=_text(imported.name))
        for imported in binary.imports
        for entry in imported.entries
        if entry.is_ordinal or entry.name
    )
    machine = _enum_name(binary.header.machine)
    return BinaryRecord(
        name=name,
        format=BinaryFormat.PE,
        arches=(normalise_arch(_PE_ARCH.get(machine, machine)),),
        file_type=FileType.SHARED_LIBRARY if "DLL" in characteristics else FileType.EXECUTABLE,
        soname=_text(export.name) if export is not None and export.name else None,
        needed=tuple(_text(imported.name) for imported in binary.imports),
        runpath=(),
        rpath=(),
        defined=defined,
        undefined=undefined,
        imports=imports,
        export_ordinals=frozenset(
            entry.ordinal for entry in (export.entries if export is not None else ())
        ),
    )


# ---------------------------------------------------------------- relocated pointers


def read_relocated_pointers(data: bytes) -> RelocatedPointers:
    """The relocated pointers of one ELF, Mach-O or PE binary, read with lief. Never
    raises for bad input.

    ELF: RELATIVE relocations (RELA addend, or the slot's own value for REL and
    RELR) and absolute symbolic ones to symbols the binary defines. Mach-O:
    chained-fixup rebases (the first slice of a universal binary). PE: DIR64 /
    HIGHLOW base relocations (addresses are RVAs). Anything else (Mach-O rebase
    opcodes without chained fixups) comes back `unreadable`, saying so.
    """
    head = data[:4]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if head == ELF_MAGIC:
                return _elf_pointers(data)
            if head in MACHO_MAGICS:
                return _macho_pointers(data)
            if head[:2] == b"MZ":
                return _pe_pointers(data)
    except Exception as exc:  # a fact about this one file, as in read_binary
        reason = f"relocations cannot be read: {type(exc).__name__}: {exc}"
        return unreadable_pointers(reason, transient=True)
    return unreadable_pointers("not an ELF, Mach-O or PE binary")


def _elf_pointers(data: bytes) -> RelocatedPointers:
    lief = _lief()
    truncated = elf_truncation(data)
    if truncated:
        return unreadable_pointers(truncated)
    binary = lief.ELF.parse(_stream(data), _elf_config(lief, relocations=True))
    if binary is None:
        return unreadable_pointers("lief cannot parse this ELF file")
    word = 8 if _enum_name(binary.header.identity_class) == "ELF64" else 4
    image = Image(_elf_regions(lief, binary))
    slots: dict[int, int] = {}
    for reloc in binary.dynamic_relocations:
        kind = _enum_name(reloc.type)
        if kind.endswith(("_RELATIVE", "_RELATIVE64")):
            # REL and RELR keep the addend in the slot itself.
            target = reloc.addend if reloc.is_rela else image.word(reloc.address, word)
        elif (
            kind.endswith(("_64", "ABS64", "_32", "ABS32"))
            and reloc.size == word * 8  # a full pointer, not R_X86_64_32 in a 64-bit file
            and reloc.has_symbol
            and reloc.symbol.shndx != 0
        ):
            # An absolute pointer to a symbol defined here (e.g. a default-
            # visibility kernel function): the symbol's address plus the addend.
            addend = reloc.addend if reloc.is_rela else image.word(reloc.address, word)
            target = reloc.symbol.value + (addend or 0)
        else:
            continue
        if target is not None:
            slots[reloc.address] = target
    return image.pointers(word, slots)


def _elf_regions(lief: ModuleType, binary: Any) -> list[Region]:
    flags = lief.ELF.Section.FLAGS
    sections = [s for s in binary.sections if s.has(flags.ALLOC)]
    if sections:
        return [
            Region(
                s.virtual_address,
                b"" if _enum_name(s.type) == "NOBITS" else bytes(s.content),
                s.size,
                s.has(flags.EXECINSTR),
            )
            for s in sections
        ]
    # Section headers stripped: the loadable segments say as much.
    return [
        Region(
            seg.virtual_address,
            bytes(seg.content),
            seg.virtual_size,
            seg.has(lief.ELF.Segment.FLAGS.X),
        )
        for seg in binary.segments
        if _enum_name(seg.type) == "LOAD"
    ]


def _macho_pointers(data: bytes) -> RelocatedPointers:
    lief = _lief()
    fat = lief.MachO.parse(_stream(data))
    if fat is None or fat.size == 0:
        return unreadable_pointers("lief cannot parse this Mach-O file")
    binary = fat.at(0)
    if not binary.has_dyld_chained_fixups:
        return unreadable_pointers(
            "Mach-O without chained fixups (LC_DYLD_INFO rebase opcodes) is not read"
        )
    word = 8 if _enum_name(binary.header.magic) in ("MAGIC_64", "CIGAM_64") else 4
    flags = lief.MachO.Section.FLAGS
    image = Image(
        [
            Region(
                s.virtual_address,
                bytes(s.content),
                s.size,
                s.has(flags.PURE_INSTRUCTIONS) or s.has(flags.SOME_INSTRUCTIONS),
            )
            for s in binary.sections
        ]
    )
    base = binary.imagebase
    slots: dict[int, int] = {}
    for reloc in binary.relocations:
        # A chained-fixup rebase: lief decodes the target from the chain. Binds
        # (to imported symbols) point outside the image and are not wanted here.
        if isinstance(reloc, lief.MachO.RelocationFixup):
            target = reloc.target
            slots[reloc.address] = target + base if target < base else target
    return image.pointers(word, slots)


def _pe_pointers(data: bytes) -> RelocatedPointers:
    lief = _lief()
    binary = lief.PE.parse(_stream(data), _pe_config(lief, relocations=True))
    if binary is None:
        return unreadable_pointers("lief cannot parse this PE file")
    base = binary.optional_header.imagebase
    execute = lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE
    image = Image(
        [
            Region(
                s.virtual_address,
                bytes(s.content),
                s.virtual_size or s.size,
                s.has_characteristic(execute),
            )
            for s in binary.sections
        ]
    )
    sizes = {"DIR64": 8, "HIGHLOW": 4}
    word = 8 if _enum_name(binary.header.machine) in ("AMD64", "ARM64") else 4
    slots: dict[int, int] = {}
    for block in binary.relocations:
        for entry in block.entries:
            size = sizes.get(_enum_name(entry.type))
            if size is None:
                continue
            # The slot holds an absolute address at the preferred base; keep RVAs.
            value = image.word(entry.address, size)
            if value is not None and value >= base:
                slots[entry.address] = value - base
    return image.pointers(word, slots)
