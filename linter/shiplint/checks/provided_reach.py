"""Artifact rule SL350: a library another distribution provides is reachable where it installs.

A wheel installs into site-packages beside the distributions it requires, so a
binary NEEDing a library another distribution ships (torch's `libtorch_cpu.so`)
finds it only through one of its own search entries that names the directory
that distribution installs it in (`$ORIGIN/../../torch/lib` from
`executorch/kernels/quantized/`), or because an import loaded it first (glibc's
loader reuses a loaded library whose SONAME matches). The manifest states both
facts per provider (`externals.provided[].directory`, `.loaded_by`); a NEEDED
entry neither covers is reported with the directories the loader would search.
`loaded_by` covers ELF binaries only: a Mach-O binary is judged by its LC_RPATH.

Only wheels are judged (an install tree has no site-packages layout), and only
ELF and Mach-O (Windows finds DLLs through the process's DLL directories, which
the importing code sets). Which directory counts: the declared `directory`, else
any directory under the distribution's (or provider's) top-level directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any

from shiplint.artifacts.model import ArtifactKind, EntryKind, Inventory, SearchEntry
from shiplint.artifacts.paths import join_within
from shiplint.artifacts.records import BinaryFormat, BinaryRecord
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest, ProvidedLibraries
from shiplint.rule import Rule

_RPATH = "@rpath/"
_LOADER = ("@loader_path/", "$ORIGIN/", "${ORIGIN}/")


def provided_library_unreachable(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL350: a binary NEEDs a provided library its search entries do not reach where the
    providing distribution installs it, and no declared import loads it first."""
    if model.kind is not ArtifactKind.WHEEL:
        return
    providers = [
        p for p in manifest.externals.provided if p.distribution or p.directory is not None
    ]
    if not providers:
        return
    # glibc reuses a loaded library whose SONAME matches a NEEDED name, so an import that
    # loads it first satisfies an ELF binary; dyld is not relied on to do the same for an
    # `@rpath/` name (ExecuTorch adds LC_RPATH entries to torch/lib for that reason).
    elf_providers = [p for p in providers if p.loaded_by is None]
    for binary in model.binaries:
        if binary.format is BinaryFormat.PE:
            continue
        judged = providers if binary.format is BinaryFormat.MACHO else elf_providers
        entries = model.links.of(binary.name).entries
        # provider -> the NEEDED entries of this binary it does not reach, in NEEDED order
        missed: dict[ProvidedLibraries, list[str]] = {}
        for needed in binary.needed:
            provider = _provider_of(needed, judged)
            if provider is not None and not _reached(binary, needed, entries, provider):
                missed.setdefault(provider, []).append(needed)
        for provider, names in missed.items():
            yield _finding(model, binary, names, entries, provider)


def _provider_of(needed: str, providers: list[ProvidedLibraries]) -> ProvidedLibraries | None:
    base = needed.rsplit("/", 1)[-1]
    for provided in providers:
        if any(fnmatchcase(base, pattern) for pattern in provided.patterns):
            return provided
    return None


def _home(provider: ProvidedLibraries) -> str:
    """How the finding names where the provider installs the library."""
    if provider.directory is not None:
        return provider.directory or "site-packages"
    return f"{_top(provider)}/…"


def _top(provider: ProvidedLibraries) -> str:
    return provider.distribution or provider.provider


def _installs_in(provider: ProvidedLibraries, directory: str) -> bool:
    if provider.directory is not None:
        return directory == provider.directory
    top = _top(provider)
    return directory == top or directory.startswith(f"{top}/")


def _reached(
    binary: BinaryRecord,
    needed: str,
    entries: tuple[SearchEntry, ...],
    provider: ProvidedLibraries,
) -> bool:
    if binary.format is BinaryFormat.MACHO:
        if needed.startswith(_LOADER):
            # A path relative to the binary itself: no search at all.
            relative = needed.split("/", 1)[1]
            target = join_within(binary.name.rpartition("/")[0], relative)
            return target is not None and _installs_in(provider, target.rpartition("/")[0])
        if not needed.startswith(_RPATH):
            return False  # an absolute install name: the build machine's file
        needed = needed[len(_RPATH) :]
        subdirectory = needed.rpartition("/")[0]
        searched = _searched(entries, binary.runpath)
        return any(_installs_in(provider, join_within(d, subdirectory) or "") for d in searched)
    if "/" in needed:
        return False  # a path: relative to the working directory
    # The loader ignores DT_RPATH when DT_RUNPATH is present.
    active = binary.runpath or binary.rpath
    return any(_installs_in(provider, d) for d in _searched(entries, active))


def _searched(entries: tuple[SearchEntry, ...], active: tuple[str, ...]) -> list[str]:
    """The site-packages-relative directories the loader searches, of the entries in
    effect (`active`, as raw text)."""
    wanted = set(active)
    return [
        e.directory
        for e in entries
        if e.raw in wanted
        and e.directory is not None
        and e.kind in (EntryKind.INSIDE, EntryKind.PROVIDER)
    ]


def _shown(entry: SearchEntry) -> str:
    if entry.directory is not None:
        return f"{entry.raw} ({entry.directory or 'site-packages'})"
    return f"{entry.raw} ({entry.kind.value})"


def _finding(
    model: Inventory,
    binary: BinaryRecord,
    needed: list[str],
    entries: tuple[SearchEntry, ...],
    provider: ProvidedLibraries,
) -> Finding:
    active = set(binary.runpath or binary.rpath)
    shown = [_shown(e) for e in entries if e.raw in active]
    searched = "; ".join(shown) if shown else "no RUNPATH/RPATH entry"
    who = provider.distribution or provider.provider
    home = _home(provider)
    relative = _relative_entry(binary, provider)
    return Finding(
        message=(
            f"{binary.name} NEEDs {', '.join(needed)}, which {who} installs in {home}, but its "
            "search "
            f"path does not reach there and no import is declared to load it first: the "
            f"loader searches {searched}"
        ),
        location=model.location(binary.name),
        subject=Subject(artifact=model.label, library=model.subject_name(binary.name)),
        hint=(
            f"Link {binary.file_name} with a search entry relative to itself that reaches "
            f"{home}{relative}, or, when {who}'s Python import always runs before this "
            f"binary loads, declare it as `loaded_by` of the `{provider.provider}` entry "
            "under externals.provided."
        ),
    )


def _relative_entry(binary: BinaryRecord, provider: ProvidedLibraries) -> str:
    """The entry that would reach the declared directory, for the hint."""
    if provider.directory is None:
        return ""
    depth = binary.name.count("/")
    token = "@loader_path" if binary.format is BinaryFormat.MACHO else "$ORIGIN"
    climb = "/..".join([""] * (depth + 1))
    target = f"/{provider.directory}" if provider.directory else ""
    return f" (`{token}{climb}{target}`)"


RULES: tuple[Rule[Any], ...] = (Rule("SL350", Inventory, provided_library_unreachable),)
