"""The one list of areas: the model types each produces and the inputs it needs.

A rule states the model type it reads (`Rule(code, Model, check)`); an area states
the model types it builds. The pipeline builds an area only when a selected rule
reads one of its types and the run gives it something to read, and builds an input
only when a built area needs it: `--select SL1` lists the artifact and reads no
binary, `--select SL3` runs no CMake. Nothing here imports a builder, and an area's
model types are imported only when a run's rules read from its module: a sources-only
hook loads no artifact, operator or probe model.
"""

from __future__ import annotations

import enum
import functools
import importlib
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from shiplint.engine_models import RuleCrash, WaiverUsage
from shiplint.fastclass import dataclass
from shiplint.request import RunRequest
from shiplint.rule import Rule
from shiplint.selection import Selection

if TYPE_CHECKING:
    from shiplint.artifacts.model import Inventory
    from shiplint.cmake_eval.model import ConfigModel, VersionModel
    from shiplint.include_closure.model import IncludeModel
    from shiplint.operators.model import OperatorRegistrations
    from shiplint.probes.header.model import HeaderModel
    from shiplint.probes.link.model import ProbeModel
    from shiplint.sources.model import SourceModel


class Input(enum.Enum):
    # The repository under --root: its CMake sources and build declarations.
    SOURCES = "sources"
    # Each artifact's listing: members, platform, library placements, installed configs.
    LISTING = "listing"
    # Each artifact's binaries read (`shiplint.artifacts.reading`) and their link graph resolved.
    BINARIES = "binaries"
    # Configure runs of the configured CMake binaries.
    CMAKE = "cmake"
    # Consumers compiled and linked with the host toolchain (asked for with --link-probe).
    CONSUMER_BUILDS = "consumer builds"
    # Every public header compiled alone with the host toolchain (--header-probe).
    HEADER_BUILDS = "header builds"

    def available(self, request: RunRequest) -> bool:
        """Whether the run gives this input: a missing CMake is itself a finding, so
        CMake always is."""
        if self is Input.SOURCES:
            return request.check_sources
        if self is Input.CONSUMER_BUILDS:
            return request.link_probe and bool(request.artifacts)
        if self is Input.HEADER_BUILDS:
            return request.header_probe and bool(request.artifacts)
        if self is Input.CMAKE:
            return True
        return bool(request.artifacts)


@dataclass(frozen=True)
class Area:
    name: str
    # The module its models are defined in, and their name there: a model type, or a
    # union of them (`ConfigModel`). Names, so this table imports no model.
    module: str
    models: str
    needs: frozenset[Input]

    @property
    def produces(self) -> tuple[type[Any], ...]:
        """The model types this area builds (their module imported on first use)."""
        return _model_types(self.module, self.models)

    def available(self, request: RunRequest) -> bool:
        """Whether the run gives this area everything it reads."""
        return all(needed.available(request) for needed in self.needs)


@functools.cache
def _model_types(module: str, name: str) -> tuple[type[Any], ...]:
    named = getattr(importlib.import_module(module), name)
    return get_args(named) if get_origin(named) in (Union, types.UnionType) else (named,)


if TYPE_CHECKING:
    # Every model some area builds: what the pipeline hands the engine.
    Model = (
        SourceModel
        | ConfigModel
        | VersionModel
        | Inventory
        | OperatorRegistrations
        | ProbeModel
        | HeaderModel
        | IncludeModel
    )

_CMAKE_MODELS = "shiplint.cmake_eval.model"
SOURCES = Area("sources", "shiplint.sources.model", "SourceModel", frozenset({Input.SOURCES}))
CONFIG_SOURCE = Area(
    "config source", _CMAKE_MODELS, "ConfigModel", frozenset({Input.SOURCES, Input.CMAKE})
)
CONFIG_ARTIFACT = Area(
    "installed config", _CMAKE_MODELS, "ConfigModel", frozenset({Input.LISTING, Input.CMAKE})
)
# Each installed config's version file, evaluated as find_package does: no binary read.
CONFIG_VERSION = Area(
    "installed config version file",
    _CMAKE_MODELS,
    "VersionModel",
    frozenset({Input.LISTING, Input.CMAKE}),
)
ARTIFACTS = Area(
    "artifacts", "shiplint.artifacts.model", "Inventory", frozenset({Input.LISTING, Input.BINARIES})
)
OPERATORS = Area(
    "operators",
    "shiplint.operators.model",
    "OperatorRegistrations",
    frozenset({Input.LISTING, Input.BINARIES}),
)
LINK_PROBE = Area(
    "link probe",
    "shiplint.probes.link.model",
    "ProbeModel",
    frozenset({Input.LISTING, Input.BINARIES, Input.CMAKE, Input.CONSUMER_BUILDS}),
)
HEADER_PROBE = Area(
    "header probe",
    "shiplint.probes.header.model",
    "HeaderModel",
    frozenset({Input.LISTING, Input.BINARIES, Input.CMAKE, Input.HEADER_BUILDS}),
)
# The public headers' #include lines, against the include directories the evaluated
# config publishes: no binary read, no compiler run.
INCLUDE_CLOSURE = Area(
    "header includes",
    "shiplint.include_closure.model",
    "IncludeModel",
    frozenset({Input.LISTING, Input.CMAKE}),
)
AREAS = (
    SOURCES,
    CONFIG_SOURCE,
    CONFIG_ARTIFACT,
    CONFIG_VERSION,
    ARTIFACTS,
    OPERATORS,
    LINK_PROBE,
    HEADER_PROBE,
    INCLUDE_CLOSURE,
)
# Models the engine makes itself, from the other rules' results.
ENGINE_MODELS: tuple[type[Any], ...] = (WaiverUsage, RuleCrash)


@dataclass(frozen=True)
class Plan:
    """The areas one run builds, and so the inputs it reads."""

    areas: frozenset[Area]

    def builds(self, area: Area) -> bool:
        return area in self.areas

    def reads(self, needed: Input) -> bool:
        return any(needed in area.needs for area in self.areas)


def plan(request: RunRequest, rules: Iterable[Rule[Any]], selection: Selection) -> Plan:
    """Every area some selected rule reads a model of, among those the run can feed."""
    wanted = {rule.model for rule in rules if selection.enabled(rule.code)}
    # An area whose module defines no wanted model is passed over before its models
    # are imported.
    modules = {model.__module__ for model in wanted}
    return Plan(
        frozenset(
            area
            for area in AREAS
            if area.available(request)
            and area.module in modules
            and wanted.intersection(area.produces)
        )
    )
