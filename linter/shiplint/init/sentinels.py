"""Sentinel symbols: a few exported names that say a library is the one that owns them.

A good sentinel is a C++ function the library itself defines strongly and exports,
under a named namespace, that no other library of the artifact also defines
strongly (else SL306 reports the copy), on every platform the library ships on.
Template instances, compiler-generated and `std::` names change with the compiler,
so they are left out; the shortest qualified names are preferred.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shiplint.artifacts.records import SymbolKind
from shiplint.init.model import ArtifactFacts

# How many sentinels a library gets.
COUNT = 3
_UNSTABLE = re.compile(r"[<>()\[\]{}$@ ~]|\boperator\b|::__|^_|anonymous|lambda|\bstd::|abi:")


def _candidates(artifact: ArtifactFacts, name: str) -> set[str]:
    record = artifact.shipped[name].record
    return {
        s.base
        for s in record.defined
        if s.strong
        and s.kind is not SymbolKind.OBJECT
        and s.demangled
        and "::" in s.base
        and not _UNSTABLE.search(s.base)
    }


def _strong_elsewhere(artifact: ArtifactFacts, name: str) -> set[str]:
    return {
        s.base
        for other in artifact.shipped.values()
        if other.name != name
        for s in other.record.defined
        if s.strong
    }


def sentinels(artifacts: Sequence[ArtifactFacts], name: str) -> tuple[str, ...]:
    where = [a for a in artifacts if name in a.shipped]
    if not where:
        return ()
    kept: set[str] | None = None
    for artifact in where:
        here = _candidates(artifact, name) - _strong_elsewhere(artifact, name)
        kept = here if kept is None else kept & here
    # Names under the library's own namespace first (`mlx::core::...` in libmlx, not the
    # metal-cpp helpers compiled into it).
    own = name.lower()

    def rank(base: str) -> tuple[int, int, int, str]:
        top = base.split("::", 1)[0].lower()
        return (0 if top and top in own else 1, base.count("::"), len(base), base)

    ordered = sorted(kept or (), key=rank)
    return tuple(ordered[:COUNT])
