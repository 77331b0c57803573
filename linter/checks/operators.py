"""Rules of this area. See docs/architecture.md."""

from __future__ import annotations

from typing import Any

from linter.rule import Rule

RULES: tuple[Rule[Any], ...] = ()
