"""What every reporter renders: the diagnostics of one run and its verdict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from shiplint import __version__
from shiplint.diagnostics import Diagnostic, Severity
from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class Report:
    diagnostics: tuple[Diagnostic, ...]
    # Findings at or above this severity (and not waived) fail the run; None: none does.
    fail_on: Severity | None
    # The checked root: locations of sources are relative to it.
    root: Path
    tool_version: str = __version__
    # The checked builds drawn in Mermaid, findings marked ("" when none was drawn).
    picture: str = ""

    @property
    def failing(self) -> tuple[Diagnostic, ...]:
        if self.fail_on is None:
            return ()
        rank = self.fail_on.rank
        return tuple(d for d in self.diagnostics if d.counts and d.severity.rank >= rank)

    @property
    def passed(self) -> bool:
        return not self.failing

    def summary(self) -> dict[str, Any]:
        counted = Counter(d.severity.value for d in self.diagnostics if d.counts)
        return {
            "errors": counted.get("error", 0),
            "warnings": counted.get("warning", 0),
            "infos": counted.get("info", 0),
            "waived": sum(1 for d in self.diagnostics if not d.counts),
            "failing": len(self.failing),
            "fail_on": self.fail_on.value if self.fail_on else "none",
            "passed": self.passed,
        }


def reading_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The order people read a report in: errors, warnings, info, waived findings last;
    by location within each. Machine formats keep the engine's order (by location)."""
    return sorted(diagnostics, key=lambda d: (not d.counts, -d.severity.rank, d.sort_key()))
