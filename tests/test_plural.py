"""Counts in messages read right: one helper for every count with a noun."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from shiplint.plural import counted, noun

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("count", "singular", "plural", "expected"),
    [
        (0, "aggregate", None, "0 aggregates"),
        (1, "aggregate", None, "1 aggregate"),
        (2, "CMake file", None, "2 CMake files"),
        (1, "library", "libraries", "1 library"),
        (3, "library", "libraries", "3 libraries"),
        (1234, "finding", None, "1,234 findings"),
    ],
)
def test_counted(count: int, singular: str, plural: str | None, expected: str) -> None:
    assert counted(count, singular, plural) == expected


def test_noun_alone() -> None:
    assert noun(1, "namespace") == "namespace"
    assert noun(2, "namespace") == "namespaces"


# A count followed by a noun with a fixed plural: `{len(x)} files`, `{n} error(s)`.
_FIXED_PLURAL = re.compile(r"\{(?:len\([^}]*\)|[a-z_]*count[a-z_]*)(?::,)?\}[ \w]*?\ws\b")


# Counts that are never 1 where they are printed: a binary's size once its magic number
# matched (4 bytes at least), text cut past its limit, an archive past its member limit,
# an operator registered more than once.
_NEVER_ONE = ("bytes", "characters)", "members declaring", "times;")


def _strings(source: str) -> Iterator[tuple[int, str]]:
    """Every string and f-string literal of a module, as source text, with its line."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
        ):
            yield node.lineno, ast.unparse(node)


def _fixed_plurals(source: str) -> list[int]:
    # An f-string's literal parts are strings of their own: one line each, once.
    return sorted(
        {
            line
            for line, text in _strings(source)
            if (_FIXED_PLURAL.search(text) and not any(word in text for word in _NEVER_ONE))
            or re.search(r"\w\(s\)", text)
        }
    )


def test_no_message_pluralises_with_a_fixed_s() -> None:
    found = {
        path.relative_to(REPO).as_posix(): lines
        for path in sorted((REPO / "linter" / "shiplint").rglob("*.py"))
        if (lines := _fixed_plurals(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "use shiplint.plural.counted/noun"


def test_the_fixed_plural_search_finds_them() -> None:
    source = (
        'a = f"none of the {len(files)} CMake files read"\n'
        'b = f"{count} operator(s)"\n'
        "c = f\"none of the {counted(len(files), 'CMake file')} read\"\n"
        "d = frozenset(s)\n"
    )
    assert _fixed_plurals(source) == [1, 2]
