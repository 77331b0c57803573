"""Artifact rules SL320 and SL323: every undefined dynamic symbol resolves when the binary
loads, and an ELF binary finds each in a library it NEEDs itself.

A static `ldd -r`. Mach-O (two-level namespace) and PE bind each reference to one
library: when that library is a member of the artifact it must export the name (a
Mach-O library also through the libraries it re-exports; a PE import by ordinal needs
that ordinal); an external or an unresolvable library is not read (SL308 reports the
latter). A Mach-O reference to the main executable is not known statically. Mach-O
flat-namespace and `dynamic_lookup` references are looked up like ELF's unversioned
ones, with every external outside the OS's own libraries standing in for anything,
and the interpreter's `Py*` names found in the Python process they are meant for.

ELF: each shared object's undefined, non-weak dynamic symbols are looked up as the
loader looks them up, in the binary's whole load scope (`load_scope`: breadth first
over the NEEDED tree, members read, glibc and the GCC runtime known from data, other
externals opaque):

- a versioned reference names the file it binds to (`GLIBCXX_3.4` of libstdc++.so.6):
  a file that is an allowed external accepts it; a file inside the artifact must
  define the name under that version;
- an unversioned reference binds to whichever library of the scope defines the name
  (under its first version, else its default one); found in none, and no opaque external there to
  stand in, it is unresolved (SL320, an error: the load fails). Found only in a
  library some dependency NEEDs, never in one the binary NEEDs itself, it is
  underlinked (SL323, a warning: it loads while that dependency keeps its NEEDED);
- a binary loaded into Python (`python_loaded`) finds `Py*` / `_Py*` in the
  interpreter, which no NEEDED entry names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from typing import Any

from shiplint.artifacts.demangle import demangle
from shiplint.artifacts.load_scope import ScopeEntry, load_scope, systems_for
from shiplint.artifacts.model import Inventory, Resolution
from shiplint.artifacts.python_loaded import INTERPRETER_NAME, python_loaded
from shiplint.artifacts.records import BinaryFormat, BinaryRecord, Import
from shiplint.diagnostics import Finding, Subject
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.plural import counted
from shiplint.rule import Rule

_SHOWN = 3
# The OS's own macOS libraries: they define a fixed set, never a package's names.
_MACOS_SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")


@dataclass
class _Lookup:
    """How one ELF binary's references resolve in its load scope."""

    # Defined by nothing in the scope that can be read, and nothing opaque there.
    missing: list[Import] = field(default_factory=list)
    # Defined only by a library a dependency NEEDs: (reference, the first such library).
    indirect: list[tuple[Import, ScopeEntry]] = field(default_factory=list)


def unresolved_symbols(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL320: undefined dynamic symbols that nothing the binary loads defines."""
    python = python_loaded(manifest, model)
    for binary in model.binaries:
        if binary.format is BinaryFormat.ARCHIVE or not binary.imports:
            continue
        if binary.format is BinaryFormat.ELF:
            missing = _lookup(model, binary, binary.name in python).missing
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
        systems = systems_for(model, binary) if binary.format is BinaryFormat.ELF else None
        parts.append(
            "nothing in the artifact defines them"
            + (f", nor the system libraries it loads ({systems.basis})" if systems else "")
        )
    return "; ".join(parts)


def indirect_symbols(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL323: undefined symbols found only in a library a dependency NEEDs."""
    python = python_loaded(manifest, model)
    for binary in model.binaries:
        if binary.format is not BinaryFormat.ELF or not binary.imports:
            continue
        indirect = _lookup(model, binary, binary.name in python).indirect
        if not indirect:
            continue
        groups: dict[tuple[str, ...], list[Import]] = {}
        for symbol, entry in indirect:
            groups.setdefault(entry.chain, []).append(symbol)
        found = "; ".join(
            f"{_names(symbols)} in {chain[-1].rsplit('/', 1)[-1]} (loaded through "
            f"{' -> '.join(link.rsplit('/', 1)[-1] for link in chain[:-1])})"
            for chain, symbols in sorted(groups.items())
        )
        basis = systems_for(model, binary)
        yield Finding(
            message=(
                f"finds {counted(len(indirect), 'undefined symbol')} only in libraries its "
                f"dependencies NEED, not in its own NEEDED entries: {found}"
                + (f" ({basis.basis})" if basis is not None else "")
            ),
            location=model.location(binary.name),
            subject=Subject(library=model.subject_name(binary.name), artifact=model.label),
            hint=(
                "Link the library against the one that defines them (a NEEDED entry of its "
                "own, e.g. Threads::Threads for pthread_*), so it does not depend on how its "
                "dependencies are linked."
            ),
        )


def _lookup(model: Inventory, binary: BinaryRecord, in_python: bool) -> _Lookup:
    """Look each non-weak reference up in the load scope, as the loader does."""
    scope = load_scope(model, binary)
    members = [e.record for e in scope if e.record is not None]
    direct_files = {e.chain[0] for e in scope if e.direct and e.record is None}
    out = _Lookup()
    for symbol in binary.imports:
        if symbol.weak:
            continue
        if symbol.version is not None and symbol.file is not None:
            if symbol.file in direct_files:
                continue
            if any(symbol.version in r.definitions().get(symbol.name, ()) for r in members):
                continue
            out.missing.append(symbol)
            continue
        if in_python and INTERPRETER_NAME.match(symbol.name):
            continue
        _look_up(symbol, scope, out)
    return out


def _look_up(symbol: Import, scope: tuple[ScopeEntry, ...], out: _Lookup) -> None:
    """An unversioned reference: found directly, only indirectly, maybe, or nowhere."""
    indirect: ScopeEntry | None = None
    unknown = False
    for entry in scope:
        answer = entry.defines(symbol.name)
        if answer is None:
            if entry.direct:
                # A library it NEEDs itself may define it: nothing to say.
                return
            unknown = True
        elif answer:
            if entry.direct:
                return
            indirect = indirect or entry
    if indirect is not None:
        out.indirect.append((symbol, indirect))
    elif not unknown:
        out.missing.append(symbol)


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
        if not _flat_resolves(model, symbol, closure):
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


def _flat_resolves(model: Inventory, symbol: Import, closure: list[BinaryRecord]) -> bool:
    """A Mach-O flat-namespace or `dynamic_lookup` reference: any loaded image may define it.

    `Py*` names looked up this way are the interpreter's: a binary leaves them to
    dynamic lookup (`-undefined dynamic_lookup`) only to be loaded into Python, which is
    then in the process whatever its file is called."""
    if any(symbol.name in r.definitions() for r in closure):
        return True
    if INTERPRETER_NAME.match(symbol.name):
        return True
    # An external outside the OS's own libraries (torch's) cannot be read: it may define it.
    return any(
        resolved.how is Resolution.EXTERNAL
        and not resolved.needed.startswith(_MACOS_SYSTEM_PREFIXES)
        for record in closure
        for resolved in model.links.of(record.name).resolved
    )


def _exporters(model: Inventory, name: str) -> list[str]:
    """The members of the artifact that export `name`: where a missing symbol lives (asked
    of each binary's definitions for the few missing names, not indexed for every name)."""
    return [record.name for record in model.binaries if name in record.definitions()]


def _shown_name(symbol: Import) -> str:
    name = demangle(symbol.name) or symbol.name
    return f"{name}@{symbol.version}" if symbol.version else name


RULES: tuple[Rule[Any], ...] = (
    Rule("SL320", Inventory, unresolved_symbols),
    Rule("SL323", Inventory, indirect_symbols),
)
