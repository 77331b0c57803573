"""What evaluating an installed config's version file found: the models SL123-SL125 read."""

from __future__ import annotations

from dataclasses import dataclass

from shiplint.diagnostics import Location
from shiplint.platforms import Platform


@dataclass(frozen=True)
class MissingVersionFile:
    """An installed config with no version file beside it: find_package(<pkg> <version>)
    then rejects it for any version asked for."""

    label: str
    config: Location
    # The names find_package looks for, in its order.
    names: tuple[str, str]


@dataclass(frozen=True)
class VersionAnswer:
    """What the version file answered one find_package(<pkg> <requested>)."""

    requested: str
    compatible: bool
    exact: bool
    unsuitable: bool

    @property
    def accepted(self) -> bool:
        return self.compatible and not self.unsuitable


@dataclass(frozen=True)
class VersionFileEvaluation:
    """One version file evaluated by one CMake, as find_package evaluates it."""

    label: str
    platform: Platform
    version_file: Location
    cmake: str
    cmake_version: str
    route: str | None
    # The artifact's own version (a wheel's, its numeric release part); None when the
    # artifact does not say (an install tree, a plain archive).
    expected: str | None
    # The full version the artifact declares (`1.5.1+cpu`), for messages.
    declared: str | None
    # PACKAGE_VERSION as the file set it ("" when it set none); None when the run failed.
    reported: str | None
    # find_package(<pkg> <major>.<minor>) of the expected (else reported) version, and of
    # the next major, which a version file must turn away.
    same_minor: VersionAnswer | None
    next_major: VersionAnswer | None
    # Why the file could not be evaluated (a CMake error, a time-out); None when it was.
    failure: str | None = None

    @property
    def on(self) -> str:
        route = f" (route {self.route})" if self.route else ""
        return f"CMake {self.cmake_version}{route}"


VersionModel = MissingVersionFile | VersionFileEvaluation
