"""The one immutable diagnostic shiplint reports, and the finding a rule yields.

A rule yields a `Finding` (what it observed); the engine turns it into a
`Diagnostic` by stamping the rule's code, slug and severity from the catalogue,
so no rule can misstate them.
"""

from __future__ import annotations

import enum
from dataclasses import fields
from typing import Any

from shiplint.fastclass import dataclass


class Severity(enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls(text.lower())


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

# The values of fail-on (command line, [tool.shiplint], the Action's input): the lowest
# severity that fails a run, or "none": findings never fail it (they are still reported).
FAIL_ON_CHOICES = ("error", "warning", "info", "none")


def parse_fail_on(text: str) -> Severity | None:
    """A fail-on value: the lowest failing severity, None for "none"."""
    return None if text.lower() == "none" else Severity.parse(text)


# How a location inside an artifact is written in text: `dist/x.whl!/lib/libx.so`.
MEMBER_SEPARATOR = "!/"


@dataclass(frozen=True, order=True)
class Location:
    """Where a diagnostic points: a file, and inside an artifact the member.

    `path` is the file on disk: relative to the checked root for sources, and for
    an artifact as the user gave it (relative to the root when it lies under it,
    absolute otherwise). `member` is the file inside the artifact at `path`, when
    the place is one. Line and column are 1-based when known (of the member when
    there is one).
    """

    path: str
    line: int | None = None
    column: int | None = None
    member: str | None = None

    def within(self, member: str) -> Location:
        """The location of `member` inside the artifact at this location's path."""
        return Location(self.path, member=member)

    def at(self, line: int | None, column: int | None = None) -> Location:
        return Location(self.path, line, column, self.member)

    @property
    def file(self) -> str:
        """The path and member as text, without line and column: `dist/x.whl!/lib/libx.so`."""
        if self.member is None:
            return self.path
        return f"{self.path}{MEMBER_SEPARATOR}{self.member}"

    def render(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def sort_key(self) -> tuple[str, str, int, int]:
        return (self.path, self.member or "", self.line or 0, self.column or 0)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.member is not None:
            out["member"] = self.member
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out


@dataclass(frozen=True, order=True)
class Subject:
    """What a diagnostic is about. Only the fields that apply are set."""

    component: str | None = None
    library: str | None = None
    variable: str | None = None
    target: str | None = None
    symbol: str | None = None
    operator: str | None = None
    cmake_version: str | None = None
    artifact: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}

    def matches(self, pattern: dict[str, str]) -> bool:
        """True when every key of `pattern` matches this subject (fnmatch globs)."""
        from fnmatch import fnmatchcase

        mine = self.as_dict()
        return all(k in mine and fnmatchcase(mine[k], v) for k, v in pattern.items())


@dataclass(frozen=True)
class Finding:
    """What a rule observed: the fact with its values inline, and what to do."""

    message: str
    location: Location
    subject: Subject = Subject()
    hint: str | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    slug: str
    severity: Severity
    message: str
    location: Location
    subject: Subject
    hint: str | None = None
    # The reason of the manifest waiver that matched, when one did.
    waived: str | None = None

    @property
    def counts(self) -> bool:
        return self.waived is None

    def sort_key(self) -> tuple[str, str, int, int, str, str]:
        return (*self.location.sort_key(), self.code, self.message)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "slug": self.slug,
            "severity": self.severity.value,
            "message": self.message,
            "location": self.location.as_dict(),
            "subject": self.subject.as_dict(),
        }
        if self.hint is not None:
            out["hint"] = self.hint
        if self.waived is not None:
            out["waived"] = {"reason": self.waived}
        return out
