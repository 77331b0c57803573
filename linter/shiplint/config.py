"""`[tool.shiplint]` in pyproject.toml: read, schema-checked, with line numbers on errors."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shiplint.codes import rule_codes, unknown_patterns
from shiplint.diagnostics import Severity
from shiplint.manifest.errors import InputError, Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


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
    fail_on: Severity = Severity.ERROR
    link_probe: bool = False
    cmake_timeout: float = 60.0


def load_config(root: Path) -> Config:
    """The config of the project at `root`; a default Config when it has none."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return Config()
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_error_position(exc)
        raise InputError([Problem(label, line, column, "", f"invalid TOML: {exc}")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([Problem(label, 1, 1, "", f"cannot read: {exc}")]) from None
    table = data.get("tool", {}).get("shiplint")
    if table is None:
        return Config()
    problems = _problems(table, text, label)
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
        cmake_line=_key_line(text, "cmake"),
        fail_on=Severity.parse(table.get("fail-on", "error")),
        link_probe=bool(table.get("link-probe", False)),
        cmake_timeout=float(table.get("cmake-timeout", 60.0)),
    )


def _problems(table: dict[str, Any], text: str, label: str) -> list[Problem]:
    import jsonschema

    from shiplint.resources import schema_path

    schema = __import__("json").loads(schema_path("config.schema.json").read_text("utf-8"))
    problems: list[Problem] = []
    for error in jsonschema.Draft202012Validator(schema).iter_errors(table):
        path = list(error.absolute_path)
        if error.validator == "additionalProperties":
            for key in sorted(set(table) - set(schema["properties"])):
                line = _key_line(text, key)
                problems.append(
                    Problem(label, line, 1, f"tool.shiplint.{key}", f"unknown key {key!r}")
                )
            continue
        key = str(path[0]) if path else ""
        problems.append(
            Problem(
                label, _key_line(text, key), 1, f"tool.shiplint.{key}".rstrip("."), error.message
            )
        )
    for field in ("select", "ignore"):
        values = table.get(field, []) if isinstance(table.get(field), list) else []
        for value in unknown_patterns((v for v in values if isinstance(v, str)), rule_codes()):
            problems.append(
                Problem(
                    label,
                    _key_line(text, field),
                    1,
                    f"tool.shiplint.{field}",
                    f"unknown rule code {value!r} (see `shiplint rules`)",
                )
            )
    return problems


def _key_line(text: str, key: str) -> int:
    """The line of `key` inside the [tool.shiplint] table (tomllib keeps no positions)."""
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(r"\s*\[tool\.shiplint\]\s*(#.*)?$", line)),
        None,
    )
    if start is None:
        return 1
    pattern = re.compile(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for i in range(start + 1, len(lines)):
        if re.match(r"\s*\[", lines[i]):
            break
        if pattern.match(lines[i]):
            return i + 1
    return start + 1


def _toml_error_position(exc: Exception) -> tuple[int, int]:
    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    if line is None:
        match = re.search(r"line (\d+), column (\d+)", str(exc))
        if match:
            return int(match.group(1)), int(match.group(2))
        return 1, 1
    return int(line), int(column or 1)
