"""Read what the probe wrote (JSON lines) and, when the run failed, CMake's own error.

Paths inside the temporary tree are turned back into member paths, so models
never carry a temporary directory name.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass

# "CMake Error at <file>:<line> (<command>):" then the message indented by two spaces.
_ERROR = re.compile(
    r"^CMake Error(?: at (?P<file>.+?):(?P<line>\d+)(?: \((?P<cmd>[^)]*)\))?)?:[ \t]*\n?"
    r"(?P<body>(?:[ \t]*\n|  .*\n?)*)",
    re.MULTILINE,
)


@dataclass
class Raw:
    """The probe's answer for one subdirectory, before resolution."""

    variables: dict[str, tuple[bool, str]] = field(default_factory=dict)
    targets: list[dict[str, str]] = field(default_factory=list)
    present: bool = False
    # A request's own records around its answer: begun and not ended, the run stopped
    # inside it (a fatal error).
    begun: bool = False
    ended: bool = False


class PathMapper:
    """Turns absolute paths in the temporary tree back into member paths."""

    def __init__(self, root: Path, scratch: Path | None = None) -> None:
        prefixes = {str(root), str(root.resolve())}
        self._prefixes = sorted((p.rstrip("/") + "/" for p in prefixes), key=len, reverse=True)
        # The run's own temporary directory (probe, build tree) outside the laid-out tree:
        # named as such in messages, never by its random temporary path.
        scratches = {str(scratch), str(scratch.resolve())} if scratch is not None else set()
        self._scratch = sorted((p.rstrip("/") + "/" for p in scratches), key=len, reverse=True)

    def member(self, path: str) -> str | None:
        for prefix in self._prefixes:
            if path.startswith(prefix):
                return path[len(prefix) :]
        return None

    def text(self, text: str) -> str:
        """`text` with every tree path made a normalised member path."""
        # Most values name no path of the run's (a probe reads back a thousand of them):
        # a text without the prefix is left as it is, without a regular expression.
        for prefix in self._prefixes:
            if prefix in text:
                pattern = re.escape(prefix) + r"([^,;\"\s]*)"
                text = re.sub(pattern, lambda m: posixpath.normpath(m.group(1) or "."), text)
        for prefix in self._scratch:
            if prefix in text:
                pattern = re.escape(prefix) + r"([^,;\"\s]*)"
                text = re.sub(
                    pattern, lambda m: f"<probe>/{posixpath.normpath(m.group(1) or '.')}", text
                )
        return text


# The probe writes a few kilobytes; a config can make a variable gigabytes long.
MAX_RESULT_BYTES = 16 * 1024 * 1024


def read_results(path: Path, mapper: PathMapper) -> Raw:
    raw = Raw()
    if not path.is_file():
        return raw
    raw.present = True
    with path.open("rb") as stream:
        data = stream.read(MAX_RESULT_BYTES)
    # Records end at "\n" only: a value may hold a form feed, U+2028 or a lone "\r", which
    # str.splitlines() would take for line ends. A record cut by the size bound is dropped.
    for line in data.decode("utf-8", errors="replace").split("\n"):
        record = _record(line)
        if record is None:
            continue
        if record.get("k") == "var":
            name, value = record.get("name"), record.get("value")
            if isinstance(name, str) and isinstance(value, str):
                raw.variables[name] = (bool(record.get("defined")), mapper.text(value))
        elif record.get("k") == "begin":
            raw.begun = True
        elif record.get("k") == "end":
            raw.ended = True
        elif record.get("k") == "target" and isinstance(record.get("name"), str):
            raw.targets.append({k: mapper.text(str(v)) for k, v in record.items() if k != "k"})
    return raw


def _record(line: str) -> dict[str, Any] | None:
    """One probe record, or None for a blank, cut or malformed line."""
    if not line.strip():
        return None
    try:
        # strict=False: a config may put control characters in a value.
        record = json.loads(line, strict=False)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def cmake_list(value: str) -> tuple[str, ...]:
    """A CMake list's items (`;`-separated, `\\;` kept), empty items dropped as CMake does."""
    if "\\" not in value and "$<" not in value:
        # Nearly every value (paths, names, link lists): nothing escaped, no generator
        # expression, so every `;` splits.
        return tuple(item for item in value.split(";") if item)
    items: list[str] = []
    current = ""
    depth = 0
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and value[index + 1 : index + 2] == ";":
            current += ";"
            index += 2
            continue
        # A generator expression's `;` does not split ($<...;...>).
        if value.startswith("$<", index):
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        if char == ";" and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
        index += 1
    items.append(current)
    return tuple(i for i in items if i)


# The frames under an error: "Call Stack (most recent call first):" then "  <file>:<line> (<cmd>)".
_STACK = re.compile(r"Call Stack \(most recent call first\):[ \t]*\n(?P<frames>(?:  \S.*\n?)*)")
# A frame in one of the probe's request directories (request_<i>, request_<i>_<position>).
_REQUEST_FRAME = re.compile(r"(?:^|/)(?P<sub>request_\d+(?:_\d+)?)/CMakeLists\.txt:\d+")


@dataclass(frozen=True)
class CMakeError:
    message: str
    file: str | None
    line: int | None
    # The probe's request directory the error arose under, when one is on its call stack.
    request: str | None = None


def first_error(stderr: str) -> CMakeError | None:
    found = cmake_errors(stderr)
    return found[0] if found else None


def cmake_errors(stderr: str) -> list[CMakeError]:
    """Every `CMake Error` CMake printed, in order, each with the probe request (if any)
    its call stack starts from."""
    out = []
    for match in _ERROR.finditer(stderr):
        body = " ".join(part.strip() for part in match.group("body").splitlines() if part.strip())
        line = match.group("line")
        request = None
        stack = _STACK.match(stderr, match.end())
        frames = [match.group("file") or ""]
        if stack is not None:
            frames += stack.group("frames").splitlines()
        for frame in frames:
            found = _REQUEST_FRAME.search(frame.strip())
            if found is not None:
                request = found.group("sub")
        out.append(
            CMakeError(
                body or "(no message)", match.group("file"), int(line) if line else None, request
            )
        )
    return out


def error_location(
    error: CMakeError,
    mapper: PathMapper,
    probe: Path,
    fallback: Location,
    locate: Callable[[str], Location],
) -> Location:
    """Where the error points, as the user sees the file (member or repo path)."""
    if error.file is None:
        return fallback
    absolute = error.file if error.file.startswith("/") else str(probe / error.file)
    member = mapper.member(absolute)
    if member is None:
        # The probe's own find_package call: the config is what failed.
        return fallback
    return locate(member).at(error.line)
