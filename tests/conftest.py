"""Shared pytest configuration. Test helpers import as `tests.<module>` (tests/ is a package)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _plain_text_reports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A FORCE_COLOR or NO_COLOR in the caller's environment must not change what tests read;
    the colour tests set them themselves."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield
