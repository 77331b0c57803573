"""The one module that reads CMake text: tree-sitter's CMake grammar into located invocations.

Error tolerant: a syntax error becomes a `ParseError` with its position and the
commands around it are still returned, so one broken file does not hide the rest.
Every argument keeps its 1-based line and column (in characters, not bytes).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from shiplint.fastclass import dataclass
from shiplint.sources.bounds import MAX_NESTING, MAX_NODES, nesting_bound, nodes_bound

# tree-sitter's bindings are untyped (see the mypy override in pyproject.toml).
Node = Any


class Arg(NamedTuple):
    """One argument as written: `text` without its quotes or brackets.

    A named tuple, not a frozen dataclass: a tree holds tens of thousands, rebuilt
    from the parse cache on every run, and a tuple is several times cheaper to make.
    """

    text: str
    line: int
    column: int
    # Quoted and bracket arguments are never split on `;`.
    quoted: bool = False
    # Bracket arguments are taken literally: no variable references inside.
    bracket: bool = False


@dataclass(frozen=True)
class Command:
    name: str  # lower case: CMake command names are case-insensitive
    args: tuple[Arg, ...]
    line: int
    column: int


@dataclass(frozen=True)
class Branch:
    """One arm of an if(): `condition` is None for else()."""

    condition: tuple[Arg, ...] | None
    body: tuple[Statement, ...]
    line: int
    column: int


@dataclass(frozen=True)
class IfBlock:
    branches: tuple[Branch, ...]
    line: int
    column: int


@dataclass(frozen=True)
class Definition:
    """A function() or macro() definition."""

    kind: str  # function | macro
    name: str  # lower case
    params: tuple[str, ...]
    body: tuple[Statement, ...]
    line: int
    column: int


@dataclass(frozen=True)
class Loop:
    """foreach(), while() or block(): the body runs in place (foreach once per item)."""

    kind: str  # foreach | while | block
    args: tuple[Arg, ...]
    body: tuple[Statement, ...]
    line: int
    column: int


Statement = Command | IfBlock | Definition | Loop


@dataclass(frozen=True)
class ParseError:
    line: int
    column: int
    reason: str


@dataclass(frozen=True)
class ParsedFile:
    statements: tuple[Statement, ...]
    errors: tuple[ParseError, ...]


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_cmake

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cmake.language()))


def parse_cmake(source: bytes) -> ParsedFile:
    tree = _parser().parse(source)
    nodes = tree.root_node.descendant_count
    if nodes > MAX_NODES:
        return ParsedFile((), (ParseError(1, 1, nodes_bound(nodes)),))
    builder = _Builder(source)
    root = tree.root_node
    # A file tree-sitter cannot recover at all (thousands of if()s never closed) is one
    # ERROR node at the root: reported, and the commands inside it still read.
    statements = builder.statements([root] if root.type == "ERROR" else root.children)
    return ParsedFile(tuple(statements), tuple(builder.errors))


class _Builder:
    def __init__(self, source: bytes) -> None:
        self._lines = source.split(b"\n")
        self.errors: list[ParseError] = []
        # Blocks open around the statements being built: each level is a recursion.
        self._depth = 0

    def position(self, node: Node) -> tuple[int, int]:
        row, col = node.start_point
        line = self._lines[row] if row < len(self._lines) else b""
        prefix = line[:col]
        # Columns are characters for the user; tree-sitter counts bytes.
        width = col if prefix.isascii() else len(prefix.decode("utf-8", "replace"))
        return row + 1, width + 1

    def statements(self, nodes: list[Node]) -> list[Statement]:
        if self._depth >= MAX_NESTING:
            if nodes:
                line, column = self.position(nodes[0])
                self.errors.append(ParseError(line, column, nesting_bound("a block")))
            return []
        self._depth += 1
        try:
            out: list[Statement] = []
            for node in nodes:
                out.extend(self.statement(node))
            return out
        finally:
            self._depth -= 1

    def statement(self, node: Node) -> list[Statement]:
        kind = node.type
        if kind == "normal_command":
            command = self.command(node)
            if command.name in _BLOCK_ENDS:
                # tree-sitter reads a stray endif() as a plain command; CMake rejects it.
                self.errors.append(
                    ParseError(
                        command.line,
                        command.column,
                        f"{command.name}() without its opening command",
                    )
                )
                return []
            return [command]
        if kind == "if_condition":
            return [self.if_block(node)]
        if kind in ("function_def", "macro_def"):
            return self.definition(node)
        if kind in ("foreach_loop", "while_loop", "block_def"):
            return [self.loop(node)]
        if kind == "ERROR" or node.is_missing:
            line, column = self.position(node)
            snippet = node.text[:40].decode("utf-8", "replace").split("\n")[0]
            self.errors.append(ParseError(line, column, f"CMake syntax error near {snippet!r}"))
            # Keep whatever commands the error node still holds.
            return self.statements(node.children)
        if node.has_error:
            self.collect_errors(node)
        return []

    def collect_errors(self, node: Node) -> None:
        # Iterative: an unbalanced file can nest its error nodes thousands deep.
        todo = list(reversed(node.children))
        while todo:
            child = todo.pop()
            if child.type == "ERROR" or child.is_missing:
                line, column = self.position(child)
                self.errors.append(ParseError(line, column, "CMake syntax error"))
            elif child.has_error:
                todo.extend(reversed(child.children))

    def command(self, node: Node) -> Command:
        name_node = next((c for c in node.children if c.type == "identifier"), node)
        line, column = self.position(node)
        if node.has_error:
            self.collect_errors(node)
        return Command(
            name_node.text.decode("utf-8", "replace").lower(), self.args(node), line, column
        )

    def args(self, node: Node) -> tuple[Arg, ...]:
        arg_list = next((c for c in node.children if c.type == "argument_list"), None)
        if arg_list is None:
            return ()
        return tuple(self.arg(a) for a in arg_list.children if a.type == "argument")

    def arg(self, node: Node) -> Arg:
        line, column = self.position(node)
        inner = node.children[0] if node.children else node
        if inner.type == "bracket_argument":
            content = next(
                (c for c in inner.children if c.type == "bracket_argument_content"), None
            )
            text = content.text.decode("utf-8", "replace") if content is not None else ""
            return Arg(text, line, column, quoted=True, bracket=True)
        if inner.type == "quoted_argument":
            raw = inner.text.decode("utf-8", "replace")
            return Arg(_unescape(raw[1:-1]), line, column, quoted=True)
        return Arg(_unescape(node.text.decode("utf-8", "replace")), line, column)

    def if_block(self, node: Node) -> IfBlock:
        branches: list[Branch] = []
        condition: tuple[Arg, ...] | None = None
        head = node
        for child in node.children:
            if child.type in ("if_command", "elseif_command"):
                condition, head = self.args(child), child
            elif child.type == "else_command":
                condition, head = None, child
            elif child.type == "body":
                line, column = self.position(head)
                branches.append(
                    Branch(condition, tuple(self.statements(child.children)), line, column)
                )
            elif child.type == "ERROR" or child.is_missing:
                self.statement(child)
        line, column = self.position(node)
        return IfBlock(tuple(branches), line, column)

    def definition(self, node: Node) -> list[Statement]:
        head = node.children[0] if node.children else node
        params = tuple(a.text for a in self.args(head))
        body = next((c for c in node.children if c.type == "body"), None)
        statements = self.statements(body.children) if body is not None else []
        line, column = self.position(node)
        if not params:
            self.errors.append(ParseError(line, column, f"{node.type[:-4]}() without a name"))
            return statements
        kind = "function" if node.type == "function_def" else "macro"
        return [Definition(kind, params[0].lower(), params[1:], tuple(statements), line, column)]

    def loop(self, node: Node) -> Loop:
        head = node.children[0] if node.children else node
        body = next((c for c in node.children if c.type == "body"), None)
        statements = self.statements(body.children) if body is not None else []
        line, column = self.position(node)
        kind = {"foreach_loop": "foreach", "while_loop": "while"}.get(node.type, "block")
        return Loop(kind, self.args(head), tuple(statements), line, column)


_BLOCK_ENDS = {
    "elseif", "else", "endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock",
}  # fmt: skip
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", ";": "\\;"}


def _unescape(text: str) -> str:
    """CMake escape sequences; `\\;` stays escaped so list splitting can honour it."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
