"""Parsed CMake files remembered in the user cache, keyed by their bytes.

A pre-commit hook walks the whole tree on every commit, and tree-sitter's parse
of an unchanged file is most of that walk. A file's parse depends only on its
bytes, the grammar and the code that turns the tree into statements, so the key
holds all three: an edited file, another tree-sitter-cmake or a change to
`cmake_parse.py` or its bounds is a miss, never a stale answer. Entries are plain tuples in
`marshal` form (which builds no object of an arbitrary class), turned back into
the parser's frozen statements; an entry that does not decode is parsed again.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.memo import Memo
from shiplint.sources import bounds, cmake_parse
from shiplint.sources.cmake_parse import (
    Arg,
    Branch,
    Command,
    Definition,
    IfBlock,
    Loop,
    ParsedFile,
    ParseError,
    Statement,
    parse_cmake,
)

_COMMAND, _IF, _DEFINITION, _LOOP = range(4)


def parse_cached(source: bytes) -> ParsedFile:
    """`parse_cmake(source)`, from the cache when these bytes were parsed before."""
    return _PARSES.through(lambda: parse_cmake(source), source)


@functools.cache
def _identity() -> bytes:
    """What else decides a parse: the converting code, its bounds and the installed grammar
    (by its compiled library's size and time, not its bytes, which are not read each run)."""
    modules = (cmake_parse, bounds)
    code = cache.source_bytes(tuple(Path(module.__file__) for module in modules if module.__file__))
    return code + b"\0" + cache.installed("tree_sitter_cmake", "_binding*")


def _encode(parsed: ParsedFile) -> tuple[Any, ...]:
    errors = tuple((e.line, e.column, e.reason) for e in parsed.errors)
    return (_statements(parsed.statements), errors)


def _statements(statements: tuple[Statement, ...]) -> tuple[Any, ...]:
    return tuple(_statement(s) for s in statements)


def _args(args: tuple[Arg, ...]) -> tuple[Any, ...]:
    return tuple(tuple(a) for a in args)


def _statement(s: Statement) -> tuple[Any, ...]:
    if isinstance(s, Command):
        return (_COMMAND, s.name, _args(s.args), s.line, s.column)
    if isinstance(s, IfBlock):
        branches = tuple(
            (None if b.condition is None else _args(b.condition), _statements(b.body), b.line,
             b.column)
            for b in s.branches
        )  # fmt: skip
        return (_IF, branches, s.line, s.column)
    if isinstance(s, Definition):
        return (_DEFINITION, s.kind, s.name, s.params, _statements(s.body), s.line, s.column)
    return (_LOOP, s.kind, _args(s.args), _statements(s.body), s.line, s.column)


def _decode(raw: Any) -> ParsedFile:
    statements, errors = raw
    return ParsedFile(_decode_statements(statements), tuple(ParseError(*error) for error in errors))


def _decode_args(raw: Any) -> tuple[Arg, ...]:
    return tuple(map(Arg._make, raw))


def _decode_statements(raw: Any) -> tuple[Statement, ...]:
    out: list[Statement] = []
    for item in raw:
        tag = item[0]
        if tag == _COMMAND:
            out.append(Command(item[1], _decode_args(item[2]), item[3], item[4]))
        elif tag == _IF:
            branches = tuple(
                Branch(None if cond is None else _decode_args(cond), _decode_statements(body),
                       line, column)
                for cond, body, line, column in item[1]
            )  # fmt: skip
            out.append(IfBlock(branches, item[2], item[3]))
        elif tag == _DEFINITION:
            body = _decode_statements(item[4])
            out.append(Definition(item[1], item[2], tuple(item[3]), body, item[5], item[6]))
        elif tag == _LOOP:
            body = _decode_statements(item[3])
            out.append(Loop(item[1], _decode_args(item[2]), body, item[4], item[5]))
        else:
            raise ValueError(f"unknown statement tag {tag!r}")
    return tuple(out)


# Kept per file bytes, converting code and grammar; a tree nested past marshal's depth
# is parsed each time.
_PARSES: Memo[ParsedFile] = Memo("cmake-parse", _identity, encode=_encode, decode=_decode)
