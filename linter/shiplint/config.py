"""`[tool.shiplint]` in pyproject.toml: read, schema-checked, with line numbers on errors.

The table of a pyproject.toml read before comes from the user cache (keyed by the
file's bytes and Python's version, whose tomllib parsed it), so a hook run on an
unchanged project imports no TOML parser; it is checked again on every run.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

from shiplint.codes import rule_codes, unknown_patterns
from shiplint.diagnostics import Location, Severity, parse_fail_on
from shiplint.fastclass import dataclass
from shiplint.manifest.errors import InputError, Problem
from shiplint.memo import Memo, constant
from shiplint.plural import counted
from shiplint.suggest import did_you_mean


@dataclass(frozen=True)
class Config:
    # Where the config came from (for messages); None when there was none.
    source: str | None = None
    manifest: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    # Paths made absolute against the pyproject.toml's directory; bare names stay names.
    cmake: tuple[str, ...] = ()
    # The line `cmake` is written on, for the message about an unusable entry.
    cmake_line: int = 1
    # None: findings never fail the run (fail-on = "none").
    fail_on: Severity | None = Severity.ERROR
    link_probe: bool = False
    header_probe: bool = False
    # None: the run's defaults (request.EVALUATION_TIMEOUT, BUILD_TIMEOUT).
    cmake_timeout: float | None = None


# A pyproject.toml is a few kilobytes; a bigger one is not read (nor a FIFO or a device).
MAX_BYTES = 4 * 1024 * 1024
# [tool.shiplint] holds flat values and lists of strings: nothing real nests deeper.
MAX_DEPTH = 8
# Problems of one kind listed before the rest are counted instead.
MAX_LISTED = 20


def load_config(root: Path) -> Config:
    """The config of the project at `root`; a default Config when it has none."""
    path = root / "pyproject.toml"
    if not path.exists() and not path.is_symlink():
        return Config()
    label = str(path)
    text = _read(path, label)
    table = _table(text, label)
    if table is None:
        return Config()
    problems = _problems(table, text, label) or _manifest_problems(root, table, text, label)
    if problems:
        raise InputError(problems)
    from shiplint.cmake_eval.cmake_binary import located

    manifest = table.get("manifest")
    return Config(
        source=label,
        manifest=(root / manifest) if manifest else None,
        select=tuple(table.get("select", ())),
        ignore=tuple(table.get("ignore", ())),
        cmake=tuple(located(name, path.parent) for name in table.get("cmake", ())),
        cmake_line=_key_lines(text).get("cmake", 1),
        fail_on=parse_fail_on(table.get("fail-on", "error")),
        link_probe=bool(table.get("link-probe", False)),
        header_probe=bool(table.get("header-probe", False)),
        cmake_timeout=float(table["cmake-timeout"]) if "cmake-timeout" in table else None,
    )


def _table(text: str, label: str) -> dict[str, Any] | None:
    """The [tool.shiplint] table of the file's text, None without one; InputError for a
    file that is not TOML or whose `tool` or `tool.shiplint` is not a table."""
    return _TABLES.through(lambda: _parsed_table(text, label), text.encode("utf-8"))


def _table_or_none(stored: Any) -> dict[str, Any] | None:
    if stored is None or isinstance(stored, dict):
        return stored
    raise TypeError("not a table")


# Kept per file text and interpreter (what tomllib is); checked again like a fresh parse.
_TABLES: Memo[dict[str, Any] | None] = Memo(
    "pyproject-table", constant(sys.version.encode()), decode=_table_or_none
)


def _parsed_table(text: str, label: str) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_error_position(exc)
        raise InputError(
            [Problem(Location(label, line, column), "", f"invalid TOML: {exc}")]
        ) from None
    except RecursionError:
        raise InputError(
            [Problem(Location(label, 1, 1), "", "invalid TOML: nested too deeply")]
        ) from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise InputError(
            [Problem(Location(label, _line_of(text, "tool"), 1), "tool", "tool is not a table")]
        )
    table = tool.get("shiplint")
    if table is None:
        return None
    if not isinstance(table, dict):
        line = _line_of(text, "shiplint")
        raise InputError(
            [
                Problem(
                    Location(label, line, 1), "tool.shiplint", "[tool.shiplint] must be one table"
                )
            ]
        )
    return table


def _read(path: Path, label: str) -> str:
    """The file's text; only a regular file of bounded size is opened."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(
            [Problem(Location(label, 1, 1), "", f"cannot read: {exc.strerror}")]
        ) from None
    if not path.is_file():
        raise InputError([Problem(Location(label, 1, 1), "", "cannot read: not a regular file")])
    if size > MAX_BYTES:
        message = (
            f"cannot read: {size:,} bytes, more than the {MAX_BYTES:,} a pyproject.toml may be"
        )
        raise InputError([Problem(Location(label, 1, 1), "", message)])
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(
            [Problem(Location(label, 1, 1), "", f"cannot read: {exc.strerror}")]
        ) from None
    except UnicodeDecodeError as exc:
        message = f"cannot read: not UTF-8 text (byte 0x{exc.object[exc.start]:02x})"
        raise InputError([Problem(Location(label, 1, 1), "", message)]) from None


def _depth(value: object) -> int:
    """How deeply lists and tables nest in `value` (iterative: the input may be 5,000 deep)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, depth = todo.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(item, dict):
            todo.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            todo.extend((child, depth + 1) for child in item)
    return deepest


def _problems(table: dict[str, Any], text: str, label: str) -> list[Problem]:
    import jsonschema

    from shiplint.resources import schema_path

    lines = _key_lines(text)
    top = lines.get("", 1)
    if _depth(table) > MAX_DEPTH:
        message = f"values nest deeper than {MAX_DEPTH} levels"
        return [Problem(Location(label, top, 1), "tool.shiplint", message)]
    schema = __import__("json").loads(schema_path("config.schema.json").read_text("utf-8"))
    problems: list[Problem] = []
    for error in jsonschema.Draft202012Validator(schema).iter_errors(table):
        path = list(error.absolute_path)
        if error.validator == "additionalProperties":
            unknown = sorted(set(table) - set(schema["properties"]))
            for key in unknown[:MAX_LISTED]:
                where = f"tool.shiplint.{_brief(key)}"
                message = f"unknown key {_brief(key)!r}{did_you_mean(key, schema['properties'])}"
                problems.append(Problem(Location(label, lines.get(key, top), 1), where, message))
            if len(unknown) > MAX_LISTED:
                message = f"and {counted(len(unknown) - MAX_LISTED, 'more unknown key')}"
                problems.append(Problem(Location(label, top, 1), "tool.shiplint", message))
            continue
        key = str(path[0]) if path else ""
        where = f"tool.shiplint.{_brief(key)}".rstrip(".")
        problems.append(
            Problem(Location(label, lines.get(key, top), 1), where, _brief(error.message, 200))
        )
    timeout = table.get("cmake-timeout")
    if isinstance(timeout, float) and not math.isfinite(timeout):
        # The schema's bounds compare false with nan and let it through.
        where = "tool.shiplint.cmake-timeout"
        message = f"{timeout} is not a number of seconds"
        problems.append(
            Problem(Location(label, lines.get("cmake-timeout", top), 1), where, message)
        )
    for field in ("select", "ignore"):
        values = table.get(field, []) if isinstance(table.get(field), list) else []
        for value in unknown_patterns((v for v in values if isinstance(v, str)), rule_codes()):
            problems.append(
                Problem(
                    Location(label, lines.get(field, top), 1),
                    f"tool.shiplint.{field}",
                    f"unknown rule code {_brief(value)!r} (see `shiplint rules`)",
                )
            )
    return problems


def _manifest_problems(root: Path, table: dict[str, Any], text: str, label: str) -> list[Problem]:
    """`manifest` names a file inside the project: the config never has shiplint read (and
    quote in its errors) a file outside the tree it checks."""
    manifest = table.get("manifest")
    if not isinstance(manifest, str):
        return []
    line = _key_lines(text).get("manifest", 1)
    where = "tool.shiplint.manifest"
    if any(ord(c) < 32 or c == "\x7f" for c in manifest):
        return [
            Problem(
                Location(label, line, 1), where, f"{_brief(manifest)!r} holds a control character"
            )
        ]
    try:
        (root / manifest).resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        message = f"{_brief(manifest)!r} is outside the project at {root}"
        return [Problem(Location(label, line, 1), where, message)]
    return []


def _brief(text: str, limit: int = 60) -> str:
    """`text` cut to `limit` characters: messages quote what they read, never all of it."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


_TABLE = re.compile(r"\s*\[")
_SHIPLINT = re.compile(r"\s*\[tool\.shiplint\]\s*(#.*)?$")
_KEY = re.compile(r"\s*(?:\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_-]+))\s*=")


def _key_lines(text: str) -> dict[str, int]:
    """The line of each key of the [tool.shiplint] table (tomllib keeps no positions), and of
    the table itself under "". One pass: a table may have thousands of keys."""
    found: dict[str, int] = {}
    inside = False
    for number, line in enumerate(text.split("\n"), start=1):
        if _SHIPLINT.match(line):
            inside = True
            found.setdefault("", number)
        elif _TABLE.match(line):
            inside = False
        elif inside and (match := _KEY.match(line)):
            found.setdefault(next(g for g in match.groups() if g is not None), number)
    return found


def _line_of(text: str, word: str) -> int:
    return next((n for n, line in enumerate(text.split("\n"), 1) if word in line), 1)


def _toml_error_position(exc: Exception) -> tuple[int, int]:
    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    if line is None:
        match = re.search(r"line (\d+), column (\d+)", str(exc))
        if match:
            return int(match.group(1)), int(match.group(2))
        return 1, 1
    return int(line), int(column or 1)
