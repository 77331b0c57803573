"""What either probe says when it did not run, or ran only in part: one shape for both.

A probe asked for that cannot run at all (no compiler, no usable CMake, no config to
find, a failed step) is `Unavailable`; a part of it that does not apply here (another
platform, nothing to link, no headers) is `NotRun`, with the probe's own reasons. Each
probe states its own type of each (`probes.link.model`, `probes.header.model`), so each
has its own rule and code; their findings share one shape (`probes.status`).
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass

R = TypeVar("R", bound=enum.Enum)


@dataclass(frozen=True)
class Unavailable:
    """The probe was asked for and could not run, and why."""

    artifact: str
    reason: str
    location: Location
    cmake_version: str | None = None


@dataclass(frozen=True)
class NotRun(Generic[R]):
    """Part of the probe does not apply here: said rather than skipped."""

    artifact: str
    reason: R
    detail: str
    location: Location
    cmake_version: str | None = None
