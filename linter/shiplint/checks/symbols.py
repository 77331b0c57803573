"""Artifact rule SL320: every undefined dynamic symbol resolves when the binary loads.

A static `ldd -r`. Mach-O (two-level namespace) and PE bind each reference to one
library: when that library is a member of the artifact it must export the name (a
Mach-O library also through the libraries it re-exports; a PE import by ordinal needs
that ordinal); an external or an unresolvable library is not read (SL308 reports the
latter). A Mach-O reference to the main executable is not known statically. Mach-O
flat-namespace and `dynamic_lookup` references are looked up like ELF's unversioned
ones, with every external outside the OS's own libraries standing in for anything.

Each ELF shared object's undefined, non-weak dynamic symbols must
be defined by a member of its NEEDED closure inside the artifact (with the version
the reference requires, where it is versioned), or come from a declared external.
An external's own file cannot be read, so:

- a versioned reference names the file it binds to (`GLIBCXX_3.4` of libstdc++.so.6):
  a file that is an allowed external accepts it; a file inside the artifact must
  define the name under that version;
- an unversioned reference is accepted when some library of the closure depends on an
  external that does not version its symbols (torch's libtorch.so, hwloc): that
  library may define anything. An external versions its symbols when any binary of
  the artifact requires a version of it, or when it is one of the glibc and GCC
  runtime libraries (always versioned, though a NEEDED entry kept by
  `--no-as-needed` may bind nothing): those never stand in for an unversioned name;
- a CPython extension module's `Py*` / `_Py*` names come from the interpreter that
  loads it, which no NEEDED entry names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any

from shiplint.artifacts.demangle import demangle
from shiplint.artifacts.model import Inventory, Resolution
from shiplint.artifacts.records import BinaryFormat, BinaryRecord, Import
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.plural import counted
from shiplint.rule import Rule

_SHOWN = 3
# `_C.cpython-311-x86_64-linux-gnu.so`, `_ext.abi3.so`: modules the interpreter loads.
_EXTENSION_MODULE = re.compile(r"\.(cpython-[^.]+|abi3)\.so$")
_INTERPRETER_NAME = re.compile(r"_?Py")
# The OS's own macOS libraries: they define a fixed set, never a package's names.
_MACOS_SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")
# glibc, the GCC runtime and zlib: every symbol they export carries a version.
_VERSIONED_RUNTIME = (
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "libpthread.so.0",
    "librt.so.1",
    "libutil.so.1",
    "libresolv.so.2",
    "libanl.so.1",
    "libnsl.so.1",
    "libmvec.so.1",
    "ld-linux*.so.*",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libatomic.so.1",
    "libz.so.1",
)


def unresolved_symbols(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL320: undefined dynamic symbols that nothing the binary loads defines."""
    versioned = {i.file for b in model.binaries for i in b.imports if i.file}
    for binary in model.binaries:
        if binary.format is BinaryFormat.ARCHIVE or not binary.imports:
            continue
        if binary.format is BinaryFormat.ELF:
            missing = _unresolved(manifest, model, binary, versioned)
        else:
            missing = _unbound(model, binary)
        if not missing:
            continue
        yield Finding(
            message=(
                f"leaves {counted(len(missing), 'undefined symbol')} unresolved when it "
                f"loads: {_names(missing)}; {_where(model, binary, missing)}"
            ),
            location=model.location(binary.name),
            subject=Subject(library=model.subject_name(binary.name), artifact=model.label),
            hint=(
                "Link the library against the one that defines them (a NEEDED entry the "
                "loader resolves), ship that library, or declare it under `externals`."
            ),
        )


def _names(missing: list[Import]) -> str:
    names = [_shown_name(s) for s in missing]
    more = f" (+{len(names) - _SHOWN} more)" if len(names) > _SHOWN else ""
    return ", ".join(names[:_SHOWN]) + more


def _where(model: Inventory, binary: BinaryRecord, missing: list[Import]) -> str:
    """Where the missing names were expected: the library each is bound to (Mach-O, PE),
    else the members that define them, which the NEEDED closure does not load."""
    parts: list[str] = []
    bound = sorted({m for s in missing if (m := _bound_member(model, binary, s)) is not None})
    if bound:
        parts.append(f"bound to {', '.join(bound)}, which does not export them")
    unbound = [s for s in missing if s.library is None]
    expected = sorted(
        {
            m
            for symbol in unbound
            for m in ([symbol.file] if symbol.file else _exporters(model, symbol.name))
        }
    )
    if expected:
        parts.append(f"expected from {', '.join(expected)}, which its NEEDED closure does not load")
    elif unbound:
        parts.append("nothing in the artifact defines them")
    return "; ".join(parts)


def _unresolved(
    manifest: Manifest, model: Inventory, binary: BinaryRecord, versioned: set[str]
) -> list[Import]:
    closure = [
        record
        for member in model.links.closure(binary.name)
        if (record := model.binary(member)) is not None
    ]
    opaque = False
    external_files: set[str] = set()
    for record in closure:
        for resolved in model.links.of(record.name).resolved:
            needed = resolved.needed
            if resolved.how is Resolution.EXTERNAL:
                if record is binary:
                    external_files.add(needed)
                opaque = opaque or not _versions_symbols(needed, versioned)
    extension = _EXTENSION_MODULE.search(binary.file_name) is not None
    missing: list[Import] = []
    for symbol in binary.imports:
        if symbol.weak:
            continue
        if symbol.version is not None and symbol.file is not None:
            if symbol.file in external_files:
                continue
            if any(symbol.version in r.definitions().get(symbol.name, ()) for r in closure):
                continue
            missing.append(symbol)
            continue
        if any(symbol.name in r.definitions() for r in closure):
            continue
        if opaque or (extension and _INTERPRETER_NAME.match(symbol.name)):
            continue
        missing.append(symbol)
    return missing


def _unbound(model: Inventory, binary: BinaryRecord) -> list[Import]:
    """Mach-O and PE: references whose library, shipped in the artifact, does not export them."""
    closure = [
        record
        for member in model.links.closure(binary.name)
        if (record := model.binary(member)) is not None
    ]
    missing: list[Import] = []
    for symbol in binary.imports:
        if symbol.weak or symbol.from_executable:
            continue
        if symbol.library is not None:
            member = _bound_member(model, binary, symbol)
            if member is not None and not _exports(model, member, symbol, set()):
                missing.append(symbol)
            continue
        if not _flat_resolves(model, binary, symbol, closure):
            missing.append(symbol)
    return missing


def _bound_member(model: Inventory, binary: BinaryRecord, symbol: Import) -> str | None:
    """The member of the artifact the library a reference is bound to resolves to."""
    if symbol.library is None:
        return None
    wanted = symbol.library.lower() if binary.format is BinaryFormat.PE else symbol.library
    for resolved in model.links.of(binary.name).resolved:
        needed = resolved.needed.lower() if binary.format is BinaryFormat.PE else resolved.needed
        if needed == wanted:
            return resolved.member
    return None


def _exports(model: Inventory, member: str, symbol: Import, seen: set[str]) -> bool:
    """Whether `member` exports the reference, itself or through a library it re-exports."""
    record = model.binary(member)
    if record is None:
        # Not read as a binary (SL3xx reports why): nothing to say about its exports.
        return True
    if member in seen:
        return False
    seen.add(member)
    if symbol.ordinal is not None:
        return symbol.ordinal in record.export_ordinals
    if symbol.name in record.definitions():
        return True
    for resolved in model.links.of(member).resolved:
        if resolved.needed not in record.reexports:
            continue
        # A re-exported external cannot be read: it may export the name.
        if resolved.how is Resolution.EXTERNAL:
            return True
        if resolved.member is not None and _exports(model, resolved.member, symbol, seen):
            return True
    return False


def _flat_resolves(
    model: Inventory, binary: BinaryRecord, symbol: Import, closure: list[BinaryRecord]
) -> bool:
    """A Mach-O flat-namespace or `dynamic_lookup` reference: any loaded image may define it."""
    if any(symbol.name in r.definitions() for r in closure):
        return True
    if _EXTENSION_MODULE.search(binary.file_name) and _INTERPRETER_NAME.match(symbol.name):
        return True
    # An external outside the OS's own libraries (torch's) cannot be read: it may define it.
    return any(
        resolved.how is Resolution.EXTERNAL
        and not resolved.needed.startswith(_MACOS_SYSTEM_PREFIXES)
        for record in closure
        for resolved in model.links.of(record.name).resolved
    )


def _versions_symbols(file_name: str, versioned: set[str]) -> bool:
    return file_name in versioned or any(fnmatchcase(file_name, p) for p in _VERSIONED_RUNTIME)


def _exporters(model: Inventory, name: str) -> list[str]:
    """The members of the artifact that export `name`: where a missing symbol lives (asked
    of each binary's definitions for the few missing names, not indexed for every name)."""
    return [record.name for record in model.binaries if name in record.definitions()]


def _shown_name(symbol: Import) -> str:
    name = demangle(symbol.name) or symbol.name
    return f"{name}@{symbol.version}" if symbol.version else name


RULES: tuple[Rule[Any], ...] = (Rule("SL320", Inventory, unresolved_symbols),)
