"""What a build script copies from the build tree into the wheel: its packaging entries.

A `setup-py` build declaration with `packaging` configured names the calls that make
one entry (`BuiltFile(src_dir=..., src_name="libfoo.so", ...)`) and the argument that
names the file. The script is read with `ast`: the name must be a string literal, a
`+` of literals, `a if cond else b`, or one of the configured name functions around
them (`get_dynamic_lib_name("foo")` stands for `foo`: the function only adds the
platform's prefix and suffix). Anything else (an f-string, a variable) is reported as
not followable, never guessed. The `if` tests around each entry are kept.

`PackagingIndex` answers which targets' outputs a name matches: a name is a glob on a
file name, and a target whose output name is `foo` produces `foo`, `libfoo`,
`libfoo.so`, `foo.dll`, `foo.cpython-311-x86_64-linux-gnu.so`, ... on some platform.
"""

from __future__ import annotations

import ast
from dataclasses import field
from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import PackagingCall
from shiplint.sources.files import FileQueries
from shiplint.sources.model import Conditions, PackagingEntry, Unreadable
from shiplint.sources.pyexpr import shown


@dataclass
class PackagingRead:
    entries: list[PackagingEntry] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)


class _NotLiteral(Exception):
    def __init__(self, node: ast.expr) -> None:
        super().__init__()
        self.node = node


def read_packaging(
    root: Path,
    rel: str,
    tree: ast.Module,
    calls: tuple[PackagingCall, ...],
    declaration: str,
    out: PackagingRead,
    files: FileQueries,
) -> None:
    """Every configured packaging call in `tree`, in source order, into `out`; whether an
    entry's file is checked in is asked through `files`."""
    by_name = {name: config for config in calls for name in config.calls}
    kept = (len(out.entries), len(out.unreadable))
    try:
        _Reader(root, rel, by_name, declaration, out, files).visit(tree, ())
    except RecursionError:
        # An expression nested deeper than the stack allows (a `+` chain of thousands):
        # the script is not read at all rather than read up to an unknown point.
        del out.entries[kept[0] :], out.unreadable[kept[1] :]
        out.unreadable.append(
            Unreadable(
                Location(rel),
                "the script is nested too deeply to read its packaging entries; none is checked",
            )
        )


class _Reader:
    def __init__(
        self,
        root: Path,
        rel: str,
        by_name: dict[str, PackagingCall],
        declaration: str,
        out: PackagingRead,
        files: FileQueries,
    ) -> None:
        self.root = root
        self.files = files
        self.rel = rel
        self.by_name = by_name
        self.declaration = declaration
        self.out = out

    def visit(self, node: ast.AST, conditions: Conditions) -> None:
        if isinstance(node, (ast.If, ast.IfExp)):
            self.branches(node, conditions)
            return
        if isinstance(node, ast.Call):
            config = self.by_name.get(_call_name(node.func) or "")
            if config is not None:
                self.entry(node, config, conditions)
        for child in ast.iter_child_nodes(node):
            self.visit(child, conditions)

    def branches(self, node: ast.If | ast.IfExp, conditions: Conditions) -> None:
        body: list[ast.AST] = list(node.body) if isinstance(node, ast.If) else [node.body]
        orelse: list[ast.AST] = list(node.orelse) if isinstance(node, ast.If) else [node.orelse]
        if isinstance(node.test, ast.Constant):
            # `if True:` / `x if 0 else y` decide themselves: only the branch taken copies.
            for child in body if node.test.value else orelse:
                self.visit(child, conditions)
            return
        self.visit(node.test, conditions)
        test = shown(node.test)
        for child in body:
            self.visit(child, (*conditions, test))
        for child in orelse:
            self.visit(child, (*conditions, f"not ({test})"))

    def entry(self, call: ast.Call, config: PackagingCall, conditions: Conditions) -> None:
        name = _call_name(call.func) or ""
        argument = _argument(call, config.name_keyword, config.name_position)
        where = _at(self.rel, call)
        if argument is None:
            spread = any(k.arg is None for k in call.keywords) or any(
                isinstance(a, ast.Starred) for a in call.args
            )
            reason = (
                f"packaging entry {name}(...) passes its arguments through `*`/`**`; the file "
                f"it copies ({config.name_keyword}) cannot be read from the source"
                if spread
                else f"packaging entry {name}(...) has no {config.name_keyword} argument; the "
                "file it copies cannot be read from the source"
            )
            self.out.unreadable.append(Unreadable(where, reason))
            return
        try:
            names = tuple(dict.fromkeys(_patterns(argument, config.name_functions)))
        except _NotLiteral as exc:
            self.out.unreadable.append(
                Unreadable(
                    _at(self.rel, exc.node),
                    f"packaging entry {name}(...) names the file it copies with "
                    f"`{shown(exc.node)}`, not a literal; which build output it "
                    "copies cannot be read from the source",
                    variable=shown(exc.node),
                )
            )
            return
        directory = _argument(call, config.dir_keyword, None) if config.dir_keyword else None
        checked_in = directory is not None and self.checked_in(directory, names)
        # The entry is where its file name is written: that is what a fix edits.
        at = _at(self.rel, argument)
        self.out.entries.append(
            PackagingEntry(names, name, self.declaration, at, conditions, checked_in)
        )

    def checked_in(self, directory: ast.expr, names: tuple[str, ...]) -> bool:
        """The entry's file is in the checkout at its own directory: a source file, not built."""
        if not isinstance(directory, ast.Constant) or not isinstance(directory.value, str):
            return False
        root = self.files.resolve(self.root)
        base = self.files.resolve(root / directory.value)
        # Only inside the checkout: an absolute or `..` directory says nothing about it.
        if not base.is_relative_to(root) or not self.files.is_dir(base):
            return False
        return any(
            self.files.glob_has_file(base, pattern)
            for pattern in names
            if pattern and not pattern.startswith("/") and ".." not in pattern.split("/")
        )


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _argument(call: ast.Call, keyword: str, position: int | None) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    if position is None or position >= len(call.args):
        return None
    # A `*args` before the position shifts it: the argument is not known.
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    return call.args[position]


def _patterns(node: ast.expr, functions: tuple[str, ...]) -> list[str]:
    """The file-name globs an expression can produce; raises _NotLiteral at what is not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _patterns(node.left, functions)
        right = _patterns(node.right, functions)
        return [a + b for a in left for b in right]
    if isinstance(node, ast.IfExp):
        return _patterns(node.body, functions) + _patterns(node.orelse, functions)
    if isinstance(node, ast.Call) and not node.keywords:
        called = _dotted(node.func)
        if called is not None and (called in functions or called.rsplit(".", 1)[-1] in functions):
            if not node.args:
                return [""]  # only a prefix or suffix: every candidate name has it or not
            if len(node.args) == 1:
                return _patterns(node.args[0], functions)
    raise _NotLiteral(node)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _at(rel: str, node: ast.expr) -> Location:
    return Location(rel, node.lineno, node.col_offset + 1)
