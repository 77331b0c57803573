"""Every field of the manifest schema reaches the frozen model.

A field added to schemas/manifest.schema.json but not read by manifest/load.py is
accepted and silently ignored; no other test notices. Here the schema itself lists the
fields: every property at every depth must be set in one fixture manifest, and changing
that one value (to another the schema accepts) must change the model the loader builds.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shiplint.diagnostics import Location
from shiplint.manifest.load import build_manifest, load_manifest
from shiplint.manifest.model import Manifest
from shiplint.manifest.validate import schema_problems
from shiplint.manifest.yamldoc import Document, parse_yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "schemas" / "manifest.schema.json"
FIXTURE = Path(__file__).parent / "fixtures" / "manifest_fields" / "shiplint.yaml"

# A schema field in the notation below: keys, "[]" for an array's items, "{}" for the
# values of a mapping with free keys, "{key}" for such a key itself.
Field = tuple[str, ...]

# Fields that need not reach the model, each with why.
EXCEPTIONS: dict[Field, str] = {
    ("$schema",): "read by editors to find the schema; the linter has no use for it",
    ("version",): "a const (1): there is no other valid value; the schema refuses any other",
    # Prose for the manifest's reader; no check or report says it.
    ("package", "description"): "prose for the reader; nothing reports it",
    ("libraries", "[]", "description"): "prose for the reader; nothing reports it",
    ("cmake", "other_packages", "[]", "description"): "prose for the reader; nothing reports it",
    ("cmake", "request_sets", "[]", "description"): "prose for the reader; nothing reports it",
}

# Other valid platform selectors, for the mapping keys of `libraries[].platforms`.
_SELECTORS = ("windows-x86", "macos-arm64", "linux-riscv64")


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].removeprefix("#/$defs/")
        node = schema["$defs"][name]
    return node


def _schema_fields(
    schema: dict[str, Any], node: dict[str, Any], at: Field
) -> Iterator[tuple[Field, dict[str, Any]]]:
    """Every field under `node`, with its (resolved) schema. `if`/`then` and
    `dependentSchemas` only restrict fields the `properties` already declare."""
    node = _resolve(schema, node)
    for key, child in node.get("properties", {}).items():
        yield (*at, key), _resolve(schema, child)
        yield from _schema_fields(schema, child, (*at, key))
    if isinstance(node.get("items"), dict):
        yield from _schema_fields(schema, node["items"], (*at, "[]"))
    if isinstance(node.get("additionalProperties"), dict):
        yield (*at, "{key}"), _resolve(schema, node.get("propertyNames", {}))
        yield from _schema_fields(schema, node["additionalProperties"], (*at, "{}"))
    for combinator in ("oneOf", "anyOf", "allOf"):
        for alternative in node.get(combinator, []):
            yield from _schema_fields(schema, alternative, at)


@functools.cache
def _schema() -> tuple[dict[str, Any], dict[Field, dict[str, Any]]]:
    schema = json.loads(SCHEMA_PATH.read_text())
    return schema, dict(_schema_fields(schema, schema, ()))


# A place in the document: its path (keys and indexes), and whether the mapping key
# itself is meant rather than its value.
Place = tuple[tuple[str | int, ...], bool]


def _document_places(
    data: Any, at: tuple[str | int, ...], field: Field
) -> Iterator[tuple[Field, Place]]:
    """Every place in the document, under the schema's name for it. Under a mapping with
    free keys (`platforms`) the keys are "{key}" and their values "{}"."""
    if isinstance(data, dict):
        _, fields = _schema()
        free = isinstance(fields.get(field, {}).get("additionalProperties"), dict)
        for key, value in data.items():
            if free:
                yield (*field, "{key}"), ((*at, key), True)
                yield from _document_places(value, (*at, key), (*field, "{}"))
            else:
                yield (*field, key), ((*at, key), False)
                yield from _document_places(value, (*at, key), (*field, key))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _document_places(item, (*at, i), (*field, "[]"))


def _base() -> Document:
    return parse_yaml(FIXTURE.read_text(), str(FIXTURE))


def _candidates(value: Any, schema: dict[str, Any]) -> list[Any]:
    """Other values for a field, likely valid; the schema picks among them."""
    if "enum" in schema:
        return [other for other in schema["enum"] if other != value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if isinstance(value, str):
        # Appended, prepended, or the last digit changed (SL305, 3.28, fieldpkg::).
        bumped = re.sub(r"(\d)(\D*)$", lambda m: f"{(int(m[1]) + 1) % 10}{m[2]}", value)
        return [value + "x", "x" + value, bumped]
    return []


def _leaf(data: Any, path: tuple[str | int, ...]) -> tuple[Any, tuple[str | int, ...]]:
    """The scalar at `path`, or the first item of the list of scalars there."""
    node = data
    for step in path:
        node = node[step]
    if isinstance(node, list) and node and not isinstance(node[0], (dict, list)):
        return node[0], (*path, 0)
    return node, path


def _replace(data: Any, path: tuple[str | int, ...], value: Any, key: bool) -> Any:
    changed = copy.deepcopy(data)
    parent = changed
    for step in path[:-1]:
        parent = parent[step]
    if key:
        # Same position in the mapping, another key.
        items = [(value if k == path[-1] else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
    else:
        parent[path[-1]] = value
    return changed


def _canonical(value: Any) -> Any:
    """The model as plain values, without positions: what a check can read."""
    if isinstance(value, Location):
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(
            (f.name, _canonical(getattr(value, f.name))) for f in dataclasses.fields(value)
        )
    if isinstance(value, (tuple, list)):
        return tuple(_canonical(item) for item in value)
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _model(document: Document) -> Manifest:
    # The schema decides validity; the cross-field checks are left out, since a changed
    # name is then unknown elsewhere: what is asked here is whether the builder reads it.
    problems = schema_problems(document, "manifest.schema.json")
    assert not problems, problems
    return build_manifest(document)


def test_fixture_loads_with_the_real_loader() -> None:
    loaded = load_manifest(FIXTURE)
    assert _canonical(loaded) == _canonical(_model(_base()))


def test_fixture_sets_every_schema_field() -> None:
    _, fields = _schema()
    base = _base()
    present = {field for field, _ in _document_places(base.data, (), ())}
    missing = sorted(set(fields) - present - set(EXCEPTIONS))
    assert not missing, f"set these fields in {FIXTURE.relative_to(ROOT)}: {missing}"
    assert set(EXCEPTIONS) <= set(fields), "an exception names no schema field"


def _scalar_fields() -> list[Field]:
    """The fields that hold a value (or a list of values), not entries of their own."""
    _, fields = _schema()
    return sorted(
        field
        for field, node in fields.items()
        if field not in EXCEPTIONS
        and (
            node.get("type") in ("string", "integer", "boolean")
            or "enum" in node
            or field[-1] == "{key}"
            or (node.get("type") == "array" and _scalar_items(node))
        )
    )


def _scalar_items(node: dict[str, Any]) -> bool:
    schema, _ = _schema()
    items = _resolve(schema, node["items"])
    alternatives = [_resolve(schema, a) for a in items.get("oneOf", [items])]
    return any(a.get("type") == "string" for a in alternatives)


@pytest.mark.parametrize("field", _scalar_fields(), ids=lambda f: ".".join(f))
def test_field_reaches_the_model(field: Field) -> None:
    _, fields = _schema()
    base = _base()
    before = _canonical(_model(base))
    tried: list[Any] = []
    for found, (path, key) in _document_places(base.data, (), ()):
        if found != field:
            continue
        if key:
            current, where = path[-1], path
            options: list[Any] = [s for s in _SELECTORS if s != current]
        else:
            current, where = _leaf(base.data, path)
            if isinstance(current, (dict, list)):
                continue  # an entry of an alternative (externals.system's {policy}).
            schema = fields[field]
            if schema.get("type") == "array":
                items = schema.get("items", {})
                schema = items if "enum" in items else {}
            options = _candidates(current, schema)
        for option in options:
            changed = Document(
                base.file, _replace(base.data, where, option, key), base.marks, base.key_marks
            )
            if schema_problems(changed, "manifest.schema.json"):
                tried.append(option)
                continue
            after = _canonical(build_manifest(changed))
            assert after != before, (
                f"{'.'.join(field)}: {current!r} -> {option!r} leaves the model unchanged: "
                "manifest/load.py does not read it"
            )
            return
    pytest.fail(f"{'.'.join(field)}: no valid other value (tried {tried}); extend _candidates")
