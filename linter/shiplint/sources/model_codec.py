"""A `SourceModel` as plain tuples and back, for `marshal` (which builds no object of an
arbitrary class, unlike pickle).

An object of a model class becomes `(class number, *field values)`, a tuple field a
list, so the two never mix up; strings, numbers, booleans and None stay as they are.
A model holding anything else is refused (ValueError) rather than stored in a form that
would not come back equal. The class numbers are positions in `_CLASSES`: the cache
entry's key holds this module's bytes, so a change here is a new key, never a misread.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from shiplint.diagnostics import Location
from shiplint.sources.model import (
    BuildPlan,
    CMakeProject,
    Edge,
    ExportInstall,
    Install,
    InstalledFile,
    OutputName,
    PackagingEntry,
    SourceModel,
    TargetDef,
    TargetRequest,
    Unreadable,
)

_CLASSES: tuple[type[Any], ...] = (
    SourceModel,
    CMakeProject,
    BuildPlan,
    Location,
    TargetDef,
    OutputName,
    Install,
    ExportInstall,
    InstalledFile,
    Edge,
    Unreadable,
    TargetRequest,
    PackagingEntry,
)
_NUMBER = {cls: number for number, cls in enumerate(_CLASSES)}
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in _CLASSES}
_LEAVES = (str, int, bool, type(None))


def encode(model: SourceModel) -> Any:
    """The model as nested tuples, lists and leaves; ValueError for a value of another type."""
    return _encode(model)


def _encode(value: Any) -> Any:
    kind = type(value)
    number = _NUMBER.get(kind)
    if number is not None:
        return (number, *(_encode(getattr(value, name)) for name in _FIELDS[kind]))
    if kind is tuple:
        return [_encode(item) for item in value]
    if kind in _LEAVES:
        return value
    raise ValueError(f"a source model holds a {kind.__name__}, which is not encoded")


def decode(raw: Any) -> SourceModel:
    """The model `encode` was given; ValueError, TypeError or IndexError for another shape."""
    model = _decode(raw)
    if not isinstance(model, SourceModel):
        raise ValueError("not a source model")
    return model


def _decode(raw: Any) -> Any:
    kind = type(raw)
    if kind is tuple:
        cls = _CLASSES[raw[0]]
        values = raw[1:]
        if len(values) != len(_FIELDS[cls]):
            raise ValueError(f"a stored {cls.__name__} of another shape")
        return cls(*map(_decode, values))
    if kind is list:
        return tuple(map(_decode, raw))
    if kind in _LEAVES:
        return raw
    raise ValueError(f"a {kind.__name__} in a stored source model")
