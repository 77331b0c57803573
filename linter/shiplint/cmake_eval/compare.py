"""Put the routes side by side: what each CMake route published in the same aggregate."""

from __future__ import annotations

from collections.abc import Sequence

from shiplint.cmake_eval.model import (
    AggregateAcrossRoutes,
    ConfigEvaluation,
    RouteCoverage,
    RouteView,
)
from shiplint.manifest.model import Manifest


def compare_routes(
    manifest: Manifest, evaluations: Sequence[ConfigEvaluation]
) -> list[AggregateAcrossRoutes]:
    """One model per aggregate checked on two routes or more, for one evaluated config.

    The first successful evaluation of each route stands for it; a route the
    manifest does not name is keyed by its CMake version.
    """
    by_route: dict[str, ConfigEvaluation] = {}
    for evaluation in evaluations:
        if evaluation.failure is not None:
            continue
        by_route.setdefault(evaluation.route or f"cmake-{evaluation.cmake_version}", evaluation)
    if len(by_route) < 2:
        return []
    first = next(iter(by_route.values()))
    out: list[AggregateAcrossRoutes] = []
    for aggregate in manifest.aggregates:
        views = tuple(
            RouteView(route, ev.cmake_version, _components(ev, aggregate.variable))
            for route, ev in by_route.items()
            if not aggregate.routes or route in aggregate.routes
        )
        if len(views) >= 2:
            out.append(
                AggregateAcrossRoutes(
                    first.mode, first.label, first.platform, aggregate.variable, first.config, views
                )
            )
    return out


def _components(evaluation: ConfigEvaluation, variable: str) -> tuple[str, ...]:
    resolved = evaluation.variable(variable)
    return resolved.components if resolved is not None else ()


def route_coverage(
    manifest: Manifest, evaluations: Sequence[ConfigEvaluation]
) -> list[RouteCoverage]:
    """The routes of the manifest that no configured CMake falls in, for this config.

    A CMake that ran and failed covers its route (the failure is its own finding); a
    run where no CMake could be identified at all is already reported as such.
    """
    evaluated = tuple((ev.route, ev.cmake_version) for ev in evaluations if ev.route)
    if not evaluated:
        return []
    covered = {route for route, _ in evaluated}
    missing = tuple(r.name for r in manifest.cmake.routes if r.name not in covered)
    if not missing:
        return []
    first = evaluations[0]
    return [
        RouteCoverage(first.mode, first.label, first.platform, first.config, evaluated, missing)
    ]
