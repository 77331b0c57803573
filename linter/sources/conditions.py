"""Decide an if() condition when, and only when, its outcome is fixed by the sources.

Two cases are decided; everything else is unknown and both branches are walked:
- inside a wrapper function or macro, conditions on the wrapper's own arguments
  (`if(ARG_SHARED)`, `if(NOT ARGN)`): the call site fixes them, and following the
  wrapper "with its arguments substituted" means taking the branch they select;
- the default-value guard `if(NOT X)` / `if(NOT DEFINED X)` on a variable the
  project already set, which would otherwise overwrite a known path with a wrong one.
Build options are never decided: the linter must see what any configuration builds.
"""

from __future__ import annotations

from collections.abc import Callable

# Returns the value of a name when the condition may rely on it, else None.
Lookup = Callable[[str], "str | None"]
# Whether a name is defined, when the condition may rely on it, else None.
Defined = Callable[[str], "bool | None"]

_FALSE = {"", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"}
_TRUE_CONSTANTS = {"1", "ON", "YES", "TRUE", "Y"}
_BINARY = {"STREQUAL", "EQUAL", "MATCHES", "STRLESS", "STRGREATER", "VERSION_LESS",
           "VERSION_GREATER", "VERSION_EQUAL", "IN_LIST"}  # fmt: skip


def truthy(value: str) -> bool:
    upper = value.upper()
    return not (upper in _FALSE or upper.endswith("-NOTFOUND"))


def evaluate(tokens: list[tuple[str, bool]], lookup: Lookup, defined: Defined) -> bool | None:
    """Three-valued: True, False, or None when the sources alone do not decide it.

    `tokens` are (text, quoted) pairs after variable expansion.
    """
    parser = _Parser(tokens, lookup, defined)
    try:
        value = parser.or_expr()
    except _Undecided:
        return None
    return value if parser.done() else None


def decide_guard(tokens: list[tuple[str, bool]], lookup: Lookup) -> bool | None:
    """`NOT X` / `NOT DEFINED X` where X is known and set: False. Anything else: None."""
    words = [t for t, _ in tokens]
    if len(words) == 2 and words[0] == "NOT":
        value = lookup(words[1])
        return False if value is not None and truthy(value) else None
    if len(words) == 3 and words[:2] == ["NOT", "DEFINED"]:
        return False if lookup(words[2]) is not None else None
    return None


class _Undecided(Exception):
    pass


class _Parser:
    def __init__(self, tokens: list[tuple[str, bool]], lookup: Lookup, defined: Defined) -> None:
        self.tokens = tokens
        self.pos = 0
        self.lookup = lookup
        self.defined = defined

    def done(self) -> bool:
        return self.pos == len(self.tokens)

    def peek(self) -> str | None:
        if self.pos < len(self.tokens):
            text, quoted = self.tokens[self.pos]
            return None if quoted else text
        return None

    def take(self) -> tuple[str, bool]:
        if self.pos >= len(self.tokens):
            raise _Undecided
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    # Both sides are always parsed, so an undecided left side cannot hide a parse error.
    def or_expr(self) -> bool:
        left = self.and_expr()
        while self.peek() == "OR":
            self.pos += 1
            right = self.and_expr()
            left = left or right
        return left

    def and_expr(self) -> bool:
        left = self.not_expr()
        while self.peek() == "AND":
            self.pos += 1
            right = self.not_expr()
            left = left and right
        return left

    def not_expr(self) -> bool:
        if self.peek() == "NOT":
            self.pos += 1
            return not self.not_expr()
        return self.primary()

    def primary(self) -> bool:
        if self.peek() == "(":
            self.pos += 1
            value = self.or_expr()
            if self.peek() != ")":
                raise _Undecided
            self.pos += 1
            return value
        if self.peek() == "DEFINED":
            self.pos += 1
            name, _ = self.take()
            known = self.defined(name)
            if known is None:
                raise _Undecided
            return known
        text, quoted = self.take()
        if self.peek() in _BINARY:
            operator = self.take()[0]
            right, right_quoted = self.take()
            if operator not in ("STREQUAL", "EQUAL"):
                raise _Undecided
            return self.operand(text, quoted) == self.operand(right, right_quoted)
        return truthy(self.operand(text, quoted))

    def operand(self, text: str, quoted: bool) -> str:
        if quoted or text.upper() in _TRUE_CONSTANTS or text.upper() in _FALSE:
            return text
        if text.lstrip("-").isdigit():
            return text
        value = self.lookup(text)
        if value is None:
            raise _Undecided
        return value
