"""Rules of the artifacts area (SL3xx): what a built wheel or install tree actually ships.

Every rule reads one `Inventory` (see `shiplint.artifacts.model`); none sees
a parser or archive members. Linkage questions are answered by the inventory's link
graph (`Inventory.links`), resolved once on each binary's own OS's terms.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shiplint.artifacts.model import ArtifactKind, EntryKind, Inventory, LibraryFile, Resolution
from shiplint.artifacts.records import BinaryFormat, BinaryRecord, FileType
from shiplint.diagnostics import Finding, Location, Subject
from shiplint.manifest.model import Library, LibraryKind, Manifest
from shiplint.plural import counted
from shiplint.rule import Rule

# Symbols every linker defines in every shared object: equal names, not copies.
_LINKER_SYMBOLS = frozenset(
    {
        "_init",
        "_fini",
        "_edata",
        "_end",
        "_etext",
        "__end__",
        "__bss_start",
        "__dso_handle",
        # The AArch64/ARM linkers' extra section markers.
        "__bss_start__",
        "__bss_end__",
        "_bss_end__",
    }
)
_SHOWN = 3
_LINKABLE = {FileType.SHARED_LIBRARY}
_LOADABLE = {FileType.SHARED_LIBRARY, FileType.BUNDLE}


def _subject(manifest: Manifest, model: Inventory, name: str, **extra: str) -> Subject:
    """A subject naming the library (its manifest name, else its file name) and its component."""
    library = manifest.library(name)
    component = library.owns.components[0] if library and library.owns.components else None
    return Subject(component=component, library=name, artifact=model.label, **extra)


def _binary_subject(manifest: Manifest, model: Inventory, member: str) -> Subject:
    return _subject(manifest, model, model.subject_name(member))


def _shown(items: list[str] | tuple[str, ...]) -> str:
    head = ", ".join(items[:_SHOWN])
    return head if len(items) <= _SHOWN else f"{head} (+{len(items) - _SHOWN} more)"


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def _placed_binaries(
    manifest: Manifest, model: Inventory
) -> Iterator[tuple[Library, LibraryFile, BinaryRecord]]:
    for placed in model.libraries:
        library = manifest.library(placed.library)
        binary = model.binary(placed.member)
        if library is not None and binary is not None:
            yield library, placed, binary


def _loadable_binaries(
    manifest: Manifest, model: Inventory
) -> Iterator[tuple[Library, LibraryFile, BinaryRecord]]:
    """Placed libraries that are shared objects: the only ones with dynamic symbols and
    dependencies (anything else is SL303's finding, and says nothing more)."""
    for library, placed, binary in _placed_binaries(manifest, model):
        if binary.file_type in _LOADABLE:
            yield library, placed, binary


def _noun(model: Inventory) -> str:
    """The artifact as a message names it: its file name is already in the location."""
    nouns = {ArtifactKind.WHEEL: "the wheel", ArtifactKind.DIRECTORY: "the install tree"}
    return nouns.get(model.kind, "the archive")


# ------------------------------------------------------------------ SL301


def missing_library(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL301: a library the manifest requires on this platform is not in the artifact."""
    for placed in model.libraries:
        if placed.member is not None or not placed.required:
            continue
        instead = f"; found instead: {', '.join(placed.lookalikes)}" if placed.lookalikes else ""
        yield Finding(
            message=(
                f"{placed.library} is required on {model.platform} but {_noun(model)} has no "
                f"file matching this path{instead}"
            ),
            location=model.location(f"{placed.directory}/{placed.pattern}"),
            subject=_subject(manifest, model, placed.library),
            hint=(
                "Build the library (name its target in the build's target list: a component "
                "nothing links is otherwise never built) and package it; or mark the "
                "placement `required: false` if this platform really goes without it."
            ),
        )


# ------------------------------------------------------------------ SL302


def undeclared_shared_object(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL302: a shared object ships that no manifest library on this platform accounts for."""
    if model.platform is None:
        return
    declared = {f.member for f in model.libraries if f.member is not None}
    # Files SL301 already names as found instead of a missing library (an unversioned
    # copy shipped without the SONAME-named file): one finding, not two.
    declared |= {
        f"{f.directory}/{name}" if f.directory else name
        for f in model.libraries
        if f.member is None
        for name in f.lookalikes
    }
    # A byte-identical copy of a shipped file is not in `binaries`: it is that file.
    candidates = {b.name for b in model.binaries if b.file_type is not FileType.STATIC_ARCHIVE}
    candidates |= {u.member for u in model.unreadable if model.is_shared_object(u.member)}
    for member in sorted(candidates - declared):
        match = model.manifest_library_for(manifest, member)
        placed = model.library_file(match[0].name) if match is not None else None
        if match is not None and member.rpartition("/")[0] == match[1] and placed is not None:
            library = match[0]
            message = (
                f"also matches {library.name}'s file pattern {placed.pattern}, "
                f"which the manifest takes to be {placed.member or 'nothing'}; the two differ"
            )
            hint = (
                "Make the library's `file` match one file, or ship one copy (byte-identical "
                "copies under version-sibling names are recognised as one library)."
            )
        elif match is not None:
            library, directory = match
            message = (
                f"named like {library.name}'s file, but the manifest places "
                f"{library.name} in {directory}/ on {model.platform}"
            )
            hint = "Install the library where the manifest (and the CMake config) expect it."
        else:
            message = "a shared object the manifest does not declare"
            hint = (
                "Declare it under `libraries` (kind, directory, file glob), or stop "
                "shipping it; an undeclared library escapes every other check."
            )
        yield Finding(
            message=message,
            location=model.location(member),
            subject=_subject(manifest, model, member.rsplit("/", 1)[-1]),
            hint=hint,
        )


# ------------------------------------------------------------------ SL303


def not_a_shared_library(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL303: a manifest library's file is a static archive, object or executable."""
    for library, _placed, binary in _placed_binaries(manifest, model):
        if library.static:
            yield from _not_a_static_archive(manifest, model, library, binary)
            continue
        linkable = library.kind.linkable
        if binary.file_type in (_LINKABLE if linkable else _LOADABLE):
            continue
        extra = (
            f" holding {counted(binary.archive_members, 'object file')}"
            if binary.file_type is FileType.STATIC_ARCHIVE
            else ""
        )
        yield Finding(
            message=(
                f"the file of the {library.kind.value} library {library.name} is "
                f"{_article(binary.file_type.value)} {binary.file_type.value}{extra}, "
                "not a shared library"
            ),
            location=model.location(binary.name),
            subject=_subject(manifest, model, library.name),
            hint=(
                "Build the target as SHARED. A registration library in a static archive "
                "loses its static initializers unless every consumer links it whole-archive."
            ),
        )


def _not_a_static_archive(
    manifest: Manifest, model: Inventory, library: Library, binary: BinaryRecord
) -> Iterator[Finding]:
    """The other direction: a library the manifest declares static is not an archive."""
    if binary.file_type is FileType.STATIC_ARCHIVE:
        return
    yield Finding(
        message=(
            f"the file of the {library.kind.value} library {library.name} is "
            f"{_article(binary.file_type.value)} {binary.file_type.value}, not the static "
            "archive the manifest declares (type: static)"
        ),
        location=model.location(binary.name),
        subject=_subject(manifest, model, library.name),
        hint=(
            "Ship the static archive (build the target as STATIC), or declare the "
            "library `type: shared` in the manifest if it is meant to be shared."
        ),
    )


# ------------------------------------------------------------------ SL304


def soname_mismatch(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL304: SONAME / install name missing, absolute, or not the file's name."""
    for library, _placed, binary in _placed_binaries(manifest, model):
        if binary.format not in (BinaryFormat.ELF, BinaryFormat.MACHO):
            continue
        if binary.file_type not in _LOADABLE:
            continue  # SL303 reports it
        problem = _soname_problem(library, binary, model.copies_of(binary.name))
        if problem is None:
            continue
        yield Finding(
            message=problem,
            location=model.location(binary.name),
            subject=_subject(manifest, model, library.name),
            hint=(
                "Set the SONAME / install name to the shipped file's name (`-Wl,-soname,"
                f"{binary.file_name}`, or `@rpath/{binary.file_name}` on macOS): a wheel "
                "cannot hold the symlink that would bridge a versioned name, and consumers "
                "record the SONAME as their NEEDED entry."
            ),
        )


def _soname_problem(
    library: Library, binary: BinaryRecord, copies: tuple[str, ...] = ()
) -> str | None:
    label = "SONAME" if binary.format is BinaryFormat.ELF else "install name"
    soname = binary.soname
    if soname is None:
        if library.kind.linkable:
            return f"{label} is missing; consumers would record the path they linked by"
        return None
    if binary.format is BinaryFormat.ELF and "/" in soname:
        return f"{label} {soname!r} is a path, not a file name"
    if binary.format is BinaryFormat.MACHO and soname.startswith("/"):
        return f"{label} {soname!r} is absolute; consumers would look for that exact path"
    base = soname.rsplit("/", 1)[-1]
    # The SONAME-named file ships too, byte-identical: the loader finds it.
    if base != binary.file_name and not any(c.rsplit("/", 1)[-1] == base for c in copies):
        return f"{label} {soname!r} differs from the file name {binary.file_name!r}"
    return None


# ------------------------------------------------------------------ SL305


def missing_runtime_dependency(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL305: a component does not NEED the runtime (or a library it declares it depends on)."""
    runtimes = [lib.name for lib in manifest.libraries if lib.kind is LibraryKind.RUNTIME]
    for library, _placed, binary in _loadable_binaries(manifest, model):
        expected = list(library.depends_on)
        if library.kind is LibraryKind.COMPONENT:
            expected += [r for r in runtimes if r not in expected]
        needed = {n.rsplit("/", 1)[-1] for n in binary.needed}
        for dependency in expected:
            target = model.library_binary(dependency)
            if target is None or target.name == binary.name:
                continue  # not shipped here: SL301 says so
            names = {target.file_name, (target.soname or "").rsplit("/", 1)[-1]}
            if needed & names:
                continue
            yield Finding(
                message=(
                    f"{library.name} has no NEEDED entry for "
                    f"{target.file_name} ({dependency}); its NEEDED is "
                    f"[{', '.join(binary.needed)}]"
                ),
                location=model.location(binary.name),
                subject=_subject(manifest, model, library.name),
                hint=(
                    f"Link {library.name} against the shared {dependency} library instead of "
                    "compiling its code in: a second copy means a second registry and split "
                    "global state."
                ),
            )


# ------------------------------------------------------------------ SL306 / SL318


def _owned_definitions(library: Library, binary: BinaryRecord) -> dict[str, tuple[str, ...]]:
    """Each sentinel the library owns -> the mangled names of its strong definitions of it."""
    strong = binary.strong_symbols()
    owned: dict[str, tuple[str, ...]] = {}
    for sentinel in library.owns.symbols:
        # Only symbols whose mangled name holds the sentinel's last identifier can
        # match; the rest are never demangled.
        last = sentinel.rsplit("::", 1)[-1].split("<", 1)[0]
        owned[sentinel] = tuple(
            name
            for name, symbol in strong.items()
            if name == sentinel or (last in name and symbol.base == sentinel)
        )
    return owned


def owned_symbol_copy(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL306: a library strongly defines a symbol the manifest says another library owns."""
    for owner, owned in _ownership(manifest, model):
        for library, _placed, binary in _loadable_binaries(manifest, model):
            if library.name == owner.name:
                continue
            strong = binary.strong_symbols()
            for sentinel, mangled in owned.items():
                copies = [name for name in mangled if name in strong]
                if not copies:
                    continue
                yield Finding(
                    message=(
                        f"{library.name} strongly defines {sentinel} "
                        f"({_shown(copies)}), which {owner.name} owns: a second copy of "
                        f"{owner.name}'s code"
                    ),
                    location=model.location(binary.name),
                    subject=_subject(manifest, model, library.name, symbol=sentinel),
                    hint=(
                        f"Link {library.name} against {owner.name} instead of compiling "
                        f"{owner.name}'s sources into it."
                    ),
                )


def _ownership(
    manifest: Manifest, model: Inventory
) -> Iterator[tuple[Library, dict[str, tuple[str, ...]]]]:
    for library, _placed, binary in _loadable_binaries(manifest, model):
        if library.owns.symbols:
            yield library, _owned_definitions(library, binary)


def owned_symbol_not_defined(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL318: the library that owns a sentinel symbol does not strongly define it."""
    for library, owned in _ownership(manifest, model):
        binary = model.library_binary(library.name)
        assert binary is not None
        missing = [sentinel for sentinel, mangled in owned.items() if not mangled]
        if missing:
            yield Finding(
                message=(
                    f"{library.name} defines no strong, exported symbol named "
                    f"{_shown(missing)}, which the manifest says it owns"
                ),
                location=model.location(binary.name),
                subject=_subject(manifest, model, library.name, symbol=missing[0]),
                hint=(
                    "Correct `owns.symbols` (a demangled name without arguments, or a mangled "
                    "name), or export the symbol: an ownership table that names nothing "
                    "checks nothing."
                ),
            )


# ------------------------------------------------------------------ SL307


def duplicate_strong_symbol(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL307: two libraries that can be loaded together both strongly define a symbol."""
    placed = list(_loadable_binaries(manifest, model))
    reported_copies = {
        (library.name, name)
        for owner, owned in _ownership(manifest, model)
        for library, _p, _b in placed
        if library.name != owner.name
        for names in owned.values()
        for name in names
    }
    together = _loaded_together(manifest, model)
    strong = [(lib, binary, binary.strong_symbols()) for lib, _p, binary in placed]
    for index, (first, first_binary, first_symbols) in enumerate(strong):
        for second, second_binary, second_symbols in strong[index + 1 :]:
            if frozenset((first.name, second.name)) not in together:
                continue
            shared = sorted(
                name
                for name in first_symbols.keys() & second_symbols.keys()
                if not _toolchain_symbol(name, second_symbols[name].demangled)
                and not name.startswith(_VAGUE_LINKAGE)
                and (second.name, name) not in reported_copies
                and (first.name, name) not in reported_copies
            )
            if not shared:
                continue
            shown = [second_symbols[n].demangled or n for n in shared]
            yield Finding(
                message=(
                    f"{second.name} and {first_binary.name} "
                    f"({first.name}) both strongly define {counted(len(shared), 'symbol')}: "
                    f"{_shown(shown)}"
                ),
                location=model.location(second_binary.name),
                subject=_subject(
                    manifest,
                    model,
                    second.name,
                    **({"symbol": shared[0]} if len(shared) == 1 else {}),
                ),
                hint=(
                    f"Define these once (in the library that owns them) and link the other "
                    f"against it, or hide them (-fvisibility=hidden); if {first.name} and "
                    f"{second.name} can never share a process, declare them in `conflicts`."
                ),
            )


# The C++ runtime pieces a toolchain links statically into every library
# (manylinux's libstdc++_nonshared.a, libgcc): the same code everywhere, owned by
# the toolchain, not by any library of the package.
_TOOLCHAIN_PREFIXES = ("std::", "__gnu_cxx::", "__cxxabiv1::")
_STD_MANGLED = ("_ZSt", "_ZNSt", "_ZNKSt", "_ZNVKSt", "_ZNSt3__1", "_ZNKSt3__1")


# Vague linkage: the C++ ABI emits these in every object that needs them and the
# loader binds every use to one copy by design (a compiler emits them weak or
# STB_GNU_UNIQUE, but a version script or -fno-gnu-unique can leave them global):
# guard variables, typeinfo and its name, vtables, VTTs, thread-local wrappers, and
# the function-local statics of inline functions and templates (exported `_ZZ`
# names; a non-inline function's statics are local). Two copies are no defect.
_VAGUE_LINKAGE = ("_ZGV", "_ZTI", "_ZTS", "_ZTV", "_ZTT", "_ZTH", "_ZTW", "_ZZ")


def _toolchain_symbol(name: str, demangled: str | None) -> bool:
    if name in _LINKER_SYMBOLS:
        return True
    # std:: entities by their mangled name: a demangled template instantiation starts
    # with its return type (`void std::vector<...>::_M_realloc_insert<...>`).
    if name.startswith(_STD_MANGLED):
        return True
    if demangled is None:
        return name.startswith(("__cxa_", "__gxx_"))
    for prefix in ("typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for "):
        if demangled.startswith(prefix):
            demangled = demangled[len(prefix) :]
    return demangled.startswith(_TOOLCHAIN_PREFIXES)


def _loaded_together(manifest: Manifest, model: Inventory) -> set[frozenset[str]]:
    """Pairs of manifest libraries that can share a process (and so a symbol namespace).

    Any two linkable libraries (runtime, components): a consumer may link any set.
    Any two libraries one binary of the package loads through its NEEDED closure.
    Never two libraries the manifest declares in conflict (SL314 reports those).
    """
    linkable = [
        f.library
        for f in model.libraries
        if f.member is not None
        and (lib := manifest.library(f.library)) is not None
        and lib.kind.linkable
    ]
    pairs = {frozenset((a, b)) for a in linkable for b in linkable if a != b}
    for binary in model.binaries:
        loaded = [
            name
            for member in model.links.closure(binary.name)
            if (name := model.library_of(member)) is not None
        ]
        pairs |= {frozenset((a, b)) for a in loaded for b in loaded if a != b}
    for conflict in manifest.conflicts:
        pairs -= {frozenset((a, b)) for a in conflict.libraries for b in conflict.libraries}
    return pairs


# ------------------------------------------------------------------ SL308


def unresolved_dependency(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL308: a NEEDED entry resolves neither inside the package nor to an allowed external."""
    for binary in model.binaries:
        for resolved in model.links.of(binary.name).resolved:
            if resolved.how is not Resolution.UNRESOLVED:
                continue
            needed = resolved.needed
            search = binary.runpath or binary.rpath
            where = f"its search path [{', '.join(search)}]" if search else "no search path"
            yield Finding(
                message=(
                    f"needs {needed}, which resolves neither inside {_noun(model)} "
                    f"through {where} nor to an allowed external library"
                ),
                location=model.location(binary.name),
                subject=_binary_subject(manifest, model, binary.name),
                hint=(
                    "Ship the library where the RUNPATH finds it, fix the RUNPATH, or list it "
                    "under `externals` (system, or `provided` by another wheel such as torch)."
                ),
            )


# ------------------------------------------------------------------ SL309 / SL310 / SL311


def runpath_outside_package(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL309: a RUNPATH entry that is absolute, a build tree, or climbs out of the artifact."""
    for binary in model.binaries:
        bad: list[str] = []
        for entry in model.links.of(binary.name).entries:
            raw = entry.raw
            if entry.kind is EntryKind.ABSOLUTE:
                bad.append(f"{raw} (absolute{', a build tree' if entry.build_tree else ''})")
            elif entry.kind is EntryKind.ESCAPES:
                bad.append(f"{raw} (climbs above the root of {_noun(model)})")
            elif entry.kind is EntryKind.UNEXPANDABLE and not raw.startswith("@executable_path"):
                bad.append(f"{raw} (relative to the working directory)")
        if bad:
            yield Finding(
                message=f"searches outside the package: {'; '.join(bad)}",
                location=model.location(binary.name),
                subject=_binary_subject(manifest, model, binary.name),
                hint=(
                    "Use only $ORIGIN-relative (@loader_path on macOS) entries that stay "
                    "inside the installed package; set the install RPATH, not the build one."
                ),
            )


def runpath_missing_directory(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL310: a RUNPATH entry names a directory the artifact does not contain."""
    for binary in model.binaries:
        missing: list[str] = []
        for entry in model.links.of(binary.name).entries:
            raw = entry.raw
            if entry.kind is EntryKind.INSIDE and entry.directory not in model.directories:
                missing.append(f"{raw} (= {entry.directory or '.'}/)")
        if missing:
            yield Finding(
                message=(
                    f"RUNPATH entries name directories {_noun(model)} does not contain: "
                    f"{', '.join(missing)}"
                ),
                location=model.location(binary.name),
                subject=_binary_subject(manifest, model, binary.name),
                hint=(
                    "Drop the entries from the install RPATH (CMake INSTALL_RPATH): a "
                    "directory the package does not ship is searched on every load and lets "
                    "whatever a user has there shadow the package's own libraries."
                ),
            )


def rpath_instead_of_runpath(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL311: DT_RPATH where DT_RUNPATH belongs (information: it loads the same)."""
    for binary in model.binaries:
        if binary.format is not BinaryFormat.ELF or not binary.rpath:
            continue
        yield Finding(
            message=(
                f"uses DT_RPATH [{', '.join(binary.rpath)}]"
                + (" beside DT_RUNPATH" if binary.runpath else " and no DT_RUNPATH")
            ),
            location=model.location(binary.name),
            subject=_binary_subject(manifest, model, binary.name),
            hint=(
                "Nothing to fix for loading (auditwheel repair writes DT_RPATH on purpose). "
                "Where DT_RUNPATH was meant, link with --enable-new-dtags: DT_RPATH is "
                "searched before LD_LIBRARY_PATH and serves every library loaded after it."
            ),
        )


# ------------------------------------------------------------------ SL312


def architecture_mismatch(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL312: a binary's format or architecture does not match the artifact's platform."""
    platform = model.platform
    if platform is None:
        return
    for binary in model.binaries:
        os_name = binary.format.os
        wrong_os = os_name is not None and os_name != platform.os
        wrong_arch = (
            platform.arch is not None and binary.arches and not _fits(platform.arch, binary)
        )
        if not (wrong_os or wrong_arch):
            continue
        yield Finding(
            message=(
                f"built as {binary.format.value} for {'/'.join(binary.arches) or '?'}, "
                f"but {_noun(model)} is for {platform} (from the {model.platform_source})"
            ),
            location=model.location(binary.name),
            subject=_binary_subject(manifest, model, binary.name),
            hint="Build the binary for the wheel's platform, or tag the wheel for the binary's.",
        )


def _fits(arch: str, binary: BinaryRecord) -> bool:
    """Whether the binary runs on the tag's architecture: a universal2 tag installs on
    Intel and Apple silicon Macs alike, so each of its binaries needs both slices."""
    if arch == "universal2":
        return binary.format is not BinaryFormat.MACHO or {"x86_64", "aarch64"} <= set(
            binary.arches
        )
    return arch in binary.arches


# ------------------------------------------------------------------ SL313 / SL314


def forbidden_dependency(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL313: a library loads (through NEEDED) a library it must not depend on."""
    for library, _placed, binary in _loadable_binaries(manifest, model):
        if not library.must_not_depend_on:
            continue
        chains = model.links.closure(binary.name)
        for forbidden in library.must_not_depend_on:
            target = model.library_file(forbidden)
            if target is None or target.member is None or target.member not in chains:
                continue
            chain = " -> ".join(m.rsplit("/", 1)[-1] for m in chains[target.member])
            yield Finding(
                message=(
                    f"{library.name} depends on {forbidden}, which the manifest forbids: {chain}"
                ),
                location=model.location(binary.name),
                subject=_subject(manifest, model, library.name),
                hint=f"Remove {forbidden} from {library.name}'s link libraries.",
            )


def conflicting_libraries(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL314: two libraries declared in conflict are loaded together through NEEDED."""
    if not manifest.conflicts:
        return
    chains = {b.name: model.links.closure(b.name) for b in model.binaries}
    for conflict in manifest.conflicts:
        members = {
            placed.member: placed.library
            for name in conflict.libraries
            if (placed := model.library_file(name)) is not None and placed.member is not None
        }
        loads = {
            start: frozenset(members[m] for m in closure if m in members)
            for start, closure in chains.items()
        }
        for start, together in sorted(loads.items()):
            if len(together) < 2:
                continue
            # Report where the conflict arises, not every binary that loads it later.
            if any(loads.get(m, frozenset()) >= together for m in chains[start] if m != start):
                continue
            paths = "; ".join(
                " -> ".join(p.rsplit("/", 1)[-1] for p in chains[start][m])
                for m in sorted(chains[start])
                if m in members and m != start
            )
            yield Finding(
                message=(
                    f"loading {start} loads {', '.join(sorted(together))} together "
                    f"({paths}), which conflict: {conflict.reason}"
                ),
                location=model.location(start),
                subject=_binary_subject(manifest, model, start),
                hint="Break the NEEDED chain so the conflicting libraries never share a process.",
            )


# ------------------------------------------------------------------ SL315 / SL316 / SL317


def unreadable_binary(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL315: a binary the rules need cannot be read or parsed."""
    for unreadable in model.unreadable:
        yield Finding(
            message=f"cannot be read as a binary: {unreadable.reason}",
            location=model.location(unreadable.member),
            subject=_binary_subject(manifest, model, unreadable.member),
            hint="Rebuild and repackage it; every other check of this file was skipped.",
        )


def unsafe_member(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL316: an archive entry an installer must not extract (path escape, link escape, bomb)."""
    for rejected in model.rejected:
        yield Finding(
            message=f"{_noun(model)} holds {rejected.member!r}: {rejected.reason}",
            location=model.location(rejected.member),
            subject=Subject(artifact=model.label),
            hint="Rebuild the archive from a clean install tree; it was not read.",
        )


def unknown_platform(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL317: neither a wheel tag nor any binary says which platform the artifact is for."""
    # A header-only package places no library: nothing goes unchecked for want of one.
    if model.platform is None and manifest.libraries:
        yield Finding(
            message=(
                f"{_noun(model)} has no wheel platform tag and no binary that names an OS: "
                "the libraries the manifest places per platform were not checked"
            ),
            location=model.location(),
            subject=Subject(artifact=model.label),
            hint="Check a platform wheel, or an install tree that holds its libraries.",
        )


# ------------------------------------------------------------------ SL319


def missing_import_library(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL319: a linkable Windows DLL ships without its import library."""
    if model.platform is None or model.platform.os != "windows":
        return
    lib_files = {
        m.rsplit("/", 1)[-1].lower(): m for m in model.members if m.lower().endswith(".lib")
    }
    for library, _placed, binary in _loadable_binaries(manifest, model):
        if not library.kind.linkable:
            continue
        if binary.format is not BinaryFormat.PE:
            continue
        wanted = binary.file_name.rsplit(".", 1)[0] + ".lib"
        if wanted.lower() in lib_files:
            continue
        yield Finding(
            message=(
                f"{library.name} ships without its import library {wanted}: "
                "a consumer has nothing to link against"
            ),
            location=model.location(binary.name),
            subject=_subject(manifest, model, library.name),
            hint=(
                "Install the import library the linker wrote beside the DLL "
                "(`install(TARGETS ... ARCHIVE DESTINATION lib)`), and export the symbols "
                "consumers need (`WINDOWS_EXPORT_ALL_SYMBOLS` or `__declspec(dllexport)`)."
            ),
        )


# ------------------------------------------------------------------ SL330 - SL334


def _integrity(model: Inventory, kinds: tuple[str, ...], hint: str) -> Iterator[Finding]:
    for archive, problem in model.integrity:
        if problem.kind not in kinds:
            continue
        where = Location(archive)
        yield Finding(
            message=problem.detail,
            location=where if problem.member is None else where.within(problem.member),
            subject=Subject(artifact=Path(archive).name),
            hint=hint,
        )


def record_hash_mismatch(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL330: a member's bytes are not what the wheel's RECORD says (hash or size)."""
    yield from _integrity(model, ("record-hash", "record-size"),
                          "Rebuild the wheel (or run `wheel pack` on its unpacked tree): a "
                          "member changed after RECORD was written.")  # fmt: skip


def record_incomplete(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL331: RECORD lists a file the wheel lacks, misses one it holds, or is absent."""
    yield from _integrity(model, ("record-missing", "record-unlisted", "record-absent",
                                  "record-unreadable"),
                          "Rebuild the wheel with its build backend or `wheel pack`: RECORD "
                          "lists every file of the wheel, and only those.")  # fmt: skip


def record_path_outside(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL332: RECORD names a path outside the wheel; `pip uninstall` removes it."""
    yield from _integrity(model, ("record-outside",),
                          "Remove the row: pip keeps RECORD's rows in the installed RECORD and "
                          "`pip uninstall` deletes the file it names.")  # fmt: skip


def zip_header_mismatch(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL333: a member's local header disagrees with the central directory."""
    yield from _integrity(model, ("zip-header",),
                          "Rebuild the archive with a standard zip writer: readers that go by "
                          "the local headers see other members than those that go by the "
                          "central directory.")  # fmt: skip


def zip_unreferenced_entry(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL334: the archive holds a local entry no central directory entry names."""
    yield from _integrity(model, ("zip-unreferenced",),
                          "Rebuild the archive with a standard zip writer: a reader that "
                          "streams the archive would extract the hidden entry.")  # fmt: skip


RULES: tuple[Rule[Any], ...] = (
    Rule("SL301", Inventory, missing_library),
    Rule("SL302", Inventory, undeclared_shared_object),
    Rule("SL303", Inventory, not_a_shared_library),
    Rule("SL304", Inventory, soname_mismatch),
    Rule("SL305", Inventory, missing_runtime_dependency),
    Rule("SL306", Inventory, owned_symbol_copy),
    Rule("SL307", Inventory, duplicate_strong_symbol),
    Rule("SL308", Inventory, unresolved_dependency),
    Rule("SL309", Inventory, runpath_outside_package),
    Rule("SL310", Inventory, runpath_missing_directory),
    Rule("SL311", Inventory, rpath_instead_of_runpath),
    Rule("SL312", Inventory, architecture_mismatch),
    Rule("SL313", Inventory, forbidden_dependency),
    Rule("SL314", Inventory, conflicting_libraries),
    Rule("SL315", Inventory, unreadable_binary),
    Rule("SL316", Inventory, unsafe_member),
    Rule("SL317", Inventory, unknown_platform),
    Rule("SL318", Inventory, owned_symbol_not_defined),
    Rule("SL319", Inventory, missing_import_library),
    Rule("SL330", Inventory, record_hash_mismatch),
    Rule("SL331", Inventory, record_incomplete),
    Rule("SL332", Inventory, record_path_outside),
    Rule("SL333", Inventory, zip_header_mismatch),
    Rule("SL334", Inventory, zip_unreferenced_entry),
)
