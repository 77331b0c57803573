"""The records the rules read of one binary: format, architectures, linkage, symbols.

Frozen, free of any parser: the reading stack (`shiplint.artifacts.reading`) fills them
in, also in a child process, to which they are pickled back as they are.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import field

from shiplint.artifacts.demangle import base_name, demangle
from shiplint.fastclass import dataclass


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


class SymbolKind(enum.Enum):
    FUNCTION = "function"
    # Data: an ELF OBJECT or TLS symbol.
    OBJECT = "object"
    # Anything else, and every Mach-O symbol (its symbol table does not say).
    OTHER = "other"


@dataclass(frozen=True)
class SymbolRecord:
    """A defined, exported symbol. `name` is the C-level name (Mach-O's leading `_` removed)."""

    name: str
    binding: Binding
    visibility: str
    kind: SymbolKind
    # ELF: the version it is defined under (GLIBCXX_3.4), None when unversioned.
    version: str | None = None

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
class Import:
    """An undefined dynamic symbol: a name some library the loader loads must define."""

    name: str
    # A weak reference stays null when nothing defines it: never a load failure.
    weak: bool
    # ELF: the version the reference requires (GLIBCXX_3.4) and the file it requires
    # that version of (libstdc++.so.6); None when the reference is unversioned.
    version: str | None = None
    file: str | None = None
    # Mach-O two-level namespace and PE: the library the reference is bound to, as the
    # binary names it (the install name its ordinal selects, the DLL it is imported from):
    # that library must export it. None when the loader searches every image it loaded
    # (ELF; Mach-O flat namespace and `-undefined dynamic_lookup`).
    library: str | None = None
    # PE: imported by ordinal alone (`name` is then `#<ordinal>`).
    ordinal: int | None = None
    # Mach-O: bound to the main executable that loads the binary, unknown statically.
    from_executable: bool = False


def symbol_record(
    name: str, binding: Binding, visibility: str, kind: SymbolKind, version: str | None
) -> SymbolRecord:
    """`SymbolRecord(...)`, built as unpickling builds an object: the fields set in its
    `__dict__` at once. The readers build tens of thousands, and the frozen constructor's
    `object.__setattr__` per field was half of that. A field left out here fails every
    comparison of records in the tests (dataclass equality reads each field)."""
    symbol = object.__new__(SymbolRecord)
    fields = symbol.__dict__
    fields["name"], fields["binding"], fields["visibility"] = name, binding, visibility
    fields["kind"], fields["version"] = kind, version
    return symbol


def import_record(
    name: str,
    weak: bool,
    version: str | None = None,
    file: str | None = None,
    library: str | None = None,
    ordinal: int | None = None,
    from_executable: bool = False,
) -> Import:
    """`Import(...)`, built as `symbol_record` builds a symbol, for the same reason."""
    reference = object.__new__(Import)
    fields = reference.__dict__
    fields["name"], fields["weak"], fields["version"], fields["file"] = name, weak, version, file
    fields["library"], fields["ordinal"] = library, ordinal
    fields["from_executable"] = from_executable
    return reference


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
    # Every undefined dynamic symbol with its binding, and the version (ELF) or the
    # library (Mach-O, PE) it is bound to; `undefined` keeps the names alone.
    imports: tuple[Import, ...] = ()
    # PE: the ordinals of its exports (an import by ordinal names one of them).
    export_ordinals: frozenset[int] = frozenset()
    # Mach-O: the install names of its LC_REEXPORT_DYLIB entries, whose exports it exports.
    reexports: tuple[str, ...] = ()
    # Mach-O: the oldest macOS each slice loads on (LC_BUILD_VERSION's minos, else
    # LC_VERSION_MIN_MACOSX), `14.0`, in the order of `arches`; "" where a slice states none.
    min_os: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def arch(self) -> str | None:
        return self.arches[0] if len(self.arches) == 1 else None

    def strong_symbols(self) -> dict[str, SymbolRecord]:
        """Strong definitions by mangled name (the comparison that tells a copy from an overload)."""
        return self._strong

    def definitions(self) -> dict[str, frozenset[str | None]]:
        """Every exported name with the versions it is defined under (None: unversioned)."""
        return self._definitions

    @functools.cached_property
    def _definitions(self) -> dict[str, frozenset[str | None]]:
        out: dict[str, set[str | None]] = {}
        for symbol in self.defined:
            out.setdefault(symbol.name, set()).add(symbol.version)
        return {name: frozenset(versions) for name, versions in out.items()}

    @functools.cached_property
    def _strong(self) -> dict[str, SymbolRecord]:
        return {s.name: s for s in self.defined if s.strong}


@dataclass(frozen=True)
class BinaryError:
    """A member that looks like a binary (by name) but cannot be read as one, and why."""

    name: str
    reason: str
    # The reason is about this reading (the reading process crashed or stalled, an exception
    # inside the parser), not the bytes alone: a later reading may answer otherwise, so it is never kept.
    transient: bool = field(default=False, compare=False)
