"""Which registry each library owns or registers into, through its NEEDED closure.

A registry is named in the manifest by the symbols that define it. A library
that strongly defines one of them carries (owns) a registry; a library that
imports one registers into the first strong definition the loader reaches in
its own NEEDED closure, breadth first, as a library's local lookup scope is
searched. The closure is the inventory's (`shiplint.artifacts.linkage`, resolved and
walked once per artifact); an owner reached only outside the artifact (another
wheel, the system) is unresolved, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shiplint.fastclass import dataclass
from shiplint.manifest.model import Registry
from shiplint.operators.model import RegistryUse


@dataclass(frozen=True)
class LinkFacts:
    """What registry resolution needs to know of one binary of the artifact."""

    member: str
    # The artifact members loading it loads (its NEEDED closure inside the artifact,
    # breadth first, itself excluded); what resolves outside the artifact is absent.
    closure: tuple[str, ...]
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
    """Finds registry owners along each binary's NEEDED closure."""

    def __init__(self, binaries: Iterable[LinkFacts]) -> None:
        self._facts = {f.member: f for f in binaries}

    @property
    def facts(self) -> Mapping[str, LinkFacts]:
        return self._facts

    def closure(self, member: str) -> tuple[str, ...]:
        """Members reached through NEEDED, breadth first, the member itself excluded."""
        facts = self._facts.get(member)
        return facts.closure if facts is not None else ()

    def owner(self, member: str, registry: Registry) -> str | None:
        """The member whose definition of `registry` the loader reaches from `member`."""
        for candidate in (member, *self.closure(member)):
            facts = self._facts.get(candidate)
            if facts is not None and owns(facts, registry):
                return candidate
        return None

    def uses(self, member: str, registries: Iterable[Registry]) -> tuple[RegistryUse, ...]:
        facts = self._facts[member]
        return tuple(
            RegistryUse(r.name, self.owner(member, r)) for r in registries if references(facts, r)
        )
