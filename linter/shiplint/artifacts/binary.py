"""The ONE module that imports lief: one binary's bytes in, a frozen record out.

`read_binary(data, name) -> BinaryRecord | BinaryError` reads ELF, Mach-O and PE
(and `!<arch>` static archives, which lief does not parse, by their first
object) from bytes. Only what the rules need is parsed: the dynamic section,
the dynamic symbol table, load commands, imports/exports; no relocations, no
static symbol table, no resources. lief's API changes between releases stay in
this file. lief is imported on the first call, so a run that reads no binary
never loads it.

Every failure on one file, including an exception inside lief, becomes a
`BinaryError` for that file: never a crash of the run.
"""

from __future__ import annotations

import enum
import functools
import struct
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from shiplint.artifacts.demangle import base_name, demangle
from shiplint.platforms import normalise_arch


class BinaryFormat(enum.Enum):
    ELF = "ELF"
    MACHO = "Mach-O"
    PE = "PE"
    ARCHIVE = "archive"

    @property
    def os(self) -> str | None:
        """The OS whose loader reads this format (None for an archive)."""
        return {"ELF": "linux", "Mach-O": "macos", "PE": "windows"}.get(self.value)


class FileType(enum.Enum):
    SHARED_LIBRARY = "shared library"
    # A Mach-O MH_BUNDLE: loadable with dlopen, not linkable.
    BUNDLE = "loadable bundle"
    EXECUTABLE = "executable"
    OBJECT = "object file"
    STATIC_ARCHIVE = "static archive"
    OTHER = "other"


class Binding(enum.Enum):
    GLOBAL = "global"
    WEAK = "weak"
    # ELF STB_GNU_UNIQUE: one copy per process, chosen by the loader (vague linkage).
    UNIQUE = "unique"


@dataclass(frozen=True)
class SymbolRecord:
    """A defined, exported symbol. `name` is the C-level name (Mach-O's leading `_` removed)."""

    name: str
    binding: Binding
    visibility: str
    kind: str  # function | object | other

    @property
    def strong(self) -> bool:
        """A strong definition: a copy of the code, not an inline/vague duplicate."""
        return self.binding is Binding.GLOBAL

    # Demangled on first use: most symbols of a run are never shown or matched by name.
    # (cached_property writes __dict__ directly, which a frozen dataclass allows.)
    @functools.cached_property
    def demangled(self) -> str | None:
        return demangle(self.name)

    @functools.cached_property
    def base(self) -> str:
        """The demangled name without arguments (the mangled name when it does not demangle)."""
        demangled = self.demangled
        return base_name(demangled) if demangled else self.name


@dataclass(frozen=True)
class BinaryRecord:
    """What the rules need to know of one binary."""

    name: str  # the member path it was read from
    format: BinaryFormat
    # Normalised architectures (one, or several for a Mach-O universal binary).
    arches: tuple[str, ...]
    file_type: FileType
    # ELF DT_SONAME, Mach-O LC_ID_DYLIB install name, PE export directory name.
    soname: str | None
    # DT_NEEDED / LC_LOAD_DYLIB (and weak/reexport/upward variants) / imported DLLs, in order.
    needed: tuple[str, ...]
    # ELF DT_RUNPATH entries; Mach-O LC_RPATH entries (the same role).
    runpath: tuple[str, ...]
    # ELF DT_RPATH entries, kept apart: searched before LD_LIBRARY_PATH, so it should not be used.
    rpath: tuple[str, ...]
    defined: tuple[SymbolRecord, ...]
    undefined: tuple[str, ...]
    # Members of a static archive (0 for anything else).
    archive_members: int = 0

    @property
    def file_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def arch(self) -> str | None:
        return self.arches[0] if len(self.arches) == 1 else None

    def strong_symbols(self) -> dict[str, SymbolRecord]:
        """Strong definitions by mangled name (the comparison that tells a copy from an overload)."""
        return self._strong

    @functools.cached_property
    def _strong(self) -> dict[str, SymbolRecord]:
        return {s.name: s for s in self.defined if s.strong}


@dataclass(frozen=True)
class BinaryError:
    """A member that looks like a binary (by name) but cannot be read as one, and why."""

    name: str
    reason: str


_ELF_MAGIC = b"\x7fELF"
_AR_MAGIC = (b"!<arch>\n", b"!<thin>\n")
_MACHO_MAGICS = {
    b"\xfe\xed\xfa\xce",
    b"\xce\xfa\xed\xfe",
    b"\xfe\xed\xfa\xcf",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",  # universal (also a Java class file; lief tells them apart)
    b"\xbe\xba\xfe\xca",
}
# Mach-O n_desc flag: the definition is weak (coalesced by the loader).
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


def read_binary(data: bytes, name: str) -> BinaryRecord | BinaryError:
    """Read one binary from its bytes. Never raises for bad input."""
    head = data[:8]
    if not data:
        return BinaryError(name, "empty file (0 bytes)")
    try:
        # lief's enums warn on out-of-range values in a corrupt file; the record
        # (or the BinaryError) already says what is wrong, stderr must stay clean.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if head.startswith(_ELF_MAGIC):
                return _read_elf(data, name)
            if head[:4] in _MACHO_MAGICS:
                return _read_macho(data, name)
            if head.startswith(b"MZ"):
                return _read_pe(data, name)
            if head in _AR_MAGIC:
                return _read_archive(data, name)
    # lief raises its own error types, and some inputs reach plain ValueError,
    # TypeError or RuntimeError inside its bindings; any of them is a fact about
    # this one file, so the run goes on and the rules report it.
    except Exception as exc:
        return BinaryError(name, f"cannot be parsed: {type(exc).__name__}: {exc}")
    return BinaryError(
        name, f"not a binary: starts with {data[:4]!r}, no ELF, Mach-O, PE or ar magic"
    )


def _enum_name(value: Any) -> str:
    return str(getattr(value, "name", value)).rsplit(".", 1)[-1]


def _elf_config(lief: ModuleType, *, relocations: bool) -> Any:
    """What an ELF parse reads: the dynamic section and symbols, relocations only when
    pointers are wanted; never the static symbol table, notes, overlay or versions."""
    config = lief.ELF.ParserConfig()
    config.parse_relocations = relocations
    config.parse_symtab_symbols = False
    config.parse_notes = False
    config.parse_overlay = False
    config.parse_symbol_versions = False
    return config


def _pe_config(lief: ModuleType, *, relocations: bool) -> Any:
    """What a PE parse reads: headers, imports and exports; base relocations only when
    pointers are wanted."""
    config = lief.PE.ParserConfig()
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
    truncated = _elf_truncation(data)
    if truncated:
        return BinaryError(name, truncated)
    binary = lief.ELF.parse(data, _elf_config(lief, relocations=False))
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
            needed.append(entry.name)
        elif tag == tags.SONAME:
            soname = entry.name
        elif tag == tags.RUNPATH:
            runpath.extend(p for p in entry.runpath.split(":") if p)
        elif tag == tags.RPATH:
            rpath.extend(p for p in entry.rpath.split(":") if p)
        elif tag == tags.FLAGS_1:
            pie = entry.has(lief.ELF.DynamicEntryFlags.FLAG.PIE)
    defined: list[SymbolRecord] = []
    undefined: list[str] = []
    for symbol in binary.dynamic_symbols:
        symbol_name = symbol.name
        if not symbol_name:
            continue
        binding = _enum_name(symbol.binding)
        if symbol.shndx == 0:
            undefined.append(symbol_name)
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
    )


def _elf_kind(symbol_type: str) -> str:
    return {"FUNC": "function", "GNU_IFUNC": "function", "OBJECT": "object", "TLS": "object"}.get(
        symbol_type, "other"
    )


def _elf_file_type(file_type: str, pie: bool) -> FileType:
    if file_type == "DYN":
        # A position-independent executable is ET_DYN too; DF_1_PIE tells them apart.
        return FileType.EXECUTABLE if pie else FileType.SHARED_LIBRARY
    return {"EXEC": FileType.EXECUTABLE, "REL": FileType.OBJECT}.get(file_type, FileType.OTHER)


def _elf_truncation(data: bytes) -> str | None:
    """Why the ELF file is cut short, read from its own header, or None when it is whole.

    lief builds a partial binary from a truncated file without complaint; a
    library whose dynamic section is cut off would then look like one with no
    dependencies, which is a wrong fact rather than an unreadable file.
    """
    if len(data) < 64:
        return f"truncated: {len(data)} bytes, shorter than an ELF header"
    is64 = data[4] == 2
    little = data[5] == 1
    order = "<" if little else ">"
    if is64:
        phoff, shoff = struct.unpack_from(order + "QQ", data, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", data, 54)
    else:
        phoff, shoff = struct.unpack_from(order + "II", data, 28)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", data, 42)
    size = len(data)
    if phoff + phentsize * phnum > size:
        return (
            f"truncated: program headers end at {phoff + phentsize * phnum}, file has {size} bytes"
        )
    if shnum and shoff + shentsize * shnum > size:
        return (
            f"truncated: section headers end at {shoff + shentsize * shnum}, file has {size} bytes"
        )
    for index in range(phnum):
        base = phoff + index * phentsize
        if is64:
            offset, filesz = (
                struct.unpack_from(order + "Q", data, base + 8)[0],
                struct.unpack_from(order + "Q", data, base + 32)[0],
            )
        else:
            offset, filesz = (
                struct.unpack_from(order + "I", data, base + 4)[0],
                struct.unpack_from(order + "I", data, base + 16)[0],
            )
        if offset + filesz > size:
            return f"truncated: segment {index} ends at {offset + filesz}, file has {size} bytes"
    return None


# ---------------------------------------------------------------- Mach-O

_MACHO_ARCH = {"ARM64": "aarch64", "X86_64": "x86_64", "X86": "x86", "ARM": "arm"}
_MACHO_TYPES = {
    "DYLIB": FileType.SHARED_LIBRARY,
    "BUNDLE": FileType.BUNDLE,
    "EXECUTE": FileType.EXECUTABLE,
    "OBJECT": FileType.OBJECT,
}


def _macho_problem(data: bytes) -> str | None:
    """Why a thin Mach-O file is cut short or empty, read from its header, or None."""
    magic = data[:4]
    if magic in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
        if len(data) < 8:
            return "truncated: shorter than a universal header"
        (count,) = struct.unpack_from(">I", data, 4)
        if 8 + 20 * count > len(data):
            return f"truncated: {count} architectures do not fit in {len(data)} bytes"
        for index in range(count):
            offset, size = struct.unpack_from(">II", data, 8 + 20 * index + 8)
            if offset + size > len(data):
                return f"truncated: architecture {index} ends at {offset + size}, file has {len(data)} bytes"
        return None
    order = "<" if magic in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
    header = 32 if magic in (b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf") else 28
    if len(data) < header:
        return f"truncated: {len(data)} bytes, shorter than a Mach-O header"
    ncmds, sizeofcmds = struct.unpack_from(order + "II", data, 16)
    if ncmds == 0:
        return "no load commands"
    if header + sizeofcmds > len(data):
        return f"truncated: load commands end at {header + sizeofcmds}, file has {len(data)} bytes"
    return None


def _read_macho(data: bytes, name: str) -> BinaryRecord | BinaryError:
    lief = _lief()
    problem = _macho_problem(data)
    if problem:
        return BinaryError(name, problem)
    fat = lief.MachO.parse(data, lief.MachO.ParserConfig.quick)
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
    for library in binary.libraries:
        # lief lists the library's own LC_ID_DYLIB among its `libraries`: it is
        # the install name, not a dependency.
        if library.command == commands.ID_DYLIB:
            soname = library.name
        else:
            needed.append(library.name)
    runpath = tuple(command.path for command in binary.rpaths)
    defined: list[SymbolRecord] = []
    undefined: list[str] = []
    category = lief.MachO.Symbol.CATEGORY
    for symbol in binary.symbols:
        # The C-level name: Mach-O prefixes every C symbol with `_`.
        raw = symbol.name
        c_name = raw[1:] if raw.startswith("_") else raw
        if symbol.category == category.UNDEFINED:
            undefined.append(c_name)
        elif symbol.category == category.EXTERNAL:
            defined.append(
                SymbolRecord(
                    name=c_name,
                    binding=Binding.WEAK if symbol.description & _N_WEAK_DEF else Binding.GLOBAL,
                    visibility="default",
                    kind="other",
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
    )


# ---------------------------------------------------------------- PE

_PE_ARCH = {"AMD64": "x86_64", "ARM64": "aarch64", "I386": "x86", "ARMNT": "arm"}


def _read_pe(data: bytes, name: str) -> BinaryRecord | BinaryError:
    lief = _lief()
    binary = lief.PE.parse(data, _pe_config(lief, relocations=False))
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
            name=entry.name,
            binding=Binding.GLOBAL,
            visibility="default",
            kind="function" if not entry.is_extern else "other",
        )
        for entry in (export.entries if export is not None else ())
        if entry.name
    )
    undefined = tuple(
        entry.name for imported in binary.imports for entry in imported.entries if entry.name
    )
    machine = _enum_name(binary.header.machine)
    return BinaryRecord(
        name=name,
        format=BinaryFormat.PE,
        arches=(normalise_arch(_PE_ARCH.get(machine, machine)),),
        file_type=FileType.SHARED_LIBRARY if "DLL" in characteristics else FileType.EXECUTABLE,
        soname=export.name if export is not None and export.name else None,
        needed=tuple(imported.name for imported in binary.imports),
        runpath=(),
        rpath=(),
        defined=defined,
        undefined=undefined,
    )


# ---------------------------------------------------------------- static archives


def _read_archive(data: bytes, name: str) -> BinaryRecord | BinaryError:
    """A `!<arch>` archive: its member count and the format/arch of its first object."""
    if data.startswith(b"!<thin>\n"):
        return _archive_record(name, BinaryFormat.ARCHIVE, (), 0)
    offset = 8
    members = 0
    first: BinaryRecord | BinaryError | None = None
    while offset + 60 <= len(data):
        header = data[offset : offset + 60]
        if header[58:60] != b"`\n":
            return BinaryError(name, f"corrupt static archive: bad member header at {offset}")
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            return BinaryError(name, f"corrupt static archive: bad member size at {offset}")
        if offset + 60 + size > len(data):
            return BinaryError(
                name, f"truncated static archive: member at {offset} runs past the end"
            )
        member_name = header[:16].decode("ascii", "replace").strip()
        body = data[offset + 60 : offset + 60 + size]
        # "/" and "//" (GNU) and "__.SYMDEF" (BSD) are the symbol and name tables.
        if member_name not in ("/", "//", "/SYM64/") and not member_name.startswith("__.SYMDEF"):
            members += 1
            if first is None and body[:4] in (_ELF_MAGIC, *_MACHO_MAGICS):
                first = read_binary(body, f"{name}({member_name.rstrip('/')})")
        offset += 60 + size + (size & 1)
    if offset < len(data) and data[offset:].strip(b"\n"):
        return BinaryError(
            name, f"corrupt static archive: {len(data) - offset} bytes after the last member"
        )
    arches = first.arches if isinstance(first, BinaryRecord) else ()
    return _archive_record(name, BinaryFormat.ARCHIVE, arches, members)


def _archive_record(
    name: str, fmt: BinaryFormat, arches: tuple[str, ...], members: int
) -> BinaryRecord:
    return BinaryRecord(
        name=name,
        format=fmt,
        arches=arches,
        file_type=FileType.STATIC_ARCHIVE,
        soname=None,
        needed=(),
        runpath=(),
        rpath=(),
        defined=(),
        undefined=(),
        archive_members=members,
    )


# ---------------------------------------------------------------- relocated pointers (issue 6)

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


def read_relocated_pointers(data: bytes) -> RelocatedPointers:
    """The relocated pointers of one ELF, Mach-O or PE binary. Never raises for bad input.

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
            if head == _ELF_MAGIC:
                return _elf_pointers(data)
            if head in _MACHO_MAGICS:
                return _macho_pointers(data)
            if head[:2] == b"MZ":
                return _pe_pointers(data)
    except Exception as exc:  # a fact about this one file, as in read_binary
        return unreadable_pointers(f"relocations cannot be read: {type(exc).__name__}: {exc}")
    return unreadable_pointers("not an ELF, Mach-O or PE binary")


def unreadable_pointers(reason: str) -> RelocatedPointers:
    """No pointers, and why."""
    return RelocatedPointers(0, (), (), frozenset(), reason)


@dataclass(frozen=True)
class _Region:
    start: int
    data: bytes
    size: int
    executable: bool


class _Image:
    """The loaded image as address ranges with their file bytes, for reads at addresses."""

    def __init__(self, regions: list[_Region]) -> None:
        self._regions = sorted((r for r in regions if r.size), key=lambda r: r.start)

    def _find(self, address: int) -> _Region | None:
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


def _elf_pointers(data: bytes) -> RelocatedPointers:
    lief = _lief()
    truncated = _elf_truncation(data)
    if truncated:
        return unreadable_pointers(truncated)
    binary = lief.ELF.parse(data, _elf_config(lief, relocations=True))
    if binary is None:
        return unreadable_pointers("lief cannot parse this ELF file")
    word = 8 if _enum_name(binary.header.identity_class) == "ELF64" else 4
    image = _Image(_elf_regions(lief, binary))
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


def _elf_regions(lief: ModuleType, binary: Any) -> list[_Region]:
    flags = lief.ELF.Section.FLAGS
    sections = [s for s in binary.sections if s.has(flags.ALLOC)]
    if sections:
        return [
            _Region(
                s.virtual_address,
                b"" if _enum_name(s.type) == "NOBITS" else bytes(s.content),
                s.size,
                s.has(flags.EXECINSTR),
            )
            for s in sections
        ]
    # Section headers stripped: the loadable segments say as much.
    return [
        _Region(
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
    fat = lief.MachO.parse(data)
    if fat is None or fat.size == 0:
        return unreadable_pointers("lief cannot parse this Mach-O file")
    binary = fat.at(0)
    if not binary.has_dyld_chained_fixups:
        return unreadable_pointers(
            "Mach-O without chained fixups (LC_DYLD_INFO rebase opcodes) is not read"
        )
    word = 8 if _enum_name(binary.header.magic) in ("MAGIC_64", "CIGAM_64") else 4
    flags = lief.MachO.Section.FLAGS
    image = _Image(
        [
            _Region(
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
    binary = lief.PE.parse(data, _pe_config(lief, relocations=True))
    if binary is None:
        return unreadable_pointers("lief cannot parse this PE file")
    base = binary.optional_header.imagebase
    execute = lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE
    image = _Image(
        [
            _Region(
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
