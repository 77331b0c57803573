"""Rules SL130-SL135: what a config says or leaves wrong while a consumer's plain
find_package evaluates it.

Each reads the diagnostics the evaluation collected from the probe's plain
find_package (`shiplint.cmake_eval.diagnostics`), at the config line that caused
each, and names the CMake version, since the routes evaluate different code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.cmake_eval.model import ConfigEvaluation, DiagnosticKind
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule


def _on(ev: ConfigEvaluation) -> str:
    route = f" (route {ev.route})" if ev.route else ""
    return f"CMake {ev.cmake_version}{route}, {ev.platform}"


def _subject(ev: ConfigEvaluation, **fields: str | None) -> Subject:
    return Subject(cmake_version=ev.cmake_version, artifact=ev.artifact, **fields)


def config_warns(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    """SL130: the config's own message(WARNING) during a plain find_package."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.WARNING:
            yield Finding(
                message=f"the config warns every consumer on {_on(ev)}: {found.detail}",
                location=found.location,
                subject=_subject(ev),
                hint="Make the condition it warns about hold in the shipped package, or "
                "warn only when a consumer asks for what the condition breaks.",
            )


def notfound_in_imported_target(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    """SL131: an imported target's property holds a *-NOTFOUND value."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.NOTFOUND_PROPERTY:
            yield Finding(
                message=f"imported target {found.subject} carries a NOTFOUND value on "
                f"{_on(ev)}: {found.detail}",
                location=found.location,
                subject=_subject(ev, target=found.subject),
                hint="Ship the library the config looks for, or leave it out of the "
                "target when find_library finds nothing (if(<var>) before using it).",
            )


def notfound_in_published_variable(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    """SL132: an aggregate or component variable carries a *-NOTFOUND entry."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.NOTFOUND_VARIABLE:
            yield Finding(
                message=f"{found.subject} carries {found.detail} on {_on(ev)}: every "
                "consumer linking it links a library that was not found",
                location=found.location,
                subject=_subject(ev, variable=found.subject),
                hint="Ship the library the config looks for, or leave the NOTFOUND "
                "result out of the variable (and out of <pkg>_FOUND's answer).",
            )


def link_interface_names_missing_target(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    """SL135: INTERFACE_LINK_LIBRARIES names a ns::target that does not exist after the
    find_package: CMake's generate step fails for every consumer linking it."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.MISSING_LINK_TARGET:
            yield Finding(
                message=f"imported target {found.subject} links {found.detail}, which is no "
                f"target after find_package on {_on(ev)}",
                location=found.location,
                subject=_subject(ev, target=found.subject),
                hint=f"find_dependency() the package that defines {found.detail} in the "
                "config before its targets file is included, or stop linking it.",
            )


def target_created_in_consumer_project(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    """SL133: the config creates a non-IMPORTED target in the consumer's project."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.OWN_TARGET:
            yield Finding(
                message=f"the config creates {found.subject} ({found.detail}), a target of "
                f"the consumer's own project, on {_on(ev)}",
                location=found.location,
                subject=_subject(ev, target=found.subject),
                hint="Create it IMPORTED (add_library(<name> INTERFACE IMPORTED)), in the "
                "package's namespace, so it is neither built with the consumer's project "
                "nor in the way of the consumer's own target names.",
            )


def cache_entry_created_in_consumer_project(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    """SL134: the config adds an entry to the consumer's CMake cache."""
    for found in ev.diagnostics:
        if found.kind is DiagnosticKind.CACHE_ENTRY:
            yield Finding(
                message=f"the config adds {found.subject} to the consumer's cache on "
                f"{_on(ev)}: {found.detail}",
                location=found.location,
                subject=_subject(ev, variable=found.subject),
                hint="Compute it on every find_package instead: find_library(... NO_CACHE) "
                "(CMake 3.21+), or a path relative to CMAKE_CURRENT_LIST_DIR, or a normal "
                "variable.",
            )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL130", ConfigEvaluation, config_warns),
    Rule("SL131", ConfigEvaluation, notfound_in_imported_target),
    Rule("SL132", ConfigEvaluation, notfound_in_published_variable),
    Rule("SL133", ConfigEvaluation, target_created_in_consumer_project),
    Rule("SL134", ConfigEvaluation, cache_entry_created_in_consumer_project),
    Rule("SL135", ConfigEvaluation, link_interface_names_missing_target),
)
