"""The one list of rules. Each area module states its own RULES tuple; nothing is discovered."""

from __future__ import annotations

from typing import Any

from shiplint.checks import (
    artifacts,
    config_eval,
    header_probe,
    import_libraries,
    link_probe,
    meta,
    operators,
    requirements,
    sources,
    symbols,
    version_file,
)
from shiplint.rule import Rule

RULES: tuple[Rule[Any], ...] = (
    *meta.RULES,
    *config_eval.RULES,
    *version_file.RULES,
    *sources.RULES,
    *artifacts.RULES,
    *symbols.RULES,
    *requirements.RULES,
    *import_libraries.RULES,
    *operators.RULES,
    *link_probe.RULES,
    *header_probe.RULES,
)


def rule_for(code: str) -> Rule[Any] | None:
    return next((r for r in RULES if r.code == code), None)
