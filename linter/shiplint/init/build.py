"""With --root: the repository's build declarations and each library's build target."""

from __future__ import annotations

from pathlib import Path

from shiplint.init.draft import Draft


def with_build(draft: Draft, root: Path) -> Draft:
    return draft
