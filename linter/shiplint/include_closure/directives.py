"""The `#include` lines of one header, each with whether the platform compiles it.

Read with one regular expression over the text (directive lines only, continuation
lines joined, block comments blanked), the conditional stack kept in three values
(`conditions.Truth`): an include inside a false branch is dropped, one inside a branch
that cannot be judged is kept as unknown. An include guard (`#ifndef X` then
`#define X`) is true: the first inclusion is the one a consumer's compile reads. A
header that reaches `#error` on the platform refuses it: none of its includes count.
"""

from __future__ import annotations

import re

from shiplint.fastclass import dataclass
from shiplint.include_closure.conditions import Evaluator, Truth, both

# Matched from the newline before the line (the text gets one in front): a pattern that
# starts with a literal is searched for it directly, where `^` under re.M is tried at
# every position (five times slower on a header).
_DIRECTIVE = re.compile(r"\n[ \t]*#[ \t]*([a-z_]+)([^\n]*(?:(?<=\\)\n[^\n]*)*)")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//.*$")
_SPELLING = re.compile(r"^\s*(<[^>\n]+>|\"[^\"\n]+\")")
_NAME = re.compile(r"^\s*([A-Za-z_]\w*)")
_INCLUDES = frozenset({"include", "include_next", "import"})


@dataclass(frozen=True)
class Include:
    line: int
    spelling: str
    angled: bool
    # TRUE: compiled on the platform whenever the header is; UNKNOWN: under a condition
    # the consumer's build decides.
    truth: Truth


@dataclass
class _Branch:
    # This branch's own truth, and whether an earlier branch of the same #if was (or may
    # have been) taken.
    truth: Truth
    taken: Truth


def _blank(found: re.Match[str]) -> str:
    return "\n" * found.group(0).count("\n")


def includes(text: str, evaluator: Evaluator) -> list[Include]:
    """Every include a compile of the header on the evaluator's platform may read."""
    if "/*" in text:
        text = _BLOCK_COMMENT.sub(_blank, text)
    text = "\n" + text
    out: list[Include] = []
    stack: list[_Branch] = []
    current = Truth.TRUE
    line = 0
    counted = 0
    pending_guard: str | None = None
    for found in _DIRECTIVE.finditer(text):
        # The directive's line: the newlines up to and including the one it follows.
        line += text.count("\n", counted, found.start() + 1)
        counted = found.start() + 1
        name = found.group(1)
        rest = found.group(2)
        if "\\" in rest:
            rest = re.sub(r"\\\r?\n", " ", rest)
        if "//" in rest:
            rest = _LINE_COMMENT.sub("", rest)
        guard, pending_guard = pending_guard, None
        if name in _INCLUDES:
            if current is not Truth.FALSE:
                spelled = _SPELLING.match(rest)
                if spelled is not None:
                    token = spelled.group(1)
                    out.append(Include(line, token[1:-1], token[0] == "<", current))
            continue
        if name in ("if", "ifdef", "ifndef"):
            truth = _condition(name, rest, evaluator)
            if name == "ifndef" or (name == "if" and rest.lstrip().startswith("!")):
                pending_guard = _guarded_name(name, rest)
            stack.append(_Branch(truth, truth))
        elif name in ("elif", "elifdef", "elifndef") and stack:
            branch = stack[-1]
            truth = _condition(name[2:] if name != "elif" else "if", rest, evaluator)
            branch.truth = both(branch.taken.negate(), truth)
            if branch.taken is Truth.UNKNOWN and truth is not Truth.FALSE:
                branch.truth = Truth.UNKNOWN
            branch.taken = _taken(branch.taken, truth)
        elif name == "else" and stack:
            branch = stack[-1]
            branch.truth = branch.taken.negate()
            branch.taken = Truth.TRUE
        elif name == "endif" and stack:
            stack.pop()
        elif name == "define":
            defined = _NAME.match(rest)
            if defined is not None and current is Truth.TRUE:
                evaluator.local_defined.add(defined.group(1))
                evaluator.local_undefined.discard(defined.group(1))
            if defined is not None and guard == defined.group(1) and stack:
                # `#ifndef X` / `#define X`: an include guard, true on first inclusion.
                stack[-1].truth = stack[-1].taken = _parent_truth(stack[:-1])
        elif name == "error" and current is Truth.TRUE:
            # The header refuses this platform (`#ifndef _WIN32` / `#error "Windows
            # only"`): nothing it includes is asked of this platform's consumers.
            return []
        elif name == "undef":
            undefined = _NAME.match(rest)
            if undefined is not None and current is Truth.TRUE:
                evaluator.local_undefined.add(undefined.group(1))
                evaluator.local_defined.discard(undefined.group(1))
        else:
            continue
        current = _parent_truth(stack)
    return out


def _parent_truth(stack: list[_Branch]) -> Truth:
    truth = Truth.TRUE
    for branch in stack:
        truth = both(truth, branch.truth)
    return truth


def _taken(earlier: Truth, this: Truth) -> Truth:
    if earlier is Truth.TRUE or this is Truth.TRUE:
        return Truth.TRUE
    if earlier is Truth.FALSE and this is Truth.FALSE:
        return Truth.FALSE
    return Truth.UNKNOWN


def _condition(kind: str, rest: str, evaluator: Evaluator) -> Truth:
    if kind == "if":
        return evaluator.evaluate(rest)
    named = _NAME.match(rest)
    if named is None:
        return Truth.UNKNOWN
    truth = evaluator.defined(named.group(1))
    return truth if kind == "ifdef" else truth.negate()


def _guarded_name(kind: str, rest: str) -> str | None:
    if kind == "ifndef":
        named = _NAME.match(rest)
        return named.group(1) if named else None
    found = re.match(r"^\s*!\s*defined\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*$", rest)
    return found.group(1) if found else None
