"""Which registry each library owns or registers into, resolved through NEEDED.

A registry is named in the manifest by the symbols that define it. A library
that strongly defines one of them carries (owns) a registry; a library that
imports one registers into the first strong definition the loader reaches in
its own NEEDED closure, breadth first, as a library's local lookup scope is
searched. Resolution stays inside the artifact: an owner reached only outside
it (another wheel, the system) is reported as unresolved, never guessed.
"""

from __future__ import annotations

import posixpath
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from linter.manifest.model import Registry
from linter.operators.model import RegistryUse


@dataclass(frozen=True)
class LinkFacts:
    """What registry resolution needs to know of one binary of the artifact."""

    member: str
    soname: str | None
    # NEEDED entries (ELF), load commands (Mach-O, install names) or imported DLLs.
    needed: tuple[str, ...]
    # Search directories with $ORIGIN / @loader_path already meaning the member's directory.
    runpath: tuple[str, ...]
    # Strongly defined symbols (GLOBAL/UNIQUE, not weak), each as mangled and as
    # demangled base name (no argument list).
    strong: frozenset[str]
    # Imported (undefined) symbols, spelled the same two ways.
    imported: frozenset[str]


def references(facts: LinkFacts, registry: Registry) -> bool:
    names = set(registry.symbols)
    return bool(names & facts.strong or names & facts.imported)


def owns(facts: LinkFacts, registry: Registry) -> bool:
    return bool(set(registry.symbols) & facts.strong)


class Resolver:
    """Maps a NEEDED entry of a member to the artifact member the loader would pick."""

    def __init__(self, binaries: Iterable[LinkFacts]) -> None:
        self._facts = {f.member: f for f in binaries}
        self._by_name: dict[str, list[str]] = {}
        for facts in self._facts.values():
            keys = {_key(posixpath.basename(facts.member))}
            if facts.soname:
                keys.add(_key(posixpath.basename(facts.soname)))
            for key in keys:
                self._by_name.setdefault(key, []).append(facts.member)

    @property
    def facts(self) -> Mapping[str, LinkFacts]:
        return self._facts

    def resolve(self, member: str, needed: str) -> str | None:
        candidates = sorted(set(self._by_name.get(_key(posixpath.basename(needed)), ())))
        if not candidates:
            return None
        facts = self._facts[member]
        here = _directory(member)
        # Search order: the member's own search path, then its directory; a
        # single candidate elsewhere is still the file the package means.
        for directory in (*(_expand(d, here) for d in facts.runpath), here):
            for candidate in candidates:
                if _directory(candidate) == directory:
                    return candidate
        return candidates[0] if len(candidates) == 1 else None

    def closure(self, member: str) -> tuple[str, ...]:
        """Members reached through NEEDED, breadth first, the member itself excluded."""
        seen = {member}
        order: list[str] = []
        queue = deque([member])
        while queue:
            current = queue.popleft()
            for needed in self._facts[current].needed:
                target = self.resolve(current, needed)
                if target is not None and target not in seen:
                    seen.add(target)
                    order.append(target)
                    queue.append(target)
        return tuple(order)

    def owner(self, member: str, registry: Registry) -> str | None:
        """The member whose definition of `registry` the loader reaches from `member`."""
        for candidate in (member, *self.closure(member)):
            if owns(self._facts[candidate], registry):
                return candidate
        return None

    def uses(self, member: str, registries: Iterable[Registry]) -> tuple[RegistryUse, ...]:
        facts = self._facts[member]
        return tuple(
            RegistryUse(r.name, self.owner(member, r)) for r in registries if references(facts, r)
        )


def _key(file_name: str) -> str:
    # Windows resolves DLL names case-insensitively; ELF and Mach-O never
    # ship two names differing only by case, so folding is harmless there.
    return file_name.lower()


def _directory(member: str) -> str:
    return posixpath.dirname(member) or "."


def _expand(directory: str, here: str) -> str:
    for token in ("$ORIGIN", "${ORIGIN}", "@loader_path", "@executable_path"):
        directory = directory.replace(token, here)
    return posixpath.normpath(directory)
