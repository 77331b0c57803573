"""The operators part of reading one artifact: link facts and kernel tables per binary.

Called from `shiplint.pipeline` with the artifact's inventory: the binaries, their
placement as manifest libraries, the platform and the NEEDED closures all come from
it, so this area and the artifact rules see the same loader. What it reads itself is
each binary's relocated pointers (kernel tables), through the reading stack
(`shiplint.artifacts.reading`). Reads nothing when the manifest names no registry
(without one, no library can be said to register anything).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from shiplint.artifacts.demangle import base_name, demangle
from shiplint.manifest.model import Manifest
from shiplint.operators.collect import BinaryInput, collect
from shiplint.operators.model import OperatorRegistrations
from shiplint.operators.registries import LinkFacts

if TYPE_CHECKING:
    from shiplint.artifacts.model import Inventory
    from shiplint.artifacts.reading import Reader
    from shiplint.artifacts.records import BinaryRecord
    from shiplint.artifacts.tree import Tree


def read_operators(
    tree: Tree,
    artifact: Inventory,
    manifest: Manifest,
    reader: Reader | None = None,
) -> list[OperatorRegistrations]:
    if not manifest.registries:
        return []
    from shiplint.artifacts.reading import IN_PROCESS
    from shiplint.artifacts.records import FileType

    loadable = (FileType.SHARED_LIBRARY, FileType.BUNDLE, FileType.EXECUTABLE)
    inputs: list[BinaryInput] = []
    for record in artifact.binaries:
        if record.file_type not in loadable:
            continue
        facts = link_facts(artifact, record, manifest)
        library = artifact.library_of(record.name)
        pointers = (reader or IN_PROCESS).pointers(tree, record.name)
        if pointers.unreadable is not None:
            inputs.append(BinaryInput(facts, library, None, pointers.unreadable))
        else:
            inputs.append(BinaryInput(facts, library, pointers))
    return [collect(artifact.label, artifact.location(), artifact.platform, manifest, inputs)]


def link_facts(artifact: Inventory, record: BinaryRecord, manifest: Manifest) -> LinkFacts:
    # Only the registries' symbols are ever looked up in these sets, so only names that
    # can spell one are demangled (demangling every symbol was most of this area's time).
    may_spell = _spelling_filter(
        tuple(symbol for registry in manifest.registries for symbol in registry.symbols)
    )
    strong = {
        spelling
        for s in record.defined
        if s.strong and may_spell(s.name)
        for spelling in (s.name, s.base)
    }
    imported = {
        spelling for name in record.undefined if may_spell(name) for spelling in _spellings(name)
    }
    return LinkFacts(
        member=record.name,
        closure=artifact.links.of(record.name).loads,
        strong=frozenset(strong),
        imported=frozenset(imported),
    )


@functools.cache
def _spelling_filter(symbols: tuple[str, ...]) -> Callable[[str], object]:
    """Whether a symbol's raw name may spell one of the registries' `symbols` (truthy):
    it contains the last identifier of a demangled name (a mangled name carries it
    verbatim), or the mangled name itself. One search for all of them, in C: a library
    has thousands of symbols."""
    needles = sorted({symbol.rsplit("::", 1)[-1] for symbol in symbols})
    if not needles:
        return _spells_nothing
    return re.compile("|".join(map(re.escape, needles))).search


def _spells_nothing(name: str) -> bool:
    return False


def _spellings(name: str) -> tuple[str, ...]:
    demangled = demangle(name)
    return (name,) if demangled is None else (name, base_name(demangled))
