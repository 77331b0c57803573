"""Frozen models of operator registrations, one `OperatorRegistrations` per artifact."""

from __future__ import annotations

import enum

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform


@dataclass(frozen=True)
class RegisteredOperator:
    """One kernel a library registers: the operator name and its kernel key.

    The runtime aborts on a second registration of the same name AND key; two
    kernels of one operator with different keys (dtype specialisations) coexist.
    """

    name: str
    # The kernel key string (`v1/6;0,1|...`); None for the default kernel.
    key: str | None = None

    @property
    def namespace(self) -> str:
        return self.name.split("::", 1)[0]

    def sort_key(self) -> tuple[str, str]:
        return (self.name, self.key or "")

    def describe(self) -> str:
        return self.name if self.key is None else f"{self.name} [key {self.key}]"


class Status(enum.Enum):
    # Read from the library's kernel tables.
    TABLES = "tables"
    # The library references no registry symbol: it cannot register anything.
    NONE = "none"
    # It may register operators, but which cannot be read from the binary.
    NOT_DETERMINED = "not-determined"


@dataclass(frozen=True)
class RegistryUse:
    """A registry a library registers into: the manifest's name for it and its owner.

    `owner` is the member path of the library whose strong definition the
    loader reaches (the library itself when it carries the registry), or None
    when no library of the artifact on its NEEDED path defines it.
    """

    registry: str
    owner: str | None


@dataclass(frozen=True)
class LibraryRegistrations:
    # The member path inside the artifact.
    member: str
    # The manifest library this member is, when it is one.
    library: str | None
    status: Status
    # Registries whose symbols this library strongly defines (it owns a copy).
    owns: tuple[str, ...]
    # Registries it registers into (owned or imported), with the owner reached.
    uses: tuple[RegistryUse, ...]
    operators: tuple[RegisteredOperator, ...]
    # Why the status is NOT_DETERMINED (None otherwise).
    reason: str | None
    # Members of the artifact its NEEDED closure reaches: always loaded with it.
    closure: tuple[str, ...]

    @property
    def file_name(self) -> str:
        return self.member.rsplit("/", 1)[-1]

    @property
    def label(self) -> str:
        """How findings name it: the file name (manifest libraries are matched by file)."""
        return self.file_name

    def operator_names(self) -> tuple[str, ...]:
        return tuple(sorted({op.name for op in self.operators}))


@dataclass(frozen=True)
class OperatorRegistrations:
    """Every binary of one artifact with what it registers, the input of the SL4xx rules."""

    # The artifact's file name (how subjects name it) and its location in reports.
    artifact: str
    platform: Platform | None
    libraries: tuple[LibraryRegistrations, ...]
    where: Location

    def location(self, member: str) -> Location:
        return self.where.within(member)

    def by_member(self, member: str) -> LibraryRegistrations | None:
        return next((lib for lib in self.libraries if lib.member == member), None)
