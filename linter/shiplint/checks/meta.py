"""Rules about the run itself: stale waivers and shiplint's own failures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.diagnostics import Finding, Location, Subject
from shiplint.engine_models import RuleCrash, WaiverUsage
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule


def unmatched_waiver(manifest: Manifest, usage: WaiverUsage) -> Iterator[Finding]:
    for waiver in usage.unused:
        pattern = ", ".join(f"{k}={v}" for k, v in waiver.subject) or "any subject"
        yield Finding(
            message=f"waiver for {waiver.rule} ({pattern}) matched no finding",
            location=waiver.mark,
            hint="Remove the waiver, or correct its rule code or subject.",
        )


def rule_crashed(manifest: Manifest, crash: RuleCrash) -> Iterator[Finding]:
    yield Finding(
        message=f"rule {crash.code} failed with {crash.error} at {crash.where}; "
        "its findings are missing from this report",
        location=Location(manifest.path),
        subject=Subject(),
        hint="This is a bug in shiplint: please report it with the input that caused it.",
    )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL001", WaiverUsage, unmatched_waiver),
    Rule("SL002", RuleCrash, rule_crashed),
)
