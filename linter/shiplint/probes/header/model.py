"""What the header probe observed: the models its rules read (SL507-SL509)."""

from __future__ import annotations

import enum

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.probes.model import NotRun, Unavailable


@dataclass(frozen=True)
class HeaderContext:
    """One artifact's headers compiled with one CMake."""

    artifact: str
    # The config the project found: `<artifact>!/<member>`.
    config: Location
    cmake_version: str
    route: str | None
    # The imported targets whose usage requirements every header compiles with.
    targets: tuple[str, ...]


@dataclass(frozen=True)
class CompileError:
    """The first error the compiler reported for one header's translation unit."""

    # The member it is in when inside the artifact, else the path the compiler printed.
    file: str
    line: int | None
    text: str


@dataclass(frozen=True)
class HeaderFailure:
    header: str
    # The spelling the translation unit includes it by (`#include <...>`).
    spelling: str
    # The line of the header the first error comes from (directly or through an
    # include it makes); None when the compiler's output does not say.
    line: int | None
    error: CompileError | None
    # The last lines the compiler printed for this header alone.
    tail: str
    # "compile", or "link": its inline code did not resolve against its owner alone.
    step: str = "compile"
    # The component the header belongs to (manifest `headers.owners`), when linked.
    owner: str | None = None


@dataclass(frozen=True)
class HeaderSweep:
    """Every header under the include directories, compiled alone."""

    context: HeaderContext
    # Members compiled, and those the manifest's `headers.exclude` kept out.
    probed: tuple[str, ...]
    excluded: tuple[str, ...]
    failures: tuple[HeaderFailure, ...]
    # The artifact's location, for findings about a header member.
    artifact_path: str
    # The owning components whose headers were linked against their target alone.
    linked: tuple[str, ...] = ()


class NotRunReason(enum.Enum):
    # The host cannot compile for the artifact's platform.
    OTHER_PLATFORM = "other-platform"
    # No configured CMake falls in a route with imported targets.
    NO_TARGETS = "no-targets"
    # The include directories hold no header.
    NO_HEADERS = "no-headers"


@dataclass(frozen=True)
class HeadersNotProbed(NotRun[NotRunReason]):
    """The header probe does not apply here: said rather than skipped."""


@dataclass(frozen=True)
class HeaderProbeFailed(Unavailable):
    """The header probe was asked for and could not run: no compiler, no CMake, a failed
    configure."""


# What the header probe builds: the models its rules read.
HeaderModel = HeaderSweep | HeadersNotProbed | HeaderProbeFailed
