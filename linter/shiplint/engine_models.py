"""Models the engine itself produces for the meta rules (no input file behind them)."""

from __future__ import annotations

from dataclasses import dataclass

from shiplint.manifest.model import Waiver


@dataclass(frozen=True)
class WaiverUsage:
    """Which waivers matched nothing in the rules that ran."""

    unused: tuple[Waiver, ...]


@dataclass(frozen=True)
class RuleCrash:
    """A rule raised instead of yielding findings: a bug in shiplint, reported, not fatal."""

    code: str
    error: str
    where: str
