"""The commands that create targets and state facts about them, for the walk.

add_library and its kin, OUTPUT_NAME, EXCLUDE_FROM_ALL, install(TARGETS|EXPORT),
target_link_libraries, add_dependencies: each records located facts with the
conditions of the frame it runs in. Mixed into the walk (`interpret._Walk`), which
provides argument expansion and locations.
"""

from __future__ import annotations

import re
from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.sources.cmake_parse import Arg, Command
from shiplint.sources.conditions import truthy
from shiplint.sources.model import (
    LIBRARY_TYPES,
    Conditions,
    Edge,
    ExportInstall,
    Install,
    InstalledFile,
    OutputName,
    TargetDef,
)
from shiplint.sources.scope import Frame
from shiplint.sources.values import UNKNOWN_OPEN, keyword_value, known, resolve

_LINK_KEYWORDS = {
    "PUBLIC",
    "PRIVATE",
    "INTERFACE",
    "LINK_PUBLIC",
    "LINK_PRIVATE",
    "LINK_INTERFACE_LIBRARIES",
    "debug",
    "optimized",
    "general",
}
_INSTALL_TARGET_KEYWORDS = {
    "EXPORT", "ARCHIVE", "LIBRARY", "RUNTIME", "OBJECTS", "FRAMEWORK", "BUNDLE",
    "PRIVATE_HEADER", "PUBLIC_HEADER", "RESOURCE", "FILE_SET", "CXX_MODULES_BMI", "INCLUDES",
    "DESTINATION", "PERMISSIONS", "CONFIGURATIONS", "COMPONENT", "NAMELINK_COMPONENT",
    "NAMELINK_ONLY", "NAMELINK_SKIP", "OPTIONAL", "EXCLUDE_FROM_ALL",
    "RUNTIME_DEPENDENCY_SET", "RUNTIME_DEPENDENCIES",
}  # fmt: skip
_OUTPUT_NAME_PROPERTIES = {"OUTPUT_NAME", "LIBRARY_OUTPUT_NAME"}
# install(TARGETS) artifact kinds a DESTINATION after them applies to.
_ARTIFACT_KINDS = {
    "ARCHIVE", "LIBRARY", "RUNTIME", "OBJECTS", "FRAMEWORK", "BUNDLE", "PRIVATE_HEADER",
    "PUBLIC_HEADER", "RESOURCE", "FILE_SET", "CXX_MODULES_BMI", "INCLUDES",
}  # fmt: skip
_INSTALL_FILES_KEYWORDS = {
    "DESTINATION", "TYPE", "PERMISSIONS", "CONFIGURATIONS", "COMPONENT", "RENAME",
    "OPTIONAL", "EXCLUDE_FROM_ALL",
}  # fmt: skip


class TargetCommands:
    """Target facts, recorded by the handlers below."""

    targets: list[TargetDef]
    output_names: list[OutputName]
    byproducts: list[OutputName]
    installs: list[Install]
    exported_sets: list[ExportInstall]
    installed_files: list[InstalledFile]
    export_names: list[OutputName]
    edges: list[Edge]
    excluded_from_all: set[str]
    options: dict[str, str]

    # Provided by the walk.
    def expand_args(self, args: tuple[Arg, ...], frame: Frame) -> list[str]:
        raise NotImplementedError

    def loc(self, frame: Frame, line: int, column: int) -> Location:
        raise NotImplementedError

    def rel(self, path: Path) -> str:
        raise NotImplementedError

    def add_target(
        self, cmd: Command, frame: Frame, kind: str, default_type: str | None = None
    ) -> None:
        words = self.expand_args(cmd.args, frame)
        if not words:
            return
        name, rest = known(words[0]), words[1:]
        at = self.loc(frame, cmd.line, cmd.column)
        aliased: str | None = None
        in_all = frame.in_all and "EXCLUDE_FROM_ALL" not in rest
        if "ALIAS" in rest[:1]:
            kind, aliased, in_all = "alias", known(rest[1]) if len(rest) > 1 else None, False
        elif "IMPORTED" in rest[:3]:
            kind, in_all = "imported", False
        for library_type, reason, choice in self.library_types(cmd, frame, kind, rest,
                                                                   default_type):  # fmt: skip
            self.targets.append(
                TargetDef(
                    name=name,
                    kind=kind,
                    library_type=library_type,
                    type_reason=reason,
                    location=at,
                    conditions=frame.conditions,
                    choice=choice,
                    via=frame.via,
                    in_all=in_all,
                    aliased=aliased,
                )
            )
        if aliased:
            self.edges.append(Edge(name, aliased, "alias", at, frame.conditions))

    def library_types(
        self, cmd: Command, frame: Frame, kind: str, rest: list[str], default_type: str | None
    ) -> list[tuple[str | None, str, Conditions]]:
        """Each type the target may get, with the conditions that chose it (beyond its if()s)."""
        if kind not in ("library", "imported", "alias"):
            return [(None, "explicit", frame.choice)]
        # `add_library(x ${type} ...)` where `type` was set differently in if()/else():
        # one definition per value, each under the branch that chose it.
        raw = cmd.args[1].text if len(cmd.args) > 1 else ""
        match = re.fullmatch(r"\$\{([^${}]+)\}", raw)
        choices = frame.alts.get(match.group(1), []) if match else []
        if len(choices) > 1 and all(v in LIBRARY_TYPES for v, _ in choices):
            var = match.group(1) if match else ""
            return [
                (value, f"${{{var}}} is {value} here",
                 (*frame.choice, *(c for c in conds if c not in frame.conditions)))
                for value, conds in choices
            ]  # fmt: skip
        if rest and rest[0] in LIBRARY_TYPES:
            return [(rest[0], "explicit", frame.choice)]
        if kind != "library":
            return [(None, "explicit", frame.choice)]
        if default_type is not None:
            return [(default_type, f"{cmd.name}() builds {default_type} by default",
                     frame.choice)]  # fmt: skip
        library_type, reason = self.default_library_type(frame)
        return [(library_type, reason, frame.choice)]

    def default_library_type(self, frame: Frame) -> tuple[str, str]:
        value = frame.vars.get("BUILD_SHARED_LIBS", self.options.get("BUILD_SHARED_LIBS"))
        if value is None:
            return "STATIC", "no type given and BUILD_SHARED_LIBS is not set, so STATIC"
        if UNKNOWN_OPEN in value:
            return (
                "STATIC",
                "no type given and BUILD_SHARED_LIBS is not known, so STATIC by default",
            )
        kind = "SHARED" if truthy(value) else "STATIC"
        return kind, f"no type given and BUILD_SHARED_LIBS is {value}, so {kind}"

    def add_library(self, cmd: Command, frame: Frame) -> None:
        self.add_target(cmd, frame, "library")

    def add_executable(self, cmd: Command, frame: Frame) -> None:
        self.add_target(cmd, frame, "executable")

    def add_custom_target(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if not words:
            return
        at = self.loc(frame, cmd.line, cmd.column)
        self.targets.append(
            TargetDef(known(words[0]), "custom", None, "explicit", at, frame.conditions, frame.via,
                      choice=frame.choice,
                      in_all=frame.in_all and "ALL" in words[1:2])
        )  # fmt: skip
        self.dependencies_from(known(words[0]), words, at, frame)

    def external_project(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if not words:
            return
        at = self.loc(frame, cmd.line, cmd.column)
        excluded = keyword_value(words, "EXCLUDE_FROM_ALL")
        self.targets.append(
            TargetDef(known(words[0]), "external", None, "explicit", at, frame.conditions, frame.via,
                      choice=frame.choice,
                      in_all=frame.in_all and not (excluded and truthy(excluded)))
        )  # fmt: skip
        self.dependencies_from(known(words[0]), words, at, frame)
        self.byproducts_from(known(words[0]), words, at, frame)

    def byproducts_from(self, name: str, words: list[str], at: Location, frame: Frame) -> None:
        """BUILD_BYPRODUCTS: the file names an external project leaves in the build tree."""
        if "BUILD_BYPRODUCTS" not in words:
            return
        for item in words[words.index("BUILD_BYPRODUCTS") + 1 :]:
            if item.isupper():
                break
            # Only the file name: its directory is the build tree's (<INSTALL_DIR>/bin/flatc).
            base = known(item).replace("\\", "/").rsplit("/", 1)[-1]
            if base and "${" not in base:
                self.byproducts.append(OutputName(name, base, at, frame.conditions))

    def dependencies_from(self, name: str, words: list[str], at: Location, frame: Frame) -> None:
        """DEPENDS of a custom target or external project on other targets."""
        if "DEPENDS" not in words:
            return
        for item in words[words.index("DEPENDS") + 1 :]:
            if item.isupper():
                break
            self.edges.append(Edge(name, known(item), "dependency", at, frame.conditions))

    def set_target_properties(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if "PROPERTIES" not in words:
            return
        split = words.index("PROPERTIES")
        names, pairs = words[:split], words[split + 1 :]
        at = self.loc(frame, cmd.line, cmd.column)
        for key, value in zip(pairs[::2], pairs[1::2], strict=False):
            self.target_property(names, key, value, at, frame)

    def set_property(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        if words[:1] != ["TARGET"] or "PROPERTY" not in words:
            return
        split = words.index("PROPERTY")
        names = [w for w in words[1:split] if w not in ("APPEND", "APPEND_STRING")]
        rest = words[split + 1 :]
        if not rest:
            return
        at = self.loc(frame, cmd.line, cmd.column)
        self.target_property(names, rest[0], ";".join(rest[1:]), at, frame)

    def target_property(
        self, names: list[str], key: str, value: str, at: Location, frame: Frame
    ) -> None:
        for name in map(known, names):
            if key in _OUTPUT_NAME_PROPERTIES:
                self.output_names.append(OutputName(name, known(value), at, frame.conditions))
            elif key == "EXPORT_NAME":
                self.export_names.append(OutputName(name, known(value), at, frame.conditions))
            elif key == "EXCLUDE_FROM_ALL" and truthy(value):
                self.excluded_from_all.add(name)

    def install(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        at = self.loc(frame, cmd.line, cmd.column)
        if words[:1] == ["EXPORT"] and len(words) > 1:
            name = known(words[1])
            file_name = keyword_value(words, "FILE")
            destination = keyword_value(words, "DESTINATION")
            self.exported_sets.append(
                ExportInstall(
                    name=name,
                    file=known(file_name) if file_name else f"{name}.cmake",
                    destination=known(destination) if destination is not None else None,
                    namespace=known(keyword_value(words, "NAMESPACE") or ""),
                    location=at,
                    conditions=frame.conditions,
                )
            )
            return
        if words[:1] == ["FILES"]:
            self.install_files(words, frame, at)
            return
        if words[:1] != ["TARGETS"]:
            return
        names: list[str] = []
        for word in words[1:]:
            if word in _INSTALL_TARGET_KEYWORDS:
                break
            names.append(word)
        export = keyword_value(words, "EXPORT")
        destinations = _target_destinations(words[1 + len(names) :])
        for name in names:
            self.installs.append(
                Install(
                    known(name),
                    known(export) if export else None,
                    at,
                    frame.conditions,
                    destinations,
                )
            )

    def install_files(self, words: list[str], frame: Frame, at: Location) -> None:
        """install(FILES a b DESTINATION d): where each file lands (the config's own place)."""
        files: list[str] = []
        for word in words[1:]:
            if word in _INSTALL_FILES_KEYWORDS:
                break
            files.append(word)
        destination = keyword_value(words, "DESTINATION")
        for spec in files:
            # A file made at configure time lies in the build tree, not the checkout.
            if UNKNOWN_OPEN in spec or spec.startswith("<build>"):
                path = known(spec)
            else:
                path = self.rel(resolve(frame.source_dir, spec))
            self.installed_files.append(
                InstalledFile(path, known(destination) if destination else None, at)
            )

    def target_link_libraries(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        at = self.loc(frame, cmd.line, cmd.column)
        for item in words[1:]:
            dest = _link_item_target(known(item))
            if dest is not None and item not in _LINK_KEYWORDS:
                self.edges.append(Edge(known(words[0]), dest, "link", at, frame.conditions))

    def add_dependencies(self, cmd: Command, frame: Frame) -> None:
        words = self.expand_args(cmd.args, frame)
        at = self.loc(frame, cmd.line, cmd.column)
        for item in words[1:]:
            self.edges.append(
                Edge(known(words[0]), known(item), "dependency", at, frame.conditions)
            )


def _target_destinations(words: list[str]) -> tuple[tuple[str, str], ...]:
    """(artifact kind or "", DESTINATION) of the options after install(TARGETS <names>)."""
    out: list[tuple[str, str]] = []
    kind = ""
    for index, word in enumerate(words):
        if word in _ARTIFACT_KINDS:
            kind = word
        elif word == "DESTINATION" and index + 1 < len(words):
            out.append((kind, known(words[index + 1])))
    return tuple(out)


_NAME = re.compile(r"^[A-Za-z0-9_.+\-:]+$")


def _link_item_target(item: str) -> str | None:
    """The target a link item names, if it can name one (not a flag, path or keyword)."""
    if item.startswith("$<"):
        # $<LINK_LIBRARY:WHOLE_ARCHIVE,foo>, $<$<BOOL:..>:foo>, $<TARGET_NAME:foo>: the last word.
        tokens = [t for t in re.split(r"[$<>:,;]+", item) if t]
        item = tokens[-1] if tokens else ""
    if not item or item.startswith("-") or "/" in item or "${" in item:
        return None
    return item if _NAME.match(item) else None
