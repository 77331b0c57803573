"""Which documents a schema has already accepted, remembered in the user cache.

A pre-commit hook loads the same manifest on every commit; validating it again
costs more than the rest of a sources run (jsonschema and its dependencies alone
take a tenth of a second to import). A document is known valid when this
shiplint version accepted these exact bytes under this exact schema before; any
edit to either is a new key, so nothing goes stale. Only acceptance is
remembered: a document with problems is validated again to report them.
"""

from __future__ import annotations

from shiplint import cache
from shiplint.resources import schema_path

_KIND = "validated"
_VALID = b"valid"


def _name(content: bytes, schema_file: str) -> str:
    return cache.key(b"schema-valid", schema_path(schema_file).read_bytes(), content)


def known_valid(content: bytes, schema_file: str) -> bool:
    """Whether `schema_file` accepted `content` in an earlier run."""
    return cache.read(_KIND, _name(content, schema_file)) == _VALID


def remember_valid(content: bytes, schema_file: str) -> None:
    cache.write(_KIND, _name(content, schema_file), _VALID)
