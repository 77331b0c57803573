"""Resolve each item a config published back to the manifest component it carries.

An item is an imported target (`executorch::etdump`), a library path, a path
wrapped in retention options (`-Wl,--push-state,--no-as-needed,<path>,--pop-state`,
or `LINKER:` spelling), or a path inside a `--no-as-needed` span opened and closed
by separate items. Paths are matched to libraries by the manifest's file pattern
for the evaluated platform, or as the shipped library they are an identical copy of
(`libx.so.6.0.0` beside the `libx.so.6` the manifest names: one library).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from shiplint.cmake_eval.model import (
    LIBRARY_FILE,
    OPTION_PREFIXES,
    Entry,
    EntryKind,
    ImportedTarget,
    ShippedLibrary,
    option_parts,
    retains,
)
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


@dataclass(frozen=True)
class Resolver:
    manifest: Manifest
    platform: Platform
    targets: tuple[ImportedTarget, ...]
    # Member paths of the libraries present in the evaluated tree: a path naming a file
    # that is not there carries nothing, whatever its name.
    present: frozenset[str]
    # Each shipped member with its library, copies included (`Layout.shipped`).
    shipped: tuple[ShippedLibrary, ...] = ()

    def library_of(self, path: str) -> tuple[str | None, str | None]:
        """(library, component) of a library file, by the manifest's pattern for the
        platform, else as the shipped library it is a copy of."""
        if path not in self.present:
            return None, None
        name = posixpath.basename(path)
        for lib in self.manifest.libraries:
            if lib.matches_file(self.platform, name):
                component = lib.owns.components[0] if lib.owns.components else None
                return lib.name, component
        for shipped in self.shipped:
            if shipped.member == path:
                component = shipped.components[0] if shipped.components else None
                return shipped.library, component
        return None, None

    def component_of_target(self, name: str) -> str | None:
        """The component of a target: named as the manifest names it, else by its location."""
        component = self.manifest.component_of_target(name)
        if component is not None:
            return component
        target = next((t for t in self.targets if t.name == name), None)
        if target is not None and target.location:
            return self.library_of(target.location)[1]
        return None

    def is_target(self, item: str) -> bool:
        """A target the config defined, the manifest names, or a `::` name (CMake's own
        rule: a link item with `::` is always a target, never a file or a flag)."""
        return (
            any(t.name == item for t in self.targets)
            or self.manifest.component_of_target(item) is not None
            or ("::" in item and not item.startswith(("-", "$<")) and "/" not in item)
        )

    def target_entry(self, item: str) -> Entry:
        component = self.component_of_target(item)
        target = next((t for t in self.targets if t.name == item), None)
        library = path = None
        retained = False
        if target is not None:
            path = target.location
            if path:
                library = self.library_of(path)[0]
            retained = retains(target.link_options, path)
        elif component is not None:
            owner = self.manifest.owner_of(component)
            library = owner.name if owner else None
        return Entry(item, EntryKind.TARGET, component, library, path, retained)

    def resolve(self, items: Iterable[str]) -> tuple[Entry, ...]:
        entries: list[Entry] = []
        # Inside a `--no-as-needed` span opened by a separate option item.
        span = False
        for item in items:
            if self.is_target(item):
                entries.append(self.target_entry(item))
                continue
            if item.startswith("-") or item.startswith(OPTION_PREFIXES):
                entry, span = self._option(item, span)
                entries.append(entry)
                continue
            if "/" in item or LIBRARY_FILE.search(item):
                library, component = self.library_of(item)
                entries.append(Entry(item, EntryKind.PATH, component, library, item, span))
                continue
            entries.append(Entry(item, EntryKind.OTHER))
        return tuple(entries)

    def _option(self, item: str, span: bool) -> tuple[Entry, bool]:
        parts = option_parts(item)
        state = span
        for part in parts:
            if part == "--no-as-needed":
                state = True
            elif part in ("--as-needed", "--pop-state"):
                state = span if part == "--pop-state" else False
            elif "/" in part or LIBRARY_FILE.search(part):
                library, component = self.library_of(part)
                return Entry(item, EntryKind.PATH, component, library, part, state), span
        # An option naming no library changes the span for the items after it.
        if "--no-as-needed" in parts and "--pop-state" not in parts:
            span = True
        elif "--as-needed" in parts or "--pop-state" in parts:
            span = False
        return Entry(item, EntryKind.OPTION), span
