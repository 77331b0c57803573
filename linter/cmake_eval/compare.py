"""Put the routes side by side: what each CMake route published in the same aggregate."""

from __future__ import annotations

from collections.abc import Sequence

from linter.cmake_eval.model import AggregateAcrossRoutes, ConfigEvaluation, RouteView
from linter.manifest.model import Manifest


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
