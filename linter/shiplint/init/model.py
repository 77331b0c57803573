"""The facts init decides from, as `facts.py` gathers them: frozen, no reading."""

from __future__ import annotations

import posixpath
from dataclasses import field

from shiplint.artifacts.model import Inventory
from shiplint.artifacts.records import BinaryRecord
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.fastclass import dataclass
from shiplint.platforms import Platform


class InitError(Exception):
    """Input init cannot start from: said with what is wrong, exit 2."""


@dataclass(frozen=True)
class Shipped:
    """One shared object of one artifact, named as the manifest will name it."""

    name: str
    member: str
    record: BinaryRecord
    # Library names (of this artifact) its NEEDED entries resolve to, in NEEDED order.
    depends_on: tuple[str, ...]
    # NEEDED entries nothing shipped resolves.
    externals: tuple[str, ...]
    # Search-path directories (RUNPATH, LC_RPATH) in another distribution's package
    # directory of the same site-packages (`torch/lib`): where its externals are found.
    foreign_dirs: tuple[str, ...] = ()

    @property
    def directory(self) -> str:
        return posixpath.dirname(self.member)

    @property
    def file_name(self) -> str:
        return posixpath.basename(self.member)


@dataclass(frozen=True)
class ArtifactFacts:
    label: str
    platform: Platform
    inventory: Inventory
    # By library name.
    shipped: dict[str, Shipped]
    # The plain evaluation, one per CMake, in the order the CMakes were given.
    evaluations: tuple[ConfigEvaluation, ...] = ()
    # The spellings tried, one evaluation per CMake (empty when none was tried).
    trials: tuple[ConfigEvaluation, ...] = ()


@dataclass(frozen=True)
class ConfigFacts:
    """The package config found in the artifacts."""

    package: str
    directories: tuple[str, ...]
    package_root: str
    # Variables the config's text sets for the package (candidates for aggregates).
    variables: tuple[str, ...]
    # Component spellings the config's text tests (`<Pkg>_<c>_FOUND`).
    spellings: tuple[str, ...]
    # Version boundaries the config's text compares CMAKE_VERSION with.
    boundaries: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Trial:
    """A spelling to try: `find_package(<pkg> COMPONENTS <spelling>)`, owned by `library`."""

    key: str
    spelling: str
    library: str | None


@dataclass(frozen=True)
class Facts:
    artifacts: tuple[ArtifactFacts, ...]
    config: ConfigFacts | None
    # (path, version) of each CMake, in the order given.
    cmakes: tuple[tuple[str, tuple[int, ...]], ...]
    trials: tuple[Trial, ...] = field(default=())
