"""Shared pytest configuration. Test helpers import as `tests.<module>` (tests/ is a package)."""

from __future__ import annotations
