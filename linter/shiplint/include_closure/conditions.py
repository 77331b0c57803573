"""Preprocessor conditions judged for one platform, in three values: true, false, unknown.

A header's `#if defined(_WIN32)` branch is never compiled on Linux, so what it
includes is not asked of a Linux consumer; a condition on a macro only the consumer's
build decides (`#ifdef PKG_USE_CUDA`) is unknown, and an include under it can be
reported only as unknown, never as an error. Only the macros the target platform
fixes are known (the OS and architecture macros every compiler for it defines, or
never defines); `__has_include` asks the resolver the closure uses.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Container

from shiplint.platforms import Platform


class Truth(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    def negate(self) -> Truth:
        if self is Truth.TRUE:
            return Truth.FALSE
        if self is Truth.FALSE:
            return Truth.TRUE
        return Truth.UNKNOWN


def both(a: Truth, b: Truth) -> Truth:
    if a is Truth.FALSE or b is Truth.FALSE:
        return Truth.FALSE
    if a is Truth.TRUE and b is Truth.TRUE:
        return Truth.TRUE
    return Truth.UNKNOWN


_OS_MACROS = {
    "linux": ("__linux__", "__linux", "linux", "__gnu_linux__", "__unix__", "__unix", "__ELF__"),
    "macos": ("__APPLE__", "__MACH__"),
    "windows": ("_WIN32",),
}
# Macros no compiler for the OS defines (other systems', and targets no wheel is for).
_FOREIGN = (
    "__ANDROID__",
    "__EMSCRIPTEN__",
    "__wasm__",
    "__wasm32__",
    "__FreeBSD__",
    "__OpenBSD__",
    "__NetBSD__",
    "__QNX__",
    "__QNXNTO__",
    "__HEXAGON__",
    "__XTENSA__",
    "__ZEPHYR__",
    "__CYGWIN__",
    "__Fuchsia__",
    "__sun",
)
_ARCH_MACROS = {
    "x86_64": ("__x86_64__", "__x86_64", "__amd64__", "__amd64", "_M_X64", "_M_AMD64"),
    "aarch64": ("__aarch64__", "__arm64__", "__arm64", "_M_ARM64"),
    "x86": ("__i386__", "__i386", "_M_IX86"),
    "arm": ("__arm__", "_M_ARM"),
}
# The MSVC spellings are defined by MSVC and clang-cl only, the GCC ones by GCC and
# Clang only: on Windows the GCC spellings, and elsewhere the MSVC ones, stay unknown
# (MinGW), except that no compiler for Linux or macOS defines an MSVC macro.
_MSVC_STYLE = re.compile(r"^_M_")


def platform_macros(platform: Platform | None) -> tuple[frozenset[str], frozenset[str]]:
    """(macros defined, macros not defined) for every compiler targeting `platform`."""
    if platform is None:
        return frozenset(), frozenset()
    defined: set[str] = set(_OS_MACROS.get(platform.os, ()))
    undefined: set[str] = set(_FOREIGN)
    for os_name, names in _OS_MACROS.items():
        if os_name != platform.os:
            undefined.update(names)
    if platform.os == "windows":
        if platform.arch in ("x86_64", "aarch64"):
            defined.add("_WIN64")
        else:
            undefined.add("_WIN64")
    else:
        undefined.update(("_WIN64", "_MSC_VER", "__MINGW32__", "__MINGW64__"))
    if platform.arch in _ARCH_MACROS:
        for arch, names in _ARCH_MACROS.items():
            for name in names:
                msvc = bool(_MSVC_STYLE.match(name))
                if platform.os == "windows" and not msvc:
                    continue  # MinGW and clang define these on Windows, MSVC does not
                if platform.os != "windows" and msvc:
                    undefined.add(name)
                    continue
                (defined if arch == platform.arch else undefined).add(name)
    # A C++ SDK's consumer compiles C++.
    defined.add("__cplusplus")
    return frozenset(defined), frozenset(undefined)


_TOKEN = re.compile(
    r"\s*(?:(?P<has>__has_include(?:_next)?\s*\(\s*(?:<[^>]*>|\"[^\"]*\")\s*\))"
    r"|(?P<num>\d[\w.']*)|(?P<ident>[A-Za-z_]\w*)"
    r"|(?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[!()<>+\-*/%&|^~?:,]))"
)
_HAS_INCLUDE = re.compile(r"\(\s*(<[^>]*>|\"[^\"]*\")\s*\)")
# Binary operators by precedence (C's, lowest first); `?:` and `,` are not followed.
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
# A value: an integer, or None where the consumer's compiler decides it.
Value = int | None


class Evaluator:
    """Evaluates `#if` expressions for one header on one platform."""

    def __init__(
        self,
        defined: Container[str],
        undefined: Container[str],
        has_include: Callable[[str, bool], bool],
        ones: Container[str] = frozenset(),
    ) -> None:
        self._defined = defined
        self._undefined = undefined
        self._has_include = has_include
        # Defined macros whose value is 1 (the platform's); a compile definition's value
        # (`-DNAME=0`) is not followed.
        self._ones = ones
        # Macros the header itself #defines or #undefs before the condition.
        self.local_defined: set[str] = set()
        self.local_undefined: set[str] = set()

    def defined(self, name: str) -> Truth:
        if name in self.local_defined:
            return Truth.TRUE
        if name in self.local_undefined:
            return Truth.FALSE
        if name in self._defined:
            return Truth.TRUE
        if name in self._undefined:
            return Truth.FALSE
        return Truth.UNKNOWN

    def value_of(self, name: str) -> Value:
        """A macro's value in an expression: 0 when undefined; the platform's own macros
        are 1; anything else (`__cplusplus`, a macro the header defines) is unknown."""
        truth = self.defined(name)
        if truth is Truth.FALSE:
            return 0
        # `__cplusplus` is defined, as a C++ consumer's compile has it, to its standard's
        # year, which is the consumer's choice.
        if (
            truth is Truth.TRUE
            and name in self._ones
            and name != "__cplusplus"
            and name not in self.local_defined
        ):
            return 1
        return None

    def has_include(self, spelling: str, angled: bool) -> bool:
        return self._has_include(spelling, angled)

    def evaluate(self, text: str) -> Truth:
        tokens = _tokens(text)
        if tokens is None:
            return Truth.UNKNOWN
        parser = _Parser(tokens, self)
        try:
            value = parser.expression()
        except (_Unparsable, ZeroDivisionError, OverflowError):
            return Truth.UNKNOWN
        if not parser.at_end() or value is None:
            return Truth.UNKNOWN
        return Truth.TRUE if value else Truth.FALSE


class _Unparsable(Exception):
    pass


def _tokens(text: str) -> list[tuple[str, str]] | None:
    out: list[tuple[str, str]] = []
    position = 0
    text = text.strip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:
            return None
        kind = found.lastgroup or ""
        out.append((kind, found.group(kind)))
        position = found.end()
    return out


def _number(text: str) -> int:
    digits = text.replace("'", "").rstrip("uUlL")
    try:
        return (
            int(digits, 0)
            if not (len(digits) > 1 and digits[0] == "0" and digits[1].isdigit())
            else int(digits, 8)
        )
    except ValueError as exc:
        raise _Unparsable from exc


def _apply(op: str, left: int, right: int) -> int:
    if op == "|":
        return left | right
    if op == "^":
        return left ^ right
    if op == "&":
        return left & right
    if op in ("==", "!=", "<", ">", "<=", ">="):
        return int(
            {
                "==": left == right,
                "!=": left != right,
                "<": left < right,
                ">": left > right,
                "<=": left <= right,
                ">=": left >= right,
            }[op]
        )
    if op in ("<<", ">>"):
        if not 0 <= right < 64:
            raise _Unparsable
        return left << right if op == "<<" else left >> right
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return int(left / right)
    return left - int(left / right) * right


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], evaluator: Evaluator) -> None:
        self._tokens = tokens
        self._at = 0
        self._evaluator = evaluator

    def at_end(self) -> bool:
        return self._at == len(self._tokens)

    def _peek(self) -> str | None:
        return self._tokens[self._at][1] if self._at < len(self._tokens) else None

    def _take(self) -> tuple[str, str]:
        if self._at >= len(self._tokens):
            raise _Unparsable
        self._at += 1
        return self._tokens[self._at - 1]

    def expression(self, level: int = 0) -> Value:
        if level == len(_LEVELS):
            return self._unary()
        value = self.expression(level + 1)
        while self._peek() in _LEVELS[level]:
            op = self._take()[1]
            right = self.expression(level + 1)
            value = _combine(op, value, right)
        return value

    def _unary(self) -> Value:
        kind, text = self._take()
        if text in ("!", "-", "~", "+"):
            operand = self._unary()
            if operand is None:
                return None
            return {"!": int(not operand), "-": -operand, "~": ~operand, "+": operand}[text]
        if text == "(":
            value = self.expression()
            if self._take()[1] != ")":
                raise _Unparsable
            return value
        if kind == "has":
            found = _HAS_INCLUDE.search(text)
            if found is None:
                raise _Unparsable
            spelling = found.group(1)
            return int(self._evaluator.has_include(spelling[1:-1], spelling[0] == "<"))
        if kind == "num":
            return _number(text)
        if kind == "ident":
            if text == "defined":
                truth = self._defined_operand()
                return None if truth is Truth.UNKNOWN else int(truth is Truth.TRUE)
            if self._peek() == "(":
                self._skip_call()
                return None
            return self._evaluator.value_of(text)
        raise _Unparsable

    def _skip_call(self) -> None:
        """A function-like macro's call (`__has_feature(x)`, `__GNUC_PREREQ(4, 8)`): its
        value is the consumer's compiler's."""
        depth = 0
        while True:
            text = self._take()[1]
            if text == "(":
                depth += 1
            elif text == ")":
                depth -= 1
                if depth == 0:
                    return

    def _defined_operand(self) -> Truth:
        kind, text = self._take()
        if text == "(":
            kind, text = self._take()
            if self._take()[1] != ")":
                raise _Unparsable
        if kind != "ident":
            raise _Unparsable
        return self._evaluator.defined(text)


def _combine(op: str, left: Value, right: Value) -> Value:
    """A binary operator over values that may be unknown: `||` and `&&` are decided by
    one known side when it settles them, as the preprocessor's short circuit does."""
    if op == "||":
        if left or right:
            return 1
        return 0 if left == 0 and right == 0 else None
    if op == "&&":
        if left == 0 or right == 0:
            return 0
        return 1 if left is not None and right is not None else None
    if left is None or right is None:
        return None
    return _apply(op, left, right)
