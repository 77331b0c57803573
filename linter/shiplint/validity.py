"""Which documents a schema has already accepted, remembered in the user cache.

A pre-commit hook loads the same manifest on every commit; validating it again
costs more than the rest of a sources run (jsonschema and its dependencies alone
take a tenth of a second to import). A document is known valid when this
shiplint version accepted these exact bytes under this exact schema before; any
edit to either is a new key, so nothing goes stale. Only acceptance is
remembered: a document with problems is validated again to report them.
"""

from __future__ import annotations

from typing import Any

from shiplint.memo import Memo, constant
from shiplint.resources import schema_path


def _accepted(data: Any) -> bool:
    """Only the one answer ever kept; anything else is not this module's entry."""
    if data is not True:
        raise ValueError("not an acceptance")
    return True


# Keyed by the schema's bytes and the document's; the schema decides the answer.
_ACCEPTED: Memo[bool] = Memo("validated", constant(b"schema-valid"), decode=_accepted)


def _inputs(content: bytes, schema_file: str) -> tuple[bytes, bytes]:
    return schema_path(schema_file).read_bytes(), content


def known_valid(content: bytes, schema_file: str) -> bool:
    """Whether `schema_file` accepted `content` in an earlier run."""
    return _ACCEPTED.get(*_inputs(content, schema_file)) is True


def remember_valid(content: bytes, schema_file: str) -> None:
    _ACCEPTED.put(True, *_inputs(content, schema_file))


def _name(content: bytes, schema_file: str) -> str:
    """The cache entry that says `schema_file` accepted `content`."""
    return _ACCEPTED.key(*_inputs(content, schema_file))
