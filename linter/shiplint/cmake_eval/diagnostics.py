"""What a config says or leaves wrong while a consumer's plain find_package evaluates it.

Read from the probe's plain evaluation (its `main` subdirectory) after the run:

- the config's own `message(WARNING ...)`, from CMake's output, at the file and line
  CMake names (the call stack must pass through the plain evaluation, so the same
  warning printed again by a component request is counted once);
- `*-NOTFOUND` values in an imported target's properties (the probe records them,
  since it drops them from the properties it reads) and in the aggregate and
  component variables (a `find_library` that found nothing, passed on);
- `ns::name` entries of an imported target's INTERFACE_LINK_LIBRARIES naming no target
  that exists after the find_package (CMake's generate step fails for every consumer);
- what it creates in the consumer's own project: non-IMPORTED targets, and cache
  entries (find_package's own `<pkg>_DIR` for this and nested packages, and the
  INTERNAL/STATIC entries CMake's modules keep, excluded).

CMake names no line for the last two: the line is the first one of the config's own
files that names the missing target or the NOTFOUND variable (the `find_library` or
`set_target_properties` a maintainer reads), else the config file itself.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from shiplint.cmake_eval.model import ConfigDiagnostic, DiagnosticKind
from shiplint.cmake_eval.results import PathMapper, cmake_list
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass

# "CMake Warning at <file>:<line> (message):" then the text indented by two spaces.
_WARNING = re.compile(
    r"^CMake Warning at (?P<file>.+?):(?P<line>\d+) \(message\):[ \t]*\n"
    r"(?P<body>(?:[ \t]*\n|  .*\n?)*)",
    re.MULTILINE,
)
_STACK = re.compile(r"Call Stack \(most recent call first\):[ \t]*\n(?P<frames>(?:  \S.*\n?)*)")
_MAIN_FRAME = re.compile(r"(?:^|/)main/CMakeLists\.txt:\d+")
# A target name with a namespace, as install(EXPORT ... NAMESPACE) and ALIAS write them.
NOTFOUND = "-NOTFOUND"
_SHOWN = 160


@dataclass(frozen=True)
class ConfigText:
    """The config's own files (and the other packages' beside it), as member paths and
    lines, to find where a name is written. Read on first use: most evaluations have
    nothing to locate."""

    read: Callable[[], Iterable[tuple[str, tuple[str, ...]]]]
    fallback: Location
    locate: Callable[[str], Location]

    @functools.cached_property
    def files(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple(self.read())

    def line_naming(
        self, name: str, together: str | None = None, prefer: re.Pattern[str] | None = None
    ) -> Location:
        """The first line of the first command naming `name` (and `together`, the target
        whose property names it, or matching `prefer`, when a command does), else of the
        first command naming it, else the config file."""
        first: Location | None = None
        for member, lines in self.files:
            starts = _command_starts(lines)
            commands: dict[int, list[str]] = {}
            for index, line in enumerate(lines):
                commands.setdefault(starts[index], []).append(line.split("#", 1)[0])
            for start, parts in commands.items():
                text = "\n".join(parts)
                if not _word(name).search(text):
                    continue
                # CMake names a command by its first line (`set_target_properties(`
                # three lines above the INTERFACE_LINK_LIBRARIES it sets).
                here = self.locate(member).at(start + 1)
                if together is not None and _word(together).search(text):
                    return here
                if prefer is not None and prefer.search(text):
                    return here
                if together is None and prefer is None:
                    return here
                first = first or here
        return first or self.fallback


def _word(name: str) -> re.Pattern[str]:
    """`name` not inside a longer name (`x::dep::core`, `dep::core_extra`)."""
    return re.compile(rf"(?<![A-Za-z0-9_])(?<!::){re.escape(name)}(?![A-Za-z0-9_]|::)")


def _command_starts(lines: tuple[str, ...]) -> list[int]:
    """For each line, the index of the line its command starts on: commands span lines
    while their parentheses are open (quoted text and comments do not count)."""
    starts: list[int] = []
    depth = 0
    start = 0
    # A quoted argument may span lines.
    quoted = False
    for index, line in enumerate(lines):
        if depth == 0 and not quoted:
            start = index
        starts.append(start)
        previous = ""
        for char in line:
            if quoted:
                quoted = not (char == '"' and previous != "\\")
            elif char == '"':
                quoted = True
            elif char == "#":
                break
            elif char == "(":
                depth += 1
            elif char == ")" and depth:
                depth -= 1
            previous = char
    return starts


def config_text(
    files: Callable[[], Iterable[tuple[Path, bytes]]],
    mapper: PathMapper,
    fallback: Location,
    locate: Callable[[str], Location],
) -> ConfigText:
    def read() -> Iterator[tuple[str, tuple[str, ...]]]:
        seen: set[str] = set()
        for path, data in files():
            member = mapper.member(str(path))
            if member is not None and member not in seen:
                seen.add(member)
                yield member, tuple(data.decode("utf-8", "replace").splitlines())

    return ConfigText(read, fallback, locate)


def warnings(
    stderr: str, mapper: PathMapper, locate: Callable[[str], Location]
) -> Iterator[ConfigDiagnostic]:
    """The config's own message(WARNING) calls of the plain evaluation, where CMake says."""
    for match in _WARNING.finditer(stderr):
        stack = _STACK.match(stderr, match.end())
        frames = stack.group("frames").splitlines() if stack is not None else []
        if not any(_MAIN_FRAME.search(frame.strip()) for frame in frames):
            continue
        member = mapper.member(match.group("file"))
        if member is None:
            continue  # CMake's own modules, or the probe: not the config's words
        body = " ".join(part.strip() for part in match.group("body").splitlines() if part.strip())
        yield ConfigDiagnostic(
            DiagnosticKind.WARNING,
            "",
            mapper.text(body)[:_SHOWN] or "(no message)",
            locate(member).at(int(match.group("line"))),
        )


def notfound_properties(
    records: Iterable[Mapping[str, str]], text: ConfigText
) -> Iterator[ConfigDiagnostic]:
    """Imported targets' properties holding a `*-NOTFOUND` value (probe key NOTFOUND:
    `PROPERTY=value` items)."""
    for record in records:
        for item in cmake_list(record.get("NOTFOUND", "")):
            prop, _, value = item.partition("=")
            found = [v for v in cmake_list(value) if v.endswith(NOTFOUND)]
            culprit = found[0][: -len(NOTFOUND)] if found else record["name"]
            yield ConfigDiagnostic(
                DiagnosticKind.NOTFOUND_PROPERTY,
                record["name"],
                f"{prop}={value}"[:_SHOWN],
                text.line_naming(culprit),
            )


def notfound_variables(
    variables: Mapping[str, tuple[bool, str]], names: Iterable[str], text: ConfigText
) -> Iterator[ConfigDiagnostic]:
    """Aggregate and component variables with a `*-NOTFOUND` entry."""
    for name in names:
        defined, value = variables.get(name, (False, ""))
        if not defined:
            continue
        for entry in cmake_list(value):
            if entry.endswith(NOTFOUND):
                yield ConfigDiagnostic(
                    DiagnosticKind.NOTFOUND_VARIABLE,
                    name,
                    entry,
                    text.line_naming(entry[: -len(NOTFOUND)]),
                )


def missing_link_targets(
    records: Iterable[Mapping[str, str]], text: ConfigText
) -> Iterator[ConfigDiagnostic]:
    """`ns::name` link items of imported targets that are no target after the find_package
    (CMake's own `if(TARGET)`, asked by the probe: probe key MISSING)."""
    for record in records:
        for name in dict.fromkeys(cmake_list(record.get("MISSING", ""))):
            yield ConfigDiagnostic(
                DiagnosticKind.MISSING_LINK_TARGET,
                record["name"],
                name,
                text.line_naming(name, together=record["name"]),
            )


# The commands that write a cache entry (not `unset(<var> CACHE)`, which clears one).
_CACHING = re.compile(r"^\s*(?:find_\w+|option)\s*\(|^\s*set\s*\([^)]*\bCACHE\b", re.MULTILINE)
# find_package's help text for the <pkg>_DIR entry it caches.
_PACKAGE_DIR_HELP = "The directory containing a CMake configuration file for "


def created(path: Path, mapper: PathMapper) -> list[dict[str, str]]:
    """The probe's `own_target` and `cache` records of the plain evaluation."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            record = json.loads(line, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and record.get("k") in ("own_target", "cache"):
            out.append({str(k): mapper.text(str(v)) for k, v in record.items()})
    return out


def created_in_project(
    records: Iterable[Mapping[str, str]], package: str, text: ConfigText
) -> Iterator[ConfigDiagnostic]:
    """Non-IMPORTED targets and cache entries the config added to the consumer's project."""
    for record in records:
        name = record.get("name", "")
        if record.get("k") == "own_target":
            yield ConfigDiagnostic(
                DiagnosticKind.OWN_TARGET,
                name,
                record.get("type", ""),
                text.line_naming(name),
            )
            continue
        kind = record.get("type", "")
        if (
            name == f"{package}_DIR"
            or kind in ("INTERNAL", "STATIC")
            or record.get("help", "").startswith(_PACKAGE_DIR_HELP)
        ):
            continue
        yield ConfigDiagnostic(
            DiagnosticKind.CACHE_ENTRY,
            name,
            _cached(kind, record.get("value", "")),
            text.line_naming(name, prefer=_CACHING),
        )


def _cached(kind: str, value: str) -> str:
    """The entry's type and value; a value outside the package (the host's interpreter,
    a temporary directory) is described rather than quoted, so findings stay the same
    from one machine to the next."""
    if value.startswith("/"):
        return f"{kind}, a path outside the package"
    return f"{kind} {value}"[:_SHOWN] if value else f"{kind}, empty"


def diagnose(
    stderr: str,
    variables: Mapping[str, tuple[bool, str]],
    records: Iterable[Mapping[str, str]],
    published: Iterable[str],
    made: Iterable[Mapping[str, str]],
    package: str,
    text: ConfigText,
    mapper: PathMapper,
) -> tuple[ConfigDiagnostic, ...]:
    """Every diagnostic of the plain evaluation, in the order a maintainer reads them."""
    listed = list(records)
    return (
        *warnings(stderr, mapper, text.locate),
        *notfound_properties(listed, text),
        *notfound_variables(variables, published, text),
        *missing_link_targets(listed, text),
        *created_in_project(made, package, text),
    )
