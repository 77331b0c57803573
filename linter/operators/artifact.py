"""The operators part of reading one artifact: link facts and kernel tables per binary.

Called from `linter.pipeline` with the binaries issue 3 read. Reads nothing when
the manifest names no registry (without one, no library can be said to register
anything), so a manifest without `registries` never pays for relocations.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from linter.artifacts.demangle import base_name, demangle
from linter.manifest.model import Manifest
from linter.operators.collect import BinaryInput, collect
from linter.operators.model import OperatorRegistrations
from linter.operators.registries import LinkFacts
from linter.platforms import Platform

if TYPE_CHECKING:
    from linter.artifacts.archive import ArtifactTree
    from linter.artifacts.binary import BinaryRecord

# Members worth reading as binaries when issue 3 handed over none.
_BINARY_SUFFIXES = (".so", ".dylib", ".dll", ".pyd")


def operator_models(
    tree: ArtifactTree, binaries: Sequence[object], manifest: Manifest
) -> list[OperatorRegistrations]:
    if not manifest.registries:
        return []
    from linter.artifacts.archive import MemberError
    from linter.artifacts.binary import FileType, read_relocated_pointers

    loadable = (FileType.SHARED_LIBRARY, FileType.BUNDLE, FileType.EXECUTABLE)
    inputs: list[BinaryInput] = []
    records = [r for r in _records(tree, binaries) if r.file_type in loadable]
    for record in records:
        try:
            pointers = read_relocated_pointers(tree.read(record.name))
        except MemberError as exc:
            inputs.append(BinaryInput(link_facts(record), None, exc.reason))
            continue
        if pointers.unreadable is not None:
            inputs.append(BinaryInput(link_facts(record), None, pointers.unreadable))
        else:
            inputs.append(BinaryInput(link_facts(record), pointers))
    platform = tree.platform or _platform_of(records)
    return [collect(tree.label, platform, manifest, inputs)]


def link_facts(record: BinaryRecord) -> LinkFacts:
    strong = {spelling for s in record.defined if s.strong for spelling in (s.name, s.base)}
    imported = {spelling for name in record.undefined for spelling in _spellings(name)}
    return LinkFacts(
        member=record.name,
        soname=record.soname,
        needed=record.needed,
        # DT_RPATH is searched too (before DT_RUNPATH would be, were both set).
        runpath=(*record.rpath, *record.runpath),
        strong=frozenset(strong),
        imported=frozenset(imported),
    )


def _spellings(name: str) -> tuple[str, ...]:
    demangled = demangle(name)
    return (name,) if demangled is None else (name, base_name(demangled))


def _records(tree: ArtifactTree, binaries: Sequence[object]) -> list[BinaryRecord]:
    """The binary records issue 3 produced, found in its models; read here if it produced none."""
    from linter.artifacts.binary import BinaryRecord, read_binary

    found = {r.name: r for r in _walk(binaries) if isinstance(r, BinaryRecord)}
    if found:
        return [found[name] for name in sorted(found)]
    records: list[BinaryRecord] = []
    for name in tree.names():
        base = posixpath.basename(name)
        if not (base.endswith(_BINARY_SUFFIXES) or ".so." in base):
            continue
        from linter.artifacts.archive import MemberError

        try:
            record = read_binary(tree.read(name), name)
        except MemberError:
            continue  # issue 3's rules report a member that cannot be read
        if isinstance(record, BinaryRecord):
            records.append(record)
    return records


def _walk(models: Iterable[object]) -> Iterable[object]:
    # Issue 3's models carry their records directly or in a tuple attribute.
    for model in models:
        yield model
        for attribute in ("binaries", "records"):
            value = getattr(model, attribute, None)
            if isinstance(value, tuple):
                yield from value


def _platform_of(records: Sequence[BinaryRecord]) -> Platform | None:
    for record in records:
        os_name = record.format.os
        if os_name is not None:
            return Platform(os_name, record.arch)
    return None
