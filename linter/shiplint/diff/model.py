"""A diff's result: each change a consumer of the package could notice, breaking ones marked."""

from __future__ import annotations

import enum

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass


class ChangeKind(enum.Enum):
    # (value, whether a consumer relying on the old build breaks)
    AGGREGATE_LEFT = ("aggregate-left", True)
    PLATFORM_REMOVED = ("platform-removed", True)
    LIBRARY_REMOVED = ("library-removed", True)
    LIBRARY_RENAMED = ("library-renamed", True)
    SONAME_CHANGED = ("soname-changed", True)
    TYPE_CHANGED = ("type-changed", True)
    SYMBOLS_REMOVED = ("symbols-removed", True)
    COMPONENT_REMOVED = ("component-removed", True)
    TARGET_REMOVED = ("target-removed", True)
    ROUTE_REMOVED = ("route-removed", True)
    OPERATORS_REMOVED = ("operators-removed", True)
    COMPONENT_VARIABLE_REMOVED = ("component-variable-removed", True)
    AGGREGATE_ENTERED = ("aggregate-entered", False)
    PLATFORM_ADDED = ("platform-added", False)
    LIBRARY_ADDED = ("library-added", False)
    NEEDED_GAINED = ("needed-gained", False)
    NEEDED_LOST = ("needed-lost", False)
    SYMBOLS_MOVED = ("symbols-moved", False)
    SYMBOLS_ADDED = ("symbols-added", False)
    COMPONENT_ADDED = ("component-added", False)
    TARGET_ADDED = ("target-added", False)
    ROUTE_ADDED = ("route-added", False)
    OPERATORS_MOVED = ("operators-moved", False)
    OPERATORS_ADDED = ("operators-added", False)
    COMPONENT_VARIABLE_CHANGED = ("component-variable-changed", False)
    COMPONENT_VARIABLE_ADDED = ("component-variable-added", False)
    EXTERNAL_GAINED = ("external-gained", False)
    EXTERNAL_LOST = ("external-lost", False)

    def __init__(self, slug: str, breaking: bool) -> None:
        self.slug = slug
        self.breaking = breaking

    @property
    def order(self) -> int:
        """Declaration order: breaking kinds first, the headline of each group first."""
        return list(ChangeKind).index(self)


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    platform: str
    # What changed: a library (manifest name or member path), component, target,
    # aggregate variable, or the platform itself.
    subject: str
    message: str
    # The CMake route, for config changes.
    route: str | None = None
    # How many names changed (symbols, NEEDED entries, ...) and the first ones shown.
    count: int = 0
    names: tuple[str, ...] = ()

    @property
    def breaking(self) -> bool:
        return self.kind.breaking

    def sort_key(self) -> tuple[bool, str, int, str, str]:
        return (not self.breaking, self.platform, self.kind.order, self.route or "", self.subject)


@dataclass(frozen=True)
class Problem:
    """A part of one side the diff could not compare (a CMake route whose evaluation or
    whose request for the shipped components failed): said where it is, never read as
    everything on that route being removed."""

    side: str  # "old" or "new"
    platform: str
    route: str
    message: str
    location: Location
    # The route worked in the earlier build and fails in this (the later) one.
    regressed: bool = False

    @property
    def breaking(self) -> bool:
        """A consumer's find_package that worked with the earlier build fails with this one."""
        return self.regressed

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.platform, self.route, "0" if self.side == "old" else "1", self.message)


@dataclass(frozen=True)
class Diff:
    old: tuple[str, ...]  # the artifacts of each side, as given
    new: tuple[str, ...]
    changes: tuple[Change, ...]
    problems: tuple[Problem, ...] = ()

    @property
    def fails(self) -> bool:
        """Whether the diff exits 1: something consumers rely on was removed or fails."""
        return bool(self.breaking) or any(p.breaking for p in self.problems)

    @property
    def breaking(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.breaking)

    @property
    def other(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.breaking)
