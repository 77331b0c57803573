"""Schema validation of a parsed document, with errors mapped back to YAML positions."""

from __future__ import annotations

import functools
import re
from typing import Any

from shiplint.diagnostics import Location
from shiplint.manifest.errors import Problem, json_path
from shiplint.manifest.yamldoc import Document
from shiplint.plural import counted
from shiplint.resources import schema_path
from shiplint.suggest import did_you_mean


@functools.cache
def _validator(schema_file: str) -> Any:
    import json

    import jsonschema

    schema = json.loads(schema_path(schema_file).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def schema_problems(doc: Document, schema_file: str) -> list[Problem]:
    problems: list[Problem] = []
    errors = sorted(_validator(schema_file).iter_errors(doc.data), key=lambda e: e.json_path)
    for error in errors:
        path = tuple(error.absolute_path)
        extra = _unexpected_keys(error)
        if extra:
            known = error.schema.get("properties", {})
            for key in extra:
                line, column = doc.key_marks.get((*path, key), doc.mark(path))
                message = f"unknown key {brief(key)}{did_you_mean(key, known)}"
                problems.append(Problem(Location(doc.file, line, column), json_path(path), message))
            continue
        line, column = doc.mark(path)
        problems.append(Problem(Location(doc.file, line, column), json_path(path), _message(error)))
    return problems


def _unexpected_keys(error: Any) -> list[str]:
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    known = set(error.schema.get("properties", {}))
    patterns = list(error.schema.get("patternProperties", {}))
    return [
        k for k in error.instance if k not in known and not any(re.search(p, k) for p in patterns)
    ]


def _message(error: Any) -> str:
    if error.validator == "required":
        return str(error.message).replace("is a required property", "is required")
    if error.validator == "pattern":
        return f"{brief(error.instance)} does not match the expected form ({error.schema.get('$comment', error.validator_value)})"
    message, quoted = str(error.message), repr(error.instance)
    if message.startswith(quoted):
        # jsonschema quotes the whole value: a file's worth of text when the document is one.
        return brief(error.instance) + message[len(quoted) :]
    return message


def brief(value: Any, limit: int = 60) -> str:
    """`value` as messages quote it: a short repr, a long one cut with its length."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    if isinstance(value, (dict, list)) and len(repr(value)) > limit:
        return (
            f"a {'mapping' if isinstance(value, dict) else 'list'} of {counted(len(value), 'item')}"
        )
    return repr(value)
