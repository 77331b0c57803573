"""The one list of rules. Each area module states its own RULES tuple; nothing is discovered.

A run imports only the rule modules it can use (`rules_for`): each module below is
listed with the code prefix its rules share and the areas whose models they read, so
a sources-only hook loads no artifact, operator or probe rule, nor the models those
read. `tests/test_areas.py` checks both columns against each module's RULES.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from shiplint.areas import (
    ARTIFACTS,
    CONFIG_ARTIFACT,
    CONFIG_SOURCE,
    CONFIG_VERSION,
    HEADER_PROBE,
    INCLUDE_CLOSURE,
    LINK_PROBE,
    OPERATORS,
    SOURCES,
    Area,
)
from shiplint.codes import covers, rule_codes
from shiplint.request import RunRequest
from shiplint.rule import Rule

if TYPE_CHECKING:
    # Every rule, in this order: `RULES` imports every module (see __getattr__).
    RULES: tuple[Rule[Any], ...]

# (module of shiplint.checks, the code prefix of its rules, the areas whose models they
# read; none: the engine's own models, whose rules every run loads).
MODULES: tuple[tuple[str, str, tuple[Area, ...]], ...] = (
    ("meta", "SL0", ()),
    ("config_eval", "SL1", (CONFIG_SOURCE, CONFIG_ARTIFACT)),
    ("config_diagnostics", "SL1", (CONFIG_SOURCE, CONFIG_ARTIFACT)),
    ("version_file", "SL1", (CONFIG_VERSION,)),
    ("sources", "SL2", (SOURCES,)),
    ("artifacts", "SL3", (ARTIFACTS,)),
    ("symbols", "SL3", (ARTIFACTS,)),
    ("requirements", "SL3", (ARTIFACTS,)),
    ("wheel_name", "SL3", (ARTIFACTS,)),
    ("import_libraries", "SL3", (ARTIFACTS,)),
    ("platform_promises", "SL3", (ARTIFACTS,)),
    ("provided_reach", "SL3", (ARTIFACTS,)),
    ("include_closure", "SL3", (INCLUDE_CLOSURE,)),
    ("operators", "SL4", (OPERATORS,)),
    ("link_probe", "SL5", (LINK_PROBE,)),
    ("header_probe", "SL5", (HEADER_PROBE,)),
)


def module_rules(name: str) -> tuple[Rule[Any], ...]:
    rules: tuple[Rule[Any], ...] = importlib.import_module(f"shiplint.checks.{name}").RULES
    return rules


@functools.cache
def all_rules() -> tuple[Rule[Any], ...]:
    return tuple(rule for name, _, _ in MODULES for rule in module_rules(name))


def rules_for(request: RunRequest) -> tuple[Rule[Any], ...]:
    """The rules a run can use, in the registry's order: those of each module that has a
    selected code and reads an area the run can feed, and the engine's own (a rule that
    crashes is reported whatever the selection)."""
    codes = rule_codes()
    return tuple(
        rule
        for name, prefix, areas in MODULES
        if not areas
        or (
            any(request.selection.enabled(c) for c in codes if covers(prefix, c))
            and any(area.available(request) for area in areas)
        )
        for rule in module_rules(name)
    )


def __getattr__(name: str) -> Any:
    # Every rule: imported on first use, so that importing the registry costs a run
    # only the modules `rules_for` picks.
    if name == "RULES":
        return all_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
