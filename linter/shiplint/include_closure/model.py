"""What the include closure found in one artifact: the includes a consumer cannot resolve."""

from __future__ import annotations

import enum

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform


class Missing(enum.Enum):
    # Resolves nowhere: not in the package, a declared external package or the system.
    NOT_SHIPPED = "not shipped"
    # The file is in the artifact, but under no include directory the targets publish.
    OUTSIDE_INCLUDE_DIRS = "outside the include directories"
    # A header a build writes (`config.h`, `*_macros.h`, `*_export.h`, `*_generated.h`),
    # not shipped.
    CONFIGURED = "configured header not shipped"


@dataclass(frozen=True)
class UnresolvedInclude:
    # The including header (member path) and the line of the directive.
    header: str
    line: int
    spelling: str
    angled: bool
    missing: Missing
    # Under a condition only the consumer's build decides (`#ifdef PKG_USE_CUDA`).
    conditional: bool
    # For OUTSIDE_INCLUDE_DIRS: the member that has the file.
    shipped_at: str | None = None
    location: Location | None = None


@dataclass(frozen=True)
class IncludeClosure:
    """Every public header's includes, judged for the artifact's platform."""

    label: str
    platform: Platform | None
    # The include directories the package's imported targets publish (member paths).
    include_dirs: tuple[str, ...]
    headers_read: int
    unresolved: tuple[UnresolvedInclude, ...]
    # Entries of the manifest's `headers.required` no published include directory has.
    required_missing: tuple[str, ...]
    location: Location
    cmake_package: str | None = None


@dataclass(frozen=True)
class IncludeClosureNotChecked:
    """Why the closure could not be judged: no evaluation published include directories."""

    label: str
    reason: str
    location: Location
    # Header files anywhere in the artifact: with none, there is nothing to judge.
    headers_shipped: int = 0
    cmake_package: str | None = None


IncludeModel = IncludeClosure | IncludeClosureNotChecked
