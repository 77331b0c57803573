"""Walk a CMake project symbolically: targets, output names, installs and edges, with locations.

Nothing is evaluated: every branch of every if() is walked and the conditions it
sits under are recorded, because a linter must see the target a build could
define, not the one this machine's options happen to pick. Variables are tracked
only as far as `set`/`list(APPEND)`/`option` with literal values go, which is what
`add_subdirectory`, `include` and wrapper arguments need. A project's own
function() and macro() wrappers are followed with their arguments substituted, so
`my_add_shared_library(foo ...)` defines the SHARED library `foo`.
"""

from __future__ import annotations

import re
from dataclasses import field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.sources.bounds import (
    MAX_NESTING,
    MAX_STEPS,
    MAX_VALUE_CHARS,
    Refused,
    expansion_bound,
    nesting_bound,
    outside_message,
    steps_bound,
    value_bound,
)
from shiplint.sources.cmake_parse import (
    Arg,
    Command,
    Definition,
    IfBlock,
    Loop,
    ParsedFile,
    Statement,
)
from shiplint.sources.conditions import decide_guard, evaluate
from shiplint.sources.files import FileQueries
from shiplint.sources.model import (
    CMakeProject,
    Edge,
    ExportInstall,
    Install,
    InstalledFile,
    OutputName,
    TargetDef,
    Unreadable,
)
from shiplint.sources.parse_cache import parse_cached
from shiplint.sources.scope import Frame
from shiplint.sources.targets import TargetCommands
from shiplint.sources.values import (
    UNKNOWN_OPEN,
    keyword_value,
    known,
    normpath,
    resolve,
    split_list,
    unknown,
)

_MAX_CALL_DEPTH = 32
_MAX_FOREACH_ITEMS = 64
# Commands from CMake or common packages that create a target, with their default kind
# and type, used when the project does not define a function of that name itself.
_PYTHON_MODULE_CREATORS = {
    "pybind11_add_module",
    "python_add_library",
    "python3_add_library",
    "nanobind_add_module",
}
_VAR_REF = re.compile(r"\$(ENV|CACHE)?\{([^${}]*)\}")


@dataclass
class _Walk(TargetCommands):
    root: Path
    exclude: tuple[str, ...]
    files: FileQueries
    parsed: dict[Path, ParsedFile] = field(default_factory=dict)
    functions: dict[str, tuple[Definition, Path]] = field(default_factory=dict)
    targets: list[TargetDef] = field(default_factory=list)
    output_names: list[OutputName] = field(default_factory=list)
    byproducts: list[OutputName] = field(default_factory=list)
    installs: list[Install] = field(default_factory=list)
    exported_sets: list[ExportInstall] = field(default_factory=list)
    installed_files: list[InstalledFile] = field(default_factory=list)
    export_names: list[OutputName] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    excluded_from_all: set[str] = field(default_factory=set)
    options: dict[str, str] = field(default_factory=dict)
    active_files: list[Path] = field(default_factory=list)
    depth: int = 0
    # Bodies (blocks, files, wrapper calls) entered and not left: the walk's recursion.
    nesting: int = 0
    # Statements run so far, and whether the walk stopped at MAX_STEPS.
    steps: int = 0
    exhausted: bool = False
    # Where a bound was reported already: one finding per place, not one per pass.
    bounded: set[Location] = field(default_factory=set)
    # The variable whose value the last expand() left out to stay within its room.
    clipped: str | None = None

    # -- files ---------------------------------------------------------------

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def is_excluded(self, path: Path) -> bool:
        rel = self.rel(path)
        parts = rel.split("/")
        candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        return any(fnmatchcase(c, pattern) for c in candidates for pattern in self.exclude)

    def load(self, path: Path, at: Location) -> ParsedFile | None:
        if path in self.parsed:
            return self.parsed[path]
        if self.files.outside(self.root, path):
            self.unreadable.append(Unreadable(at, outside_message(self.rel(path))))
            return None
        try:
            source = self.files.read(path)
        except OSError as exc:
            self.unreadable.append(Unreadable(at, f"cannot read {self.rel(path)}: {exc.strerror}"))
            return None
        except Refused as exc:
            self.unreadable.append(Unreadable(at, f"cannot read {self.rel(path)}: {exc}"))
            return None
        parsed = parse_cached(source)
        for error in parsed.errors:
            where = Location(self.rel(path), error.line, error.column)
            self.unreadable.append(Unreadable(where, error.reason))
        self.parsed[path] = parsed
        return parsed

    def run_file(self, path: Path, frame: Frame, at: Location) -> None:
        # Resolved, so a symlinked directory back into the tree is recognised as well.
        real = self.files.resolve(path)
        if real in self.active_files:
            # A file reaching itself again (an example adding the project that adds the
            # example): CMake would stop there too, and the file is being read already.
            return
        parsed = self.load(path, at)
        if parsed is None:
            return
        self.active_files.append(real)
        try:
            self.statements(parsed.statements, frame)
        finally:
            self.active_files.pop()

    # -- statements ----------------------------------------------------------

    def loc(self, frame: Frame, line: int, column: int) -> Location:
        return frame.anchor or Location(self.rel(frame.list_file), line, column)

    def statements(self, statements: tuple[Statement, ...], frame: Frame) -> None:
        if not statements or self.exhausted:
            return
        if self.nesting >= MAX_NESTING:
            first = statements[0]
            self.bound(self.loc(frame, first.line, first.column), nesting_bound("the project"))
            return
        self.nesting += 1
        try:
            self._statements(statements, frame)
        finally:
            self.nesting -= 1

    def bound(self, at: Location, reason: str) -> None:
        if at not in self.bounded:
            self.bounded.add(at)
            self.unreadable.append(Unreadable(at, reason))

    def _statements(self, statements: tuple[Statement, ...], frame: Frame) -> None:
        for statement in statements:
            self.steps += 1
            if self.steps > MAX_STEPS or self.exhausted:
                if not self.exhausted:
                    self.exhausted = True
                    self.bound(self.loc(frame, statement.line, statement.column), steps_bound())
                return
            if isinstance(statement, Command):
                self.command(statement, frame)
            elif isinstance(statement, IfBlock):
                self.if_block(statement, frame)
            elif isinstance(statement, Definition):
                self.functions[statement.name] = (statement, frame.list_file)
            elif isinstance(statement, Loop):
                self.loop(statement, frame)

    def if_block(self, block: IfBlock, frame: Frame) -> None:
        undecided: list[str] = []
        for branch in block.branches:
            decided = True if branch.condition is None else self.decide(branch.condition, frame)
            if decided is False:
                continue
            if branch.condition is None:
                if not undecided:
                    self.statements(branch.body, frame)
                    return
                text = undecided[0] if len(undecided) == 1 else " OR ".join(undecided)
                condition = f"NOT ({text})"
            else:
                condition = _condition_text(branch.condition)
                if decided is True and not undecided:
                    self.statements(branch.body, frame)
                    return
                undecided.append(condition)
            if frame.function_name:
                condition = f"{condition} (in {frame.function_name})"
            # Variables set inside a branch stay set (the dict is shared): it may be the one taken.
            self.statements(branch.body, frame.but(conditions=(*frame.conditions, condition)))
            if decided is True:
                return

    def decide(self, condition: tuple[Arg, ...], frame: Frame) -> bool | None:
        words = self.expand_words(condition, frame)
        tokens = [(text, a.quoted) for a, text in zip(condition, words, strict=True)]

        def known(name: str) -> str | None:
            value = frame.vars.get(name)
            return None if value is None or UNKNOWN_OPEN in value else value

        # Constants and paths in the checkout (`if(TRUE)`, `EXISTS .../CMakeLists.txt`)
        # are fixed wherever they appear.
        constant = evaluate(tokens, path_test=self.path_test)
        if constant is not None:
            return constant
        local = frame.local
        if local is not None:

            def lookup(name: str) -> str | None:
                return (known(name) or "") if name in local else None

            def defined(name: str) -> bool | None:
                return name in frame.vars if name in local else None

            decided = evaluate(tokens, lookup, defined, self.path_test)
            if decided is not None:
                return decided
        return decide_guard(tokens, known)

    def path_test(self, path: str, directory: bool) -> bool | None:
        """EXISTS / IS_DIRECTORY of a path in the checkout; None for anything else."""
        if UNKNOWN_OPEN in path or not path.startswith("/"):
            return None
        candidate = Path(normpath(Path(path)))
        if candidate != self.root and self.root not in candidate.parents:
            return None  # outside the checkout: the build machine's business
        return self.files.is_dir(candidate) if directory else self.files.exists(candidate)

    def loop(self, loop: Loop, frame: Frame) -> None:
        if loop.kind != "foreach" or not loop.args:
            self.statements(loop.body, frame)
            return
        words = self.expand_args(loop.args, frame)
        if not words:
            return
        var, rest = words[0], words[1:]
        if rest[:1] == ["RANGE"]:
            items: list[str] = []
        elif rest[:1] == ["IN"]:
            items, mode = [], ""
            for word in rest[1:]:
                if word in ("LISTS", "ITEMS", "ZIP_LISTS"):
                    mode = word
                elif mode == "LISTS":
                    items.extend(split_list(frame.vars.get(word, "")))
                else:
                    items.append(word)
        else:
            items = rest
        old = frame.vars.get(var)
        for item in items[:_MAX_FOREACH_ITEMS] or [unknown(var)]:
            frame.vars[var] = item
            self.statements(loop.body, frame)
        if old is None:
            frame.vars.pop(var, None)
        else:
            frame.vars[var] = old

    # -- expansion -------------------------------------------------------------

    def expand(self, text: str, frame: Frame, room: int = MAX_VALUE_CHARS) -> str:
        """`text` with its variable references replaced; a reference whose value would take
        the result past `room` characters expands to the unknown marker instead."""
        if "$" not in text:
            return text
        spent = len(text)

        def sub(match: re.Match[str]) -> str:
            nonlocal spent
            kind, name = match.group(1), match.group(2)
            if kind != "ENV" and name in frame.vars:
                value = frame.vars[name]
                if spent + len(value) <= room:
                    spent += len(value)
                    return value
                self.clipped = name
            return unknown(name if kind is None else f"{kind}{{{name}}}")

        # Inner references first (`${a_${b}}`); bounded, as values never hold a live `${`.
        for _ in range(16):
            expanded = _VAR_REF.sub(sub, text)
            if expanded == text:
                break
            text = expanded
        return text

    def expand_words(self, args: tuple[Arg, ...], frame: Frame) -> list[str]:
        """Each argument expanded (not split); all of them together hold at most
        MAX_VALUE_CHARS characters of values, so a thousand `${big}` stay bounded. The
        first value left out is reported, once per command."""
        self.clipped = None
        texts = [arg.text for arg in args]
        if "$" not in "".join(texts):
            # Most commands' arguments are literal: nothing to expand, nothing to bound.
            return texts
        out: list[str] = []
        room = MAX_VALUE_CHARS
        for arg in args:
            if arg.bracket:
                out.append(arg.text)
                continue
            first_clip = self.clipped is None
            out.append(self.expand(arg.text, frame, max(room, len(arg.text))))
            room -= len(out[-1])
            if first_clip and self.clipped is not None:
                self.bound(self.loc(frame, arg.line, arg.column), expansion_bound(self.clipped))
        return out

    def expand_args(self, args: tuple[Arg, ...], frame: Frame) -> list[str]:
        out: list[str] = []
        for arg, text in zip(args, self.expand_words(args, frame), strict=True):
            if arg.quoted:
                out.append(text)
            else:
                out.extend(split_list(text))
        return out

    # -- commands ---------------------------------------------------------------

    def command(self, cmd: Command, frame: Frame) -> None:
        name = cmd.name
        if name in self.functions:
            self.call(cmd, frame)
            return
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, cmd, frame)
        elif name in _PYTHON_MODULE_CREATORS:
            self.add_target(cmd, frame, "library", default_type="MODULE")

    def call(self, cmd: Command, frame: Frame) -> None:
        # `wrapper(${kind} ...)` where `kind` was set differently in if()/else(): follow the
        # wrapper once per value, each under the branch that chose it (`SHARED` or nothing).
        for arg in cmd.args:
            match = re.fullmatch(r"\$\{([^${}]+)\}", arg.text) if not arg.quoted else None
            choices = frame.alts.get(match.group(1), []) if match else []
            if match and len({value for value, _ in choices}) > 1:
                var = match.group(1)
                saved = frame.vars.get(var)
                for value, conds in choices:
                    extra = tuple(c for c in conds if c not in frame.conditions)
                    frame.vars[var] = value
                    self.call_once(cmd, frame.but(choice=(*frame.choice, *extra)))
                if saved is None:
                    frame.vars.pop(var, None)
                else:
                    frame.vars[var] = saved
                return
        self.call_once(cmd, frame)

    def call_once(self, cmd: Command, frame: Frame) -> None:
        definition, defined_in = self.functions[cmd.name]
        at = self.loc(frame, cmd.line, cmd.column)
        if self.depth >= _MAX_CALL_DEPTH:
            self.unreadable.append(
                Unreadable(
                    at, f"{cmd.name}() nests deeper than {_MAX_CALL_DEPTH} calls; not followed"
                )
            )
            return
        args = self.expand_args(cmd.args, frame)
        bindings = {
            "ARGC": str(len(args)),
            "ARGV": ";".join(args),
            "ARGN": ";".join(args[len(definition.params) :]),
            **{f"ARGV{i}": a for i, a in enumerate(args)},
            **{p: (args[i] if i < len(args) else "") for i, p in enumerate(definition.params)},
        }
        label = f"{cmd.name} at {at.render()}"
        local = set(bindings)
        if definition.kind == "function":
            scope = {
                **frame.vars,
                "CMAKE_CURRENT_FUNCTION_LIST_DIR": defined_in.parent.as_posix(),
                **bindings,
            }
            inner = frame.but(
                vars=scope, parent_vars=frame.vars, list_file=defined_in,
                via=(*frame.via, label), anchor=frame.anchor or at, function_name=cmd.name,
                local=local, alts=dict(frame.alts),
            )  # fmt: skip
            self.depth += 1
            try:
                self.statements(definition.body, inner)
            finally:
                self.depth -= 1
            return
        # A macro runs in its caller's scope; its parameters are only text substitutions.
        saved = {k: frame.vars.get(k) for k in bindings}
        frame.vars.update(bindings)
        inner = frame.but(
            list_file=defined_in, via=(*frame.via, label), anchor=frame.anchor or at,
            function_name=cmd.name, local=local,
        )  # fmt: skip
        self.depth += 1
        try:
            self.statements(definition.body, inner)
        finally:
            self.depth -= 1
            for key, value in saved.items():
                if value is None:
                    frame.vars.pop(key, None)
                else:
                    frame.vars[key] = value

    def set_var(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if not words:
            return
        var, values = words[0], words[1:]
        if "CACHE" in values:
            values = values[: values.index("CACHE")]
            if var in frame.vars and "FORCE" not in words:
                return
        target = frame.vars
        if values and values[-1] == "PARENT_SCOPE":
            values = values[:-1]
            target = frame.parent_vars if frame.parent_vars is not None else frame.vars
        value = self.bounded_value(var, ";".join(values), cmd, frame)
        if values:
            target[var] = value
        else:
            target.pop(var, None)
        if target is frame.vars:
            self.remember_choice(frame, var, value)
        if frame.local is not None and target is frame.vars:
            # A wrapper's own variable derived from its arguments is as fixed as they are.
            if all(UNKNOWN_OPEN not in v for v in values):
                frame.local.add(var)
            else:
                frame.local.discard(var)

    def remember_choice(self, frame: Frame, var: str, value: str) -> None:
        """Keep the values a variable may hold, each with the if() branches that set it.

        A later assignment under the same or a weaker condition replaces the earlier ones
        it covers: `set(t STATIC)` then `if(X) set(t SHARED)` keeps both.
        """
        conditions = frame.conditions
        kept = [(v, c) for v, c in frame.alts.get(var, []) if c[: len(conditions)] != conditions]
        frame.alts[var] = [*kept, (value, conditions)]

    def unset_var(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if words:
            frame.vars.pop(words[0], None)

    def option(self, cmd: Command, frame: Frame) -> None:
        # Options stay out of the variables: a build may set any of them, so no if() on
        # one is ever decided. Only the default of BUILD_SHARED_LIBS is kept, for typing.
        words = self.expand_args(cmd.args, frame)
        if words[:1] == ["BUILD_SHARED_LIBS"]:
            self.options.setdefault(words[0], words[2] if len(words) > 2 else "OFF")

    def list_cmd(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if len(words) < 2 or words[0] not in ("APPEND", "PREPEND"):
            return
        current = split_list(frame.vars.get(words[1], ""))
        items = words[2:]
        merged = current + items if words[0] == "APPEND" else items + current
        frame.vars[words[1]] = self.bounded_value(words[1], ";".join(merged), cmd, frame)

    def bounded_value(self, var: str, value: str, cmd: Command, frame: Frame) -> str:
        """`value`, or the unknown marker when it is past the variable-size bound."""
        if len(value) <= MAX_VALUE_CHARS:
            return value
        self.bound(self.loc(frame, cmd.line, cmd.column), value_bound(var, len(value)))
        return unknown(var)

    def get_filename_component(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if len(words) < 3 or UNKNOWN_OPEN in words[1]:
            if words:
                frame.vars[words[0]] = unknown(words[0])
            return
        var, spec, mode = words[0], words[1], words[2]
        base = keyword_value(words, "BASE_DIR") or frame.source_dir.as_posix()
        path = resolve(Path(base), spec)
        value = {
            "ABSOLUTE": path.as_posix(),
            "REALPATH": path.as_posix(),
            "DIRECTORY": Path(spec).parent.as_posix(),
            "PATH": Path(spec).parent.as_posix(),
            "NAME": Path(spec).name,
            "NAME_WE": Path(spec).name.split(".")[0],
        }.get(mode)
        frame.vars[var] = value if value is not None else unknown(var)

    def project(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if not words:
            return
        source = frame.source_dir.as_posix()
        frame.vars.update(
            {
                "PROJECT_NAME": words[0],
                "PROJECT_SOURCE_DIR": source,
                f"{words[0]}_SOURCE_DIR": source,
            }
        )
        frame.vars.setdefault("CMAKE_PROJECT_NAME", words[0])

    def parse_arguments(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if words[:1] == ["PARSE_ARGV"]:
            if len(words) < 6 or not words[1].isdigit():
                return
            start = int(words[1])
            prefix, spec = words[2], words[3:6]
            args = split_list(frame.vars.get("ARGV", ""))[start:]
        else:
            if len(words) < 4:
                return
            prefix, spec, args = words[0], words[1:4], words[4:]
        options, singles, multis = (set(split_list(s)) for s in spec)
        values: dict[str, list[str]] = {}
        unparsed: list[str] = []
        current: str | None = None
        for word in args:
            if word in options:
                values[word] = ["TRUE"]
                current = None
            elif word in singles or word in multis:
                values[word] = []
                current = word
            elif current is not None:
                values[current].append(word)
                if current in singles:
                    current = None
            else:
                unparsed.append(word)
        if frame.local is not None:
            frame.local.update(f"{prefix}_{key}" for key in options | singles | multis)
            frame.local.add(f"{prefix}_UNPARSED_ARGUMENTS")
        for key in options:
            frame.vars[f"{prefix}_{key}"] = "TRUE" if key in values else "FALSE"
        for key in singles | multis:
            if key in values:
                frame.vars[f"{prefix}_{key}"] = ";".join(values[key])
            else:
                frame.vars.pop(f"{prefix}_{key}", None)
        frame.vars[f"{prefix}_UNPARSED_ARGUMENTS"] = ";".join(unparsed)

    def include(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        at = self.loc(frame, cmd.line, cmd.column)
        if not words:
            return
        spec = words[0]
        optional = "OPTIONAL" in words[1:]
        if UNKNOWN_OPEN in spec:
            self.unresolved(at, "include", cmd, frame)
            return
        if "/" in spec or spec.endswith(".cmake"):
            path = resolve(frame.source_dir, spec)
        else:
            found = [
                Path(d) / f"{spec}.cmake"
                for d in split_list(frame.vars.get("CMAKE_MODULE_PATH", ""))
                if self.files.is_file(Path(d) / f"{spec}.cmake")
            ]
            if not found:
                # A module name found on no CMAKE_MODULE_PATH entry is one of CMake's own
                # (GNUInstallDirs, ExternalProject, ...): nothing of the project's in it.
                return
            path = found[0]
        if self.is_excluded(path):
            return
        if not self.files.is_file(path):
            if not optional:
                self.unreadable.append(
                    Unreadable(at, f"include() names {self.rel(path)}, which does not exist")
                )
            return
        old_dir = frame.vars.get("CMAKE_CURRENT_LIST_DIR")
        frame.vars["CMAKE_CURRENT_LIST_DIR"] = path.parent.as_posix()
        self.run_file(path, frame.but(list_file=path), at)
        frame.vars["CMAKE_CURRENT_LIST_DIR"] = old_dir or frame.source_dir.as_posix()

    def add_subdirectory(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        at = self.loc(frame, cmd.line, cmd.column)
        if not words:
            return
        if UNKNOWN_OPEN in words[0]:
            self.unresolved(at, "add_subdirectory", cmd, frame)
            return
        if words[0].startswith("<build>"):
            self.unreadable.append(
                Unreadable(at, f"add_subdirectory({cmd.args[0].text}) names a directory made "
                           "inside the build tree at configure time; not followed")
            )  # fmt: skip
            return
        directory = resolve(frame.source_dir, words[0])
        if self.is_excluded(directory):
            return
        lists = directory / "CMakeLists.txt"
        if not self.files.is_file(lists):
            what = (
                "a directory without a CMakeLists.txt"
                if self.files.is_dir(directory)
                else "no directory"
            )
            self.unreadable.append(
                Unreadable(at, f"add_subdirectory({cmd.args[0].text}) names {what}: "
                           f"{self.rel(directory)} (a submodule not checked out? "
                           "list vendored trees in sources.exclude)")
            )  # fmt: skip
            return
        scope = dict(frame.vars)
        binary = f"<build>/{self.rel(directory)}"
        scope.update(
            {
                "CMAKE_CURRENT_SOURCE_DIR": directory.as_posix(),
                "CMAKE_CURRENT_LIST_DIR": directory.as_posix(),
                "CMAKE_CURRENT_BINARY_DIR": binary,
            }
        )
        inner = Frame(
            source_dir=directory,
            list_file=lists,
            vars=scope,
            parent_vars=frame.vars,
            conditions=frame.conditions,
            alts=dict(frame.alts),
            in_all=frame.in_all and "EXCLUDE_FROM_ALL" not in words[1:],
            via=frame.via,
            anchor=frame.anchor,
        )
        self.run_file(lists, inner, at)

    def fetch_content(self, cmd: Command, frame: Frame) -> None:
        names = ", ".join(known(w) for w in self.expand_args(cmd.args, frame))
        self.unreadable.append(
            Unreadable(
                self.loc(frame, cmd.line, cmd.column),
                f"FetchContent_MakeAvailable({names}) adds sources downloaded at configure "
                "time; targets they define are not seen",
            )
        )

    def unresolved(self, at: Location, what: str, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        missing = sorted(set(re.findall(r"\$\{([^}]*)\}", known(words[0]) if words else "")))
        names = ", ".join("${" + m + "}" for m in missing) or "a variable"
        self.unreadable.append(
            Unreadable(at, f"{what}({cmd.args[0].text}) depends on {names}, which is not "
                       "known without evaluating CMake; not followed",
                       variable=missing[0] if missing else None)
        )  # fmt: skip


# Target commands come from TargetCommands (sources/targets.py).
_HANDLERS = {
    "set": _Walk.set_var,
    "unset": _Walk.unset_var,
    "option": _Walk.option,
    "list": _Walk.list_cmd,
    "project": _Walk.project,
    "get_filename_component": _Walk.get_filename_component,
    "cmake_parse_arguments": _Walk.parse_arguments,
    "include": _Walk.include,
    "add_subdirectory": _Walk.add_subdirectory,
    "add_library": _Walk.add_library,
    "add_executable": _Walk.add_executable,
    "add_custom_target": _Walk.add_custom_target,
    "externalproject_add": _Walk.external_project,
    "fetchcontent_makeavailable": _Walk.fetch_content,
    "set_target_properties": _Walk.set_target_properties,
    "set_property": _Walk.set_property,
    "install": _Walk.install,
    "target_link_libraries": _Walk.target_link_libraries,
    "add_dependencies": _Walk.add_dependencies,
}


def _condition_text(args: tuple[Arg, ...]) -> str:
    return " ".join(f'"{a.text}"' if a.quoted and not a.bracket else a.text for a in args)


def walk_project(
    root: Path,
    cmake_roots: tuple[str, ...],
    exclude: tuple[str, ...],
    files: FileQueries | None = None,
) -> CMakeProject:
    """Walk every root's CMakeLists.txt and what it reaches; the CMake facts of the project.
    Every question to the file system goes through `files` (its answers kept there)."""
    files = files or FileQueries()
    # Globs are repo-relative; "./vendor/**" means "vendor/**".
    patterns = tuple(p.removeprefix("./").rstrip("/") for p in exclude)
    walk = _Walk(root=files.resolve(root), exclude=patterns, files=files)
    for cmake_root in cmake_roots:
        directory = resolve(walk.root, cmake_root)
        lists = directory / "CMakeLists.txt"
        at = Location(walk.rel(lists))
        if not files.is_file(lists):
            walk.unreadable.append(
                Unreadable(
                    at, f"sources.cmake_roots names {cmake_root}, which has no CMakeLists.txt"
                )
            )
            continue
        source = directory.as_posix()
        scope = {
            "CMAKE_SOURCE_DIR": source,
            "CMAKE_CURRENT_SOURCE_DIR": source,
            "CMAKE_CURRENT_LIST_DIR": source,
            "PROJECT_SOURCE_DIR": source,
            "CMAKE_BINARY_DIR": "<build>",
            "CMAKE_CURRENT_BINARY_DIR": "<build>",
        }
        walk.run_file(lists, Frame(directory, lists, scope, None), at)
    targets = tuple(
        replace(t, in_all=False) if t.name in walk.excluded_from_all else t for t in walk.targets
    )
    return CMakeProject(
        files=tuple(sorted(walk.rel(p) for p in walk.parsed)),
        targets=targets,
        output_names=tuple(walk.output_names),
        installs=tuple(walk.installs),
        exported_sets=tuple(walk.exported_sets),
        edges=tuple(walk.edges),
        unreadable=tuple(walk.unreadable),
        byproducts=tuple(walk.byproducts),
        installed_files=tuple(walk.installed_files),
        export_names=tuple(walk.export_names),
    )
