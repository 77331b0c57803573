"""Counts in messages read right: "1 aggregate", "2 aggregates", "1 library", "3 libraries"."""

from __future__ import annotations


def noun(count: int, singular: str, plural: str | None = None) -> str:
    """The noun in the number `count` takes (`plural` defaults to `singular` + "s")."""
    if count == 1:
        return singular
    return plural if plural is not None else singular + "s"


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and its noun: `counted(1, "CMake file")` is "1 CMake file"."""
    return f"{count:,} {noun(count, singular, plural)}"
