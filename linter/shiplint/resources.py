"""Locate the data shipped with shiplint: `schemas/` and `rules/`.

In a built wheel they live inside the package (`shiplint/_data/`); in a source
checkout or an editable install they are the repository's top-level folders.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    shipped = _PACKAGE_DIR / "_data" / name
    if shipped.is_dir():
        return shipped
    # linter/shiplint/ in a checkout: the data folders are two levels up.
    return _PACKAGE_DIR.parent.parent / name


def schema_path(file_name: str) -> Path:
    return data_dir("schemas") / file_name
