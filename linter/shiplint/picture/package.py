"""A picture of a package as Mermaid: libraries -> components -> aggregate variables.

One subgraph per platform. In it the shipped libraries, Python extensions and plugins
each in a group of their own (a wheel ships many; their NEEDED edges leave the group
once per library they need), an edge for each NEEDED entry resolved to another library
of the build, each component from the library that owns it, and each component into
the aggregate variables that carry it, one aggregate node per CMake route (a route
may carry another list). Opt-in components are drawn dashed. What a `View` marks
(findings of a check, changes of a diff) is coloured, and said in the label.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from shiplint.picture.mermaid import Flowchart, Line, Shape


class Mark(enum.Enum):
    # (class name, style): the colours GitHub's light and dark themes both show.
    ERROR = ("error", "fill:#fdd,stroke:#c00,stroke-width:2px,color:#000")
    WARNING = ("warning", "fill:#ffe9b3,stroke:#b60,color:#000")
    INFO = ("info", "fill:#def,stroke:#36c,color:#000")
    ADDED = ("added", "fill:#dfd,stroke:#080,stroke-width:2px,color:#000")
    REMOVED = ("removed", "fill:#fdd,stroke:#c00,stroke-width:2px,stroke-dasharray:5 3,color:#000")
    CHANGED = ("changed", "fill:#ffe9b3,stroke:#b60,stroke-width:2px,color:#000")

    def __init__(self, css_class: str, css: str) -> None:
        self.css_class = css_class
        self.css = css


OPT_IN_CLASS = ("optin", "stroke-dasharray:4 3")


@dataclass(frozen=True)
class Noted:
    """A mark and the words that go with it in the label ("2 errors", "new")."""

    mark: Mark
    note: str


@dataclass(frozen=True)
class LibraryView:
    key: str
    name: str
    # The group it is drawn in ("Python extensions", "plugins"), or None.
    group: str | None
    noted: Noted | None = None


@dataclass(frozen=True)
class ComponentView:
    name: str
    # The library key that owns it, when that library is drawn.
    owner: str | None
    opt_in: bool
    noted: Noted | None = None


@dataclass(frozen=True)
class Membership:
    """A component in an aggregate variable on one route; `noted` when it entered or left."""

    route: str
    variable: str
    component: str
    noted: Noted | None = None


@dataclass(frozen=True)
class View:
    """One platform of the package, as drawn."""

    title: str
    libraries: tuple[LibraryView, ...]
    # (library key, library key it NEEDs), both drawn.
    needs: tuple[tuple[str, str], ...]
    components: tuple[ComponentView, ...]
    memberships: tuple[Membership, ...]
    # (route, variable) -> its mark (a finding about it, or a change).
    variables: dict[tuple[str, str], Noted]
    # Routes drawn with their title ("route targets, CMake 4.4.5").
    routes: dict[str, str]
    # What is marked but has no node of its own (said in the platform's title).
    unplaced: str = ""


def draw(views: Sequence[View]) -> str:
    chart = Flowchart("LR")
    for mark in Mark:
        chart.style(mark.css_class, mark.css)
    chart.style(*OPT_IN_CLASS)
    for view in views:
        _view(chart, view)
    return chart.text()


def _label(name: str, noted: Noted | None) -> str:
    return f"{name}: {noted.note}" if noted is not None and noted.note else name


def _view(chart: Flowchart, view: View) -> None:
    title = f"{view.title} ({view.unplaced})" if view.unplaced else view.title
    platform = chart.group(title)
    libraries = chart.group("libraries", platform)
    groups: dict[str, str] = {}
    nodes: dict[str, str] = {}
    grouped: dict[str, str] = {}  # library key -> its group id
    for library in view.libraries:
        parent = libraries
        if library.group is not None:
            if library.group not in groups:
                count = sum(1 for lib in view.libraries if lib.group == library.group)
                groups[library.group] = chart.group(f"{library.group} ({count})", libraries)
            parent = grouped[library.key] = groups[library.group]
        nodes[library.key] = chart.node(
            _label(library.name, library.noted),
            parent,
            css=library.noted.mark.css_class if library.noted else "",
        )
    seen: set[tuple[str, str]] = set()
    for source, target in view.needs:
        if source not in nodes or target not in nodes:
            continue
        origin = grouped.get(source, nodes[source])
        if origin == grouped.get(target) or (origin, nodes[target]) in seen:
            continue  # inside one group, or already drawn from the group
        seen.add((origin, nodes[target]))
        chart.edge(origin, nodes[target], Line.DOTTED)
    components = chart.group("components", platform) if view.components else None
    drawn: dict[str, str] = {}
    for component in view.components:
        text = f"{component.name} (opt-in)" if component.opt_in else component.name
        drawn[component.name] = chart.node(
            _label(text, component.noted),
            components,
            Shape.ROUNDED,
            component.noted.mark.css_class if component.noted else "",
        )
        if component.opt_in:
            chart.mark(drawn[component.name], OPT_IN_CLASS[0])
        if component.owner in nodes:
            chart.edge(nodes[component.owner], drawn[component.name])
    aggregates: dict[tuple[str, str], str] = {}
    route_groups: dict[str, str] = {}
    for membership in view.memberships:
        where = (membership.route, membership.variable)
        if where not in aggregates:
            if membership.route not in route_groups:
                route_groups[membership.route] = chart.group(
                    view.routes.get(membership.route, f"route {membership.route}"), platform
                )
            noted = view.variables.get(where)
            aggregates[where] = chart.node(
                _label(membership.variable, noted),
                route_groups[membership.route],
                Shape.SUBROUTINE,
                noted.mark.css_class if noted else "",
            )
        if membership.component not in drawn:
            continue
        noted = membership.noted
        if noted is None:
            chart.edge(drawn[membership.component], aggregates[where])
        elif noted.mark is Mark.REMOVED:
            chart.edge(drawn[membership.component], aggregates[where], Line.DOTTED, noted.note)
        else:
            chart.edge(drawn[membership.component], aggregates[where], Line.THICK, noted.note)
