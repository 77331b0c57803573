"""The CMake routes init writes: one per CMake given, where the config tells them apart.

Two CMakes share a route unless the config's text compares CMAKE_VERSION with a
version between theirs (ExecuTorch's 3.28); that version is the boundary. A route
on which the package defines no imported target while another route does is
written `imported_targets: false`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiplint.fastclass import dataclass
from shiplint.init.draft import DraftRoute
from shiplint.init.model import Facts
from shiplint.init.targets import imported


@dataclass(frozen=True)
class Route:
    draft: DraftRoute
    # The CMake paths (as given) that fall in it.
    cmakes: tuple[str, ...]


def _text(version: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in version)


def _groups(
    cmakes: Sequence[tuple[str, tuple[int, ...]]], boundaries: Sequence[tuple[int, ...]]
) -> list[tuple[tuple[int, ...] | None, list[tuple[str, tuple[int, ...]]]]]:
    """CMakes in version order, split at each boundary between two of them; each group
    with the boundary it starts at (None for the first)."""
    ordered = sorted(cmakes, key=lambda c: (c[1], c[0]))
    groups: list[tuple[tuple[int, ...] | None, list[tuple[str, tuple[int, ...]]]]] = []
    for path, version in ordered:
        if not groups:
            groups.append((None, [(path, version)]))
            continue
        previous = groups[-1][1][-1][1]
        between = [b for b in boundaries if previous < b <= version]
        if between:
            groups.append((between[0], [(path, version)]))
        else:
            groups[-1][1].append((path, version))
    return groups


def _published(facts: Facts, cmake: str) -> tuple[object, ...]:
    """What one CMake saw the config publish, over every artifact: its targets and what
    each variable carries, by library."""
    seen: list[object] = []
    for artifact in facts.artifacts:
        for evaluation in artifact.evaluations:
            if evaluation.cmake != cmake:
                continue
            seen.append(
                (
                    evaluation.failure is None,
                    evaluation.found,
                    tuple(
                        sorted((t.name, t.library or "") for t in imported(artifact, evaluation))
                    ),
                    tuple(
                        (v.variable, v.defined, tuple(e.library or e.raw for e in v.entries))
                        for v in evaluation.aggregates
                    ),
                )
            )
    return tuple(seen)


def _merged(
    facts: Facts,
    groups: list[tuple[tuple[int, ...] | None, list[tuple[str, tuple[int, ...]]]]],
) -> list[tuple[tuple[int, ...] | None, list[tuple[str, tuple[int, ...]]]]]:
    """Neighbouring groups whose CMakes saw the same thing are one route: a version test
    in the config's text that changes nothing a consumer sees is no route of its own."""
    out = groups[:1]
    for start, members in groups[1:]:
        before = _published(facts, out[-1][1][0][0])
        if _published(facts, members[0][0]) == before:
            out[-1] = (out[-1][0], [*out[-1][1], *members])
        else:
            out.append((start, members))
    return out


def routes_of(facts: Facts) -> tuple[Route, ...]:
    config = facts.config
    boundaries = config.boundaries if config is not None else ()
    groups = _merged(facts, _groups(facts.cmakes, boundaries))
    out: list[Route] = []
    for index, (start, members) in enumerate(groups):
        end = groups[index + 1][0] if index + 1 < len(groups) else None
        versions = ", ".join(_text(v) for _, v in members)
        if start is None and end is None:
            name, since, below = "any", "3.0", None
            description = f"The config treats every CMake alike (evaluated with CMake {versions})."
        elif start is None:
            assert end is not None
            name, since, below = f"below-{_text(end)}", None, _text(end)
            description = f"CMake before {_text(end)} (evaluated with CMake {versions})."
        else:
            name, since, below = f"since-{_text(start)}", _text(start), None
            if end is not None:
                name, below = f"{name}-below-{_text(end)}", _text(end)
            description = f"CMake {_text(start)} and later (evaluated with CMake {versions})."
        out.append(Route(DraftRoute(name, since, below, description), tuple(p for p, _ in members)))
    return _imported_targets(facts, tuple(out))


def _imported_targets(facts: Facts, routes: tuple[Route, ...]) -> tuple[Route, ...]:
    def has_targets(route: Route) -> bool:
        return any(
            imported(artifact, evaluation)
            for artifact in facts.artifacts
            for evaluation in artifact.evaluations
            if evaluation.cmake in route.cmakes and evaluation.failure is None
        )

    with_targets = [has_targets(r) for r in routes]
    if not any(with_targets):
        return routes
    out = []
    for route, has in zip(routes, with_targets, strict=True):
        if has:
            out.append(route)
            continue
        draft = route.draft
        description = f"{draft.description} No imported targets: variables hold file paths."
        out.append(
            Route(
                DraftRoute(
                    draft.name, draft.since, draft.below, description, imported_targets=False
                ),
                route.cmakes,
            )
        )
    return tuple(out)
