"""Which CMake targets the build asks for: the one module that reads build declarations.

- `setup-py`: `--target NAME` literals in a Python build script, read with `ast`.
  A list is followed across statements (`args += [...]`, `.append`, `.extend`,
  assignment), and the `if` tests around each request are kept as its conditions.
  A `--target` followed by anything but a string literal (an f-string, a name) is
  not a target name; it is reported as unreadable rather than guessed.
- `scikit-build`: `[tool.scikit-build] build.targets` in pyproject.toml.
- `cmake-presets`: `targets` of the build presets in CMakePresets.json (with `inherits`).
- `all`: the build runs the default target.
A declaration that names no target builds ALL, as `cmake --build` does.
A setup-py declaration with `packaging` configured also gives, from the same parsed
script, what it copies into the wheel (`sources/packaging.py`).
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import BuildDeclaration
from shiplint.sources.bounds import Refused, outside_message
from shiplint.sources.files import FileQueries
from shiplint.sources.model import BuildPlan, Conditions, TargetRequest, Unreadable
from shiplint.sources.packaging import PackagingRead, read_packaging
from shiplint.sources.pyexpr import shown

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# CMake's own targets that mean "build everything": asking for them builds ALL.
ALL_TARGETS = {"all", "ALL_BUILD", "install", "INSTALL", "install/strip", "install/local"}
_DEFAULT_PATHS = {
    "setup-py": "setup.py",
    "scikit-build": "pyproject.toml",
    "cmake-presets": "CMakePresets.json",
}


@dataclass
class _Plan:
    requests: list[TargetRequest] = field(default_factory=list)
    builds_all: list[Location] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)


def read_build_plan(
    root: Path, declarations: tuple[BuildDeclaration, ...], files: FileQueries | None = None
) -> BuildPlan:
    """What the build declarations ask of the CMake project; every file read through
    `files` (its answers kept there)."""
    files = files or FileQueries()
    plan = _Plan()
    packaging = PackagingRead()
    packaging_read: list[str] = []
    for declaration in declarations:
        mark = declaration.mark
        if declaration.packaging and declaration.kind != "setup-py":
            # The schema allows it on setup-py only; a model built another way is told.
            plan.unreadable.append(
                Unreadable(mark, f"packaging is read from setup-py declarations only, not "
                           f"{declaration.kind}; its packaging entries are not checked")
            )  # fmt: skip
        if declaration.kind == "all":
            plan.builds_all.append(mark)
            continue
        rel = declaration.path or _DEFAULT_PATHS.get(declaration.kind)
        if rel is None:
            plan.unreadable.append(
                Unreadable(mark, f"unknown build declaration kind {declaration.kind!r}")
            )
            continue
        path = root / rel
        if files.outside(files.resolve(root), path):
            plan.unreadable.append(Unreadable(mark, outside_message(rel)))
            continue
        try:
            text = files.read_text(path)
        except (OSError, Refused, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            plan.unreadable.append(
                Unreadable(mark, f"build declaration {declaration.kind} names {rel}: {reason}")
            )
            continue
        before = (len(plan.requests), len(plan.builds_all), len(plan.unreadable))
        if declaration.kind == "setup-py":
            tree = _read_setup_py(rel, text, plan)
            if declaration.packaging and tree is not None:
                label = f"setup-py ({rel})"
                read_packaging(root, rel, tree, declaration.packaging, label, packaging, files)
                packaging_read.append(label)
            after = (len(plan.requests), len(plan.builds_all), len(plan.unreadable))
            if after == before:
                # No `--target` at all: `cmake --build` builds the default target.
                plan.builds_all.append(Location(rel))
        elif declaration.kind == "scikit-build":
            _read_scikit_build(rel, text, plan)
        else:
            _read_presets(rel, text, plan)
    return BuildPlan(
        tuple(plan.requests),
        tuple(plan.builds_all),
        tuple(plan.unreadable),
        packaging=tuple(packaging.entries),
        packaging_read=tuple(packaging_read),
        packaging_unreadable=tuple(packaging.unreadable),
    )


# -- setup.py -------------------------------------------------------------------


@dataclass(frozen=True)
class _Element:
    """One item appended to a list variable, in source order, with its `if` tests."""

    node: ast.expr
    conditions: Conditions
    # Items of one list literal stay together: `["--target", "a", "b"]` names two targets.
    group: int


def _read_setup_py(rel: str, text: str, plan: _Plan) -> ast.Module | None:
    """Its requests into `plan`; the parsed script, which the packaging list is read from."""
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as exc:
        plan.unreadable.append(
            Unreadable(Location(rel, exc.lineno, exc.offset), f"Python syntax error: {exc.msg}")
        )
        return None
    except (ValueError, RecursionError, MemoryError) as exc:
        # A NUL byte (ValueError on 3.11) or nesting deeper than Python's parser allows.
        reason = "nested too deeply" if not isinstance(exc, ValueError) else str(exc)
        plan.unreadable.append(Unreadable(Location(rel), f"Python script not parsed: {reason}"))
        return None
    streams: dict[str, list[_Element]] = {}
    anonymous: list[list[_Element]] = []
    collector = _Collector(streams, anonymous)
    try:
        collector.body(tree.body, ())
    except RecursionError:
        plan.unreadable.append(
            Unreadable(Location(rel), "Python script nested too deeply to follow its lists")
        )
        return None
    for elements in [*streams.values(), *anonymous]:
        for request in _requests(rel, elements, plan):
            _add(plan, request)
    return tree


class _Collector:
    """Walks statements in order, keeping the `if` tests around each list operation."""

    def __init__(self, streams: dict[str, list[_Element]], anonymous: list[list[_Element]]) -> None:
        self.streams = streams
        self.anonymous = anonymous
        self.group = 0

    def body(self, statements: list[ast.stmt], conditions: Conditions) -> None:
        for statement in statements:
            self.statement(statement, conditions)

    def statement(self, node: ast.stmt, conditions: Conditions) -> None:
        if isinstance(node, ast.If):
            if isinstance(node.test, ast.Constant):
                # `if True:` / `if 0:` decide themselves; only the branch taken asks for anything.
                self.body(node.body if node.test.value else node.orelse, conditions)
                return
            test = shown(node.test)
            self.body(node.body, (*conditions, test))
            self.body(node.orelse, (*conditions, f"not ({test})"))
            return
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            self.assignment(node, conditions)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.call(node.value, conditions)
        for name in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(node, name, None)
            if isinstance(children, list) and not isinstance(node, ast.If):
                for child in children:
                    if isinstance(child, ast.ExceptHandler):
                        self.body(child.body, conditions)
                    elif isinstance(child, ast.stmt):
                        self.statement(child, conditions)
        # Lists inside other expressions (a call's arguments) still carry literal requests.
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for literal in _nested_lists(node):
                self.anonymous.append(self.elements(literal, conditions))

    def assignment(
        self, node: ast.Assign | ast.AugAssign | ast.AnnAssign, conditions: Conditions
    ) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        if value is None or not isinstance(value, (ast.List, ast.Tuple)):
            return
        for target in targets:
            key = _name_of(target)
            if key is None:
                continue
            elements = self.elements(value, conditions)
            if isinstance(node, ast.AugAssign):
                self.streams.setdefault(key, []).extend(elements)
            else:
                self.streams[key] = self.streams.get(key, []) + elements

    def call(self, call: ast.Call, conditions: Conditions) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in ("append", "extend"):
            return
        key = _name_of(func.value)
        if key is None or not call.args:
            return
        argument = call.args[0]
        if func.attr == "append":
            self.group += 1
            self.streams.setdefault(key, []).append(_Element(argument, conditions, self.group))
        elif isinstance(argument, (ast.List, ast.Tuple)):
            self.streams.setdefault(key, []).extend(self.elements(argument, conditions))

    def elements(self, literal: ast.List | ast.Tuple, conditions: Conditions) -> list[_Element]:
        self.group += 1
        return [_Element(e, conditions, self.group) for e in literal.elts]


def _nested_lists(node: ast.stmt) -> Iterator[ast.List | ast.Tuple]:
    """List literals in a statement that are not the value of an assignment handled above."""
    skip: set[int] = set()
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        skip.add(id(node.value))
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in ("append", "extend"):
            skip.update(id(a) for a in node.value.args)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            continue
        for sub in ast.walk(child):
            if (
                isinstance(sub, (ast.List, ast.Tuple))
                and id(sub) not in skip
                and any(_literal(e) == "--target" for e in sub.elts)
            ):
                yield sub


def _name_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name_of(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _requests(rel: str, elements: list[_Element], plan: _Plan) -> Iterator[TargetRequest]:
    for i, element in enumerate(elements):
        text = _literal(element.node)
        if text is None:
            continue
        if text.startswith("--target="):
            yield _request(rel, text.removeprefix("--target="), element)
            continue
        if text not in ("--target", "-t"):
            continue
        following = elements[i + 1 :]
        if not following:
            plan.unreadable.append(
                Unreadable(_at(rel, element.node), "`--target` is the last item; no target follows")
            )
            continue
        first = following[0]
        for j, item in enumerate(following):
            name = _literal(item.node)
            if name is None:
                if j == 0:
                    plan.unreadable.append(
                        Unreadable(_at(rel, item.node), f"`--target` is followed by "
                                   f"`{shown(item.node)}`, not a literal target "
                                   "name; the target it builds cannot be read from the source")
                    )  # fmt: skip
                break
            if j > 0 and (item.group != first.group or name.startswith("-")):
                break
            yield _request(rel, name, item)


def _at(rel: str, node: ast.expr) -> Location:
    return Location(rel, node.lineno, node.col_offset + 1)


def _request(rel: str, name: str, element: _Element) -> TargetRequest:
    return TargetRequest(name, "setup-py", _at(rel, element.node), element.conditions)


# -- pyproject.toml (scikit-build-core) -----------------------------------------------


def _read_scikit_build(rel: str, text: str, plan: _Plan) -> None:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        plan.unreadable.append(Unreadable(Location(rel), f"TOML error: {exc}"))
        return
    except RecursionError:
        # tomllib recurses once per nested array or inline table.
        plan.unreadable.append(Unreadable(Location(rel), "TOML nested too deeply to read"))
        return
    tool = document.get("tool", {})
    table = tool.get("scikit-build", {}) if isinstance(tool, dict) else {}
    build = table.get("build", {}) if isinstance(table, dict) else {}
    targets = build.get("targets") if isinstance(build, dict) else None
    if targets is None:
        # scikit-build-core builds the default target when none is listed.
        plan.builds_all.append(_find(rel, text, "scikit-build", None))
        return
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        plan.unreadable.append(
            Unreadable(_find(rel, text, "targets", None), "build.targets is not a list of strings")
        )
        return
    for name in targets:
        location = _find(rel, text, f'"{name}"', "targets")
        _add(plan, TargetRequest(name, "scikit-build", location, ()))


# -- CMakePresets.json -------------------------------------------------------------------


def _read_presets(rel: str, text: str, plan: _Plan) -> None:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        plan.unreadable.append(
            Unreadable(Location(rel, exc.lineno, exc.colno), f"JSON error: {exc.msg}")
        )
        return
    except RecursionError:
        # json recurses once per nested array or object.
        plan.unreadable.append(Unreadable(Location(rel), "JSON nested too deeply to read"))
        return
    presets = document.get("buildPresets", []) if isinstance(document, dict) else []
    by_name: dict[str, dict[str, Any]] = {
        p["name"]: p
        for p in (presets if isinstance(presets, list) else [])
        if isinstance(p, dict) and isinstance(p.get("name"), str)
    }
    if not by_name:
        plan.unreadable.append(
            Unreadable(Location(rel), "no buildPresets: nothing says which targets are built")
        )
        return
    resolved = _preset_targets(by_name)
    for name, preset in by_name.items():
        if preset.get("hidden"):
            continue
        targets, declared_in = resolved[name]
        where = _find(rel, text, f'"{name}"', None)
        if not targets:
            plan.builds_all.append(where)
            continue
        for target in targets:
            location = _find(rel, text, f'"{target}"', f'"{declared_in}"')
            _add(plan, TargetRequest(target, "cmake-presets", location, (f"preset {name}",)))


def _preset_targets(by_name: dict[str, dict[str, Any]]) -> dict[str, tuple[list[str], str]]:
    """Each preset's targets, its own or the first inherited ones (its parents in order,
    depth first, as CMake resolves them), with the preset that states them. Each preset
    is resolved once, with a stack: an `inherits` chain may be thousands long. A parent
    that loops back, or is not a preset's name (a number, a list), adds nothing."""
    found: dict[str, tuple[list[str], str]] = {}
    for start in by_name:
        stack: list[tuple[str, int]] = [(start, 0)]
        open_ = {start}
        while stack:
            name, index = stack.pop()
            if name in found:
                open_.discard(name)
                continue
            preset = by_name[name]
            own = preset.get("targets")
            if isinstance(own, (str, list)):
                own_list = [own] if isinstance(own, str) else own
                found[name] = ([t for t in own_list if isinstance(t, str)], name)
                open_.discard(name)
                continue
            parents = _parents(preset, by_name)
            # Skip parents that loop back or are known to state no targets.
            while index < len(parents) and (
                parents[index] in open_
                or (parents[index] in found and not found[parents[index]][0])
            ):
                index += 1
            if index == len(parents):
                found[name] = ([], name)
                open_.discard(name)
            elif parents[index] in found:
                found[name] = found[parents[index]]
                open_.discard(name)
            else:
                stack.append((name, index))
                stack.append((parents[index], 0))
                open_.add(parents[index])
    return found


def _parents(preset: dict[str, Any], by_name: dict[str, dict[str, Any]]) -> list[str]:
    inherits = preset.get("inherits", [])
    listed = [inherits] if isinstance(inherits, str) else inherits
    if not isinstance(listed, list):
        return []
    return [p for p in listed if isinstance(p, str) and p in by_name]


def _add(plan: _Plan, request: TargetRequest) -> None:
    if request.name in ALL_TARGETS:
        plan.builds_all.append(request.location)
    else:
        plan.requests.append(request)


def _find(rel: str, text: str, needle: str, after: str | None) -> Location:
    """Line and column of `needle` (after `after`, if given): JSON and TOML parsers keep none."""
    start = text.find(after) if after is not None else 0
    index = text.find(needle, max(start, 0))
    if index < 0:
        return Location(rel)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Location(rel, line, column)
