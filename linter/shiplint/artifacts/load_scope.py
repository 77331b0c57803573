"""A binary's load scope as the ELF loader builds it, and who in it defines a name.

The loader resolves an undefined symbol by searching every object loaded for the
binary, breadth first over the NEEDED tree (glibc's `l_searchlist`): the binary's own
NEEDED entries, then theirs, including what the system libraries themselves NEED.
Members of the artifact are read; a well-known system library (glibc, the GCC runtime,
zlib) is known from `system_symbols`' data; any other external (another wheel's
library, a driver's) is opaque: it may define anything. A NEEDED entry that resolves
to nothing is SL308's finding and loads nothing here.
"""

from __future__ import annotations

import enum
from collections import deque

from shiplint.artifacts.model import Inventory, Resolution
from shiplint.artifacts.records import BinaryRecord
from shiplint.artifacts.system_symbols import SystemLibraries, SystemLibrary, system_libraries
from shiplint.fastclass import dataclass


class Provider(enum.Enum):
    MEMBER = "member"  # read from the artifact
    SYSTEM = "system"  # a well-known system library: its definitions are data
    OPAQUE = "opaque"  # an external nothing says anything about


@dataclass(frozen=True)
class ScopeEntry:
    # The member's path, or the external's file name.
    name: str
    provider: Provider
    # The NEEDED chain from the binary to it: (name,) for the binary's own NEEDED entry.
    chain: tuple[str, ...]
    record: BinaryRecord | None = None
    system: SystemLibrary | None = None

    @property
    def direct(self) -> bool:
        """One of the binary's own NEEDED entries."""
        return len(self.chain) == 1

    def defines(self, name: str) -> bool | None:
        """Whether an unversioned reference to `name` binds here; None: cannot be known."""
        if self.record is not None:
            return name in self.record.definitions()
        if self.system is not None:
            return name in self.system.names
        return None


def systems_for(model: Inventory, binary: BinaryRecord) -> SystemLibraries | None:
    """The system-library data for `binary` under the artifact's tag (None: opaque)."""
    return system_libraries(model.platform_tag, binary.arch)


def load_scope(model: Inventory, binary: BinaryRecord) -> tuple[ScopeEntry, ...]:
    """Everything loading `binary` loads, breadth first, each once, the binary excluded."""
    systems = systems_for(model, binary)
    seen: set[str] = {binary.name}
    out: list[ScopeEntry] = []
    queue: deque[ScopeEntry] = deque()

    def visit(entry: ScopeEntry) -> None:
        if entry.name in seen:
            return
        seen.add(entry.name)
        out.append(entry)
        queue.append(entry)

    for entry in _needed_of(model, binary.name, (), systems):
        visit(entry)
    while queue:
        current = queue.popleft()
        if current.provider is Provider.MEMBER:
            children = _needed_of(model, current.name, current.chain, systems)
        elif current.system is not None:
            children = [_external(n, (*current.chain, n), systems) for n in current.system.needed]
        else:
            children = []
        for child in children:
            visit(child)
    return tuple(out)


def _needed_of(
    model: Inventory, member: str, chain: tuple[str, ...], systems: SystemLibraries | None
) -> list[ScopeEntry]:
    out: list[ScopeEntry] = []
    for resolved in model.links.of(member).resolved:
        if resolved.how is Resolution.PACKAGE and resolved.member is not None:
            record = model.binary(resolved.member)
            # A member not read as a binary (SL3xx says why) cannot be asked: opaque.
            provider = Provider.MEMBER if record is not None else Provider.OPAQUE
            out.append(
                ScopeEntry(resolved.member, provider, (*chain, resolved.member), record=record)
            )
        elif resolved.how is Resolution.EXTERNAL:
            out.append(_external(resolved.needed, (*chain, resolved.needed), systems))
    return out


def _external(name: str, chain: tuple[str, ...], systems: SystemLibraries | None) -> ScopeEntry:
    system = systems.get(name) if systems is not None else None
    if system is None:
        return ScopeEntry(name, Provider.OPAQUE, chain)
    return ScopeEntry(name, Provider.SYSTEM, chain, system=system)
