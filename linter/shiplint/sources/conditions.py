"""Decide an if() condition when, and only when, its outcome is fixed by the sources.

Three-valued: True, False, or None (unknown, and both branches are walked). Decided:
- constants (`TRUE`, `0`, `OFF`) and `EXISTS`/`IS_DIRECTORY` of a known absolute
  path inside the checkout: facts of the sources, not of a build's options;
- inside a wrapper function or macro, conditions on the wrapper's own arguments
  (`if(ARG_SHARED)`, `if(NOT ARGN)`): the call site fixes them, and following the
  wrapper "with its arguments substituted" means taking the branch they select;
- the default-value guard `if(NOT X)` / `if(NOT DEFINED X)` on a variable the
  project already set, which would otherwise overwrite a known path with a wrong one.
Build options are never decided: the linter must see what any configuration builds.
AND and OR follow Kleene logic, so `OPTION AND EXISTS missing/dir` is False.
"""

from __future__ import annotations

from collections.abc import Callable

# Returns the value of a name when the condition may rely on it, else None.
Lookup = Callable[[str], "str | None"]
# Whether a name is defined, when the condition may rely on it, else None.
Defined = Callable[[str], "bool | None"]
# Whether a path exists (or is a directory), when the sources can tell, else None.
PathTest = Callable[[str, bool], "bool | None"]

_FALSE = {"", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"}
_TRUE_CONSTANTS = {"1", "ON", "YES", "TRUE", "Y"}
_BINARY = {"STREQUAL", "EQUAL", "MATCHES", "STRLESS", "STRGREATER", "VERSION_LESS",
           "VERSION_GREATER", "VERSION_EQUAL", "VERSION_GREATER_EQUAL", "VERSION_LESS_EQUAL",
           "IN_LIST", "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL", "STRLESS_EQUAL",
           "STRGREATER_EQUAL", "IS_NEWER_THAN", "PATH_EQUAL"}  # fmt: skip
_UNARY = {"EXISTS", "IS_DIRECTORY", "COMMAND", "POLICY", "TARGET", "TEST", "IS_SYMLINK",
          "IS_ABSOLUTE", "IS_READABLE", "IS_WRITABLE", "IS_EXECUTABLE"}  # fmt: skip


def truthy(value: str) -> bool:
    upper = value.upper()
    return not (upper in _FALSE or upper.endswith("-NOTFOUND"))


def _unknown_lookup(_: str) -> str | None:
    return None


def _unknown_defined(_: str) -> bool | None:
    return None


def _unknown_path(_: str, __: bool) -> bool | None:
    return None


def evaluate(
    tokens: list[tuple[str, bool]],
    lookup: Lookup = _unknown_lookup,
    defined: Defined = _unknown_defined,
    path_test: PathTest = _unknown_path,
) -> bool | None:
    """`tokens` are (text, quoted) pairs after variable expansion."""
    parser = _Parser(tokens, lookup, defined, path_test)
    try:
        value = parser.or_expr()
    except _Malformed:
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


class _Malformed(Exception):
    pass


class _Parser:
    def __init__(
        self,
        tokens: list[tuple[str, bool]],
        lookup: Lookup,
        defined: Defined,
        path_test: PathTest,
    ) -> None:
        self.tokens = tokens
        self.pos = 0
        self.lookup = lookup
        self.defined = defined
        self.path_test = path_test

    def done(self) -> bool:
        return self.pos == len(self.tokens)

    def peek(self) -> str | None:
        if self.pos < len(self.tokens):
            text, quoted = self.tokens[self.pos]
            return None if quoted else text
        return None

    def take(self) -> tuple[str, bool]:
        if self.pos >= len(self.tokens):
            raise _Malformed
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def or_expr(self) -> bool | None:
        values = [self.and_expr()]
        while self.peek() == "OR":
            self.pos += 1
            values.append(self.and_expr())
        if any(v is True for v in values):
            return True
        return False if all(v is False for v in values) else None

    def and_expr(self) -> bool | None:
        values = [self.not_expr()]
        while self.peek() == "AND":
            self.pos += 1
            values.append(self.not_expr())
        if any(v is False for v in values):
            return False
        return True if all(v is True for v in values) else None

    def not_expr(self) -> bool | None:
        if self.peek() == "NOT":
            self.pos += 1
            value = self.not_expr()
            return None if value is None else not value
        return self.primary()

    def primary(self) -> bool | None:
        word = self.peek()
        if word == "(":
            self.pos += 1
            value = self.or_expr()
            if self.peek() != ")":
                raise _Malformed
            self.pos += 1
            return value
        if word == "DEFINED":
            self.pos += 1
            return self.defined(self.take()[0])
        if word in _UNARY:
            self.pos += 1
            argument = self.take()[0]
            if word in ("EXISTS", "IS_DIRECTORY"):
                return self.path_test(argument, word == "IS_DIRECTORY")
            return None
        text, quoted = self.take()
        if self.peek() in _BINARY:
            operator = self.take()[0]
            right, right_quoted = self.take()
            if operator not in ("STREQUAL", "EQUAL"):
                return None
            left_value = self.operand(text, quoted)
            right_value = self.operand(right, right_quoted)
            if left_value is None or right_value is None:
                return None
            return left_value == right_value
        operand = self.operand(text, quoted)
        return None if operand is None else truthy(operand)

    def operand(self, text: str, quoted: bool) -> str | None:
        if "\x00" in text:  # holds a variable the walk does not know
            return None
        if quoted or text.upper() in _TRUE_CONSTANTS or text.upper() in _FALSE:
            return text
        if text.lstrip("-").isdigit():
            return text
        return self.lookup(text)
