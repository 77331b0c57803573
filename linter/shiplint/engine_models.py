"""Models the engine itself produces for the meta rules (no input file behind them)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest, Waiver


@runtime_checkable
class PackageScoped(Protocol):
    """A model about one of the manifest's CMake packages (a config evaluation): its
    rules read the manifest as that package sees it (`Manifest.for_package`)."""

    @property
    def cmake_package(self) -> str | None: ...


def manifest_for(manifest: Manifest, model: object) -> Manifest:
    """The manifest a rule reading `model` is given."""
    if not manifest.cmake.other_packages or not isinstance(model, PackageScoped):
        return manifest
    package = model.cmake_package
    return manifest if package is None else manifest.for_package(package)


@dataclass(frozen=True)
class WaiverUsage:
    """Which waivers matched nothing in the rules that ran."""

    unused: tuple[Waiver, ...]


@dataclass(frozen=True)
class RuleCrash:
    """A rule raised instead of yielding findings: a bug in shiplint, reported, not fatal."""

    code: str
    error: str
    where: str
