"""Which targets a build produces: the requested ones and everything they link or depend on."""

from __future__ import annotations

from collections import deque

from shiplint.sources.model import BuildPlan, CMakeProject, Conditions


def _when(conditions: Conditions) -> str:
    return f" (when {' and '.join(conditions)})" if conditions else ""


def built_targets(project: CMakeProject, plan: BuildPlan) -> dict[str, tuple[str, ...]]:
    """Target name -> why it is built: the request, then each link/dependency edge followed.

    Conditions are not evaluated: an edge under `if(X)` still counts, and says so.
    """
    why: dict[str, tuple[str, ...]] = {}
    queue: deque[str] = deque()

    def reach(name: str, chain: tuple[str, ...]) -> None:
        if name not in why:
            why[name] = chain
            queue.append(name)

    for request in plan.requests:
        reach(
            request.name,
            (
                f"{request.name} is requested at {request.location.render()}{_when(request.conditions)}",
            ),
        )
    if plan.builds_all:
        where = plan.builds_all[0].render()
        for target in project.targets:
            if target.in_all:
                reach(target.name, (f"{target.name} is in ALL, which {where} builds",))
    edges: dict[str, list[tuple[str, str]]] = {}
    for edge in project.edges:
        verb = {"link": "links", "dependency": "depends on", "alias": "is an alias of"}[edge.kind]
        step = (
            f"{edge.source} {verb} {edge.dest} at {edge.location.render()}{_when(edge.conditions)}"
        )
        edges.setdefault(edge.source, []).append((edge.dest, step))
    while queue:
        source = queue.popleft()
        for dest, step in edges.get(source, ()):
            reach(dest, (*why[source], step))
    return why
