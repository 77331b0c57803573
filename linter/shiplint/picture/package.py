"""A picture of a package as Mermaid: libraries, their components, and on each CMake
route what the aggregate variables carry.

Drawn to be read at the width a page gives it (GitHub scales a chart down to about
1,000-1,200 px): a chart wider than that shows its text too small to read. So each
platform is split into sections that share no edge, which a left-to-right layout
stacks one under another instead of side by side:

- the libraries, each labelled with the components it owns, with an edge for each
  NEEDED entry resolved to another library of the build; the Python extensions and
  the plugins, which no consumer links, are one node per kind listing their names;
- per CMake route, the components and the aggregate variables that carry them (a
  route may carry another list), so no edge crosses from one route to another.

Opt-in components are dashed. What a `View` marks (findings of a check, changes of a
diff) is coloured and said in the label; a change that breaks consumers (a component
that left an aggregate, a removed library) is red with a thick edge, the strongest
mark. A legend row says what each colour means.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import field

from shiplint.fastclass import dataclass
from shiplint.picture.mermaid import Flowchart, Line, Shape


class Mark(enum.Enum):
    # (class name, style, what the legend calls it, rank: the stronger mark wins a node
    # that two marks meet on): the colours GitHub's light and dark themes both show.
    ERROR = ("error", "fill:#fdd,stroke:#c00,stroke-width:3px,color:#000", "error", 5)
    WARNING = ("warning", "fill:#ffe9b3,stroke:#b60,color:#000", "warning", 3)
    INFO = ("info", "fill:#def,stroke:#36c,color:#000", "info", 1)
    ADDED = ("added", "fill:#dfd,stroke:#080,stroke-width:2px,color:#000", "new", 2)
    REMOVED = (
        "removed",
        "fill:#fdd,stroke:#c00,stroke-width:3px,stroke-dasharray:5 3,color:#000",
        "removed (breaking)",
        4,
    )
    CHANGED = ("changed", "fill:#ffe9b3,stroke:#b60,stroke-width:2px,color:#000", "changed", 2)
    BREAKING = (
        "breaking",
        "fill:#fbb,stroke:#c00,stroke-width:4px,color:#000,font-weight:bold",
        "breaking change",
        6,
    )

    def __init__(self, css_class: str, css: str, word: str, rank: int) -> None:
        self.css_class = css_class
        self.css = css
        self.word = word
        self.rank = rank


# An edge that breaks consumers (a component that left an aggregate): thick and red.
BREAKING_EDGE = "stroke:#c00,stroke-width:4px,color:#c00"
ADDED_EDGE = "stroke:#080,stroke-width:3px"


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
    # Components a finding says an aggregate should carry on a route and does not:
    # (route, variable, component) -> the finding's mark, drawn as a marked edge.
    missing: dict[tuple[str, str, str], Noted] = field(default_factory=dict)


def draw(views: Sequence[View]) -> str:
    # Top to bottom: the sections stack one under another; each lays itself out left to
    # right inside (its libraries' NEEDED chains, its components into the aggregates).
    chart = Flowchart("TB")
    used = _used_marks(views)
    for mark in Mark:
        if mark in used:
            chart.style(mark.css_class, mark.css)
    chart.style(*OPT_IN_CLASS)
    legend = _legend(chart, views, used)
    platforms = [_view(chart, view) for view in views]
    for upper, lower in itertools.pairwise([*legend, *platforms]):
        chart.edge(upper, lower, Line.INVISIBLE)
    return chart.text()


def _used_marks(views: Sequence[View]) -> list[Mark]:
    noted = [
        n
        for v in views
        for n in (
            *(lib.noted for lib in v.libraries),
            *(c.noted for c in v.components),
            *(m.noted for m in v.memberships),
            *v.variables.values(),
        )
        if n is not None
    ]
    return [mark for mark in Mark if any(n.mark is mark for n in noted)]


def _legend(chart: Flowchart, views: Sequence[View], used: Sequence[Mark]) -> list[str]:
    """One row: what each colour drawn means, and the dashed opt-in component."""
    opt_in = any(c.opt_in for v in views for c in v.components)
    if not used and not opt_in:
        return []
    group = chart.group("legend", direction="LR")
    row = [chart.node(mark.word, group, css=mark.css_class) for mark in used]
    if opt_in:
        row.append(chart.node("opt-in component", group, Shape.ROUNDED, OPT_IN_CLASS[0]))
    for left, right in itertools.pairwise(row):
        chart.edge(left, right, Line.INVISIBLE)
    return [group]


def _label(name: str, noted: Noted | None) -> str:
    return f"{name}: {noted.note}" if noted is not None and noted.note else name


def _is_finding(noted: Noted | None) -> bool:
    return noted is not None and noted.mark in (Mark.ERROR, Mark.WARNING, Mark.INFO)


def _strongest(*marks: Noted | None) -> Mark | None:
    found = [n.mark for n in marks if n is not None]
    return max(found, key=lambda m: m.rank) if found else None


def _names(names: Sequence[str], per_line: int = 3, most: int = 12) -> str:
    shown = list(names[:most]) + ([f"and {len(names) - most} more"] if len(names) > most else [])
    lines = [", ".join(shown[i : i + per_line]) for i in range(0, len(shown), per_line)]
    return "\n".join(lines)


def _group_note(members: Sequence[LibraryView]) -> Noted | None:
    """A group's mark: its members', counted by kind ("3 with warnings, 1 new")."""
    marks = [lib.noted.mark for lib in members if lib.noted is not None]
    if not marks:
        return None
    strongest = max(marks, key=lambda m: m.rank)
    counts = [(mark, marks.count(mark)) for mark in sorted(set(marks), key=lambda m: -m.rank)]
    words = ", ".join(
        f"{n} {mark.word}"
        if mark.word in ("new", "changed", "removed (breaking)")
        else f"{n} with {mark.word}s"
        for mark, n in counts
    )
    return Noted(strongest, words)


def _view(chart: Flowchart, view: View) -> str:
    title = f"{view.title} ({view.unplaced})" if view.unplaced else view.title
    platform = chart.group(title, direction="TB")
    sections = [_libraries(chart, view, platform), *_routes(chart, view, platform)]
    # Invisible links keep the sections in this order, one under another.
    for upper, lower in itertools.pairwise(sections):
        chart.edge(upper, lower, Line.INVISIBLE)
    return platform


def _libraries(chart: Flowchart, view: View, platform: str) -> str:
    section = chart.group("libraries and the components they own", platform, "LR")
    owned: dict[str, list[ComponentView]] = {}
    for component in view.components:
        if component.owner is not None:
            owned.setdefault(component.owner, []).append(component)
    nodes: dict[str, str] = {}
    groups: dict[str, list[LibraryView]] = {}
    for library in view.libraries:
        if library.group is not None:
            groups.setdefault(library.group, []).append(library)
            continue
        lines = [library.name, *([library.noted.note] if library.noted else [])]
        # A finding about a component is said with its library; a diff's per-route
        # change of it is said in that route's section.
        found = [c.noted if _is_finding(c.noted) else None for c in owned.get(library.key, ())]
        for component, noted in zip(owned.get(library.key, ()), found, strict=True):
            text = f"{component.name} (opt-in)" if component.opt_in else component.name
            lines.append(f"component {_label(text, noted)}")
        mark = _strongest(library.noted, *found)
        node = chart.node("\n".join(lines), section, css=mark.css_class if mark else "")
        nodes[library.key] = node
    for name, members in groups.items():
        noted = _group_note(members)
        text = f"{name} ({len(members)})\n{_names([m.name for m in members])}"
        if noted is not None:
            text += f"\n{noted.note}"
        node = chart.node(text, section, css=noted.mark.css_class if noted is not None else "")
        for member in members:
            nodes[member.key] = node
    grouped = {member.key for members in groups.values() for member in members}
    drawn = {lib.key for lib in view.libraries}
    for component in view.components:
        if component.owner is None or component.owner not in drawn:
            # Header-only, or its library is not in this build: a node of its own.
            text = f"{component.name} (opt-in)" if component.opt_in else component.name
            node = chart.node(
                f"component {_label(text, component.noted)}",
                section,
                Shape.ROUNDED,
                component.noted.mark.css_class if component.noted else "",
            )
            if component.opt_in:
                chart.mark(node, OPT_IN_CLASS[0])
    seen: set[tuple[str, str]] = set()
    for source, target in view.needs:
        if source not in nodes or target not in nodes:
            continue
        edge = (nodes[source], nodes[target])
        if edge[0] == edge[1] or edge in seen or target in grouped:
            # Inside one group, already drawn from the group, or into a group: what
            # consumers link is the package's own libraries, and a column fewer keeps
            # the picture readable.
            continue
        seen.add(edge)
        chart.edge(*edge, Line.DOTTED)
    return section


def _routes(chart: Flowchart, view: View, platform: str) -> list[str]:
    """Per route: each component it carries into each aggregate, and the opt-in ones
    it leaves out, in a section of their own."""
    components = {c.name: c for c in view.components}
    routes = list(
        dict.fromkeys([*(m.route for m in view.memberships), *(r for r, _, _ in view.missing)])
    )
    sections = []
    for route in routes:
        title = view.routes.get(route, f"route {route}")
        section = chart.group(f"{title}: what the aggregates carry", platform, "LR")
        sections.append(section)
        members = [m for m in view.memberships if m.route == route]
        missing = [(v, c, n) for (r, v, c), n in view.missing.items() if r == route]
        drawn: dict[str, str] = {}
        carried = [m.component for m in members] + [c for _, c, _ in missing]
        opt_in = [c.name for c in view.components if c.opt_in and c.name not in carried]
        left = {m.component for m in members if m.noted and m.noted.mark is Mark.BREAKING}
        for name in dict.fromkeys([*carried, *opt_in]):
            component = components.get(name)
            is_opt_in = component is not None and component.opt_in
            noted = _on_route(component.noted if component is not None else None, route)
            if name in left:
                # It left an aggregate: the strongest mark, on the node as on the edge.
                noted = Noted(Mark.BREAKING, noted.note if noted else "")
            text = f"{name} (opt-in)" if is_opt_in else name
            drawn[name] = chart.node(
                _label(text, noted), section, Shape.ROUNDED, noted.mark.css_class if noted else ""
            )
            if is_opt_in:
                chart.mark(drawn[name], OPT_IN_CLASS[0])
        aggregates: dict[str, str] = {}
        for membership in members:
            where = (membership.route, membership.variable)
            if membership.variable not in aggregates:
                noted = view.variables.get(where)
                aggregates[membership.variable] = chart.node(
                    _label(membership.variable, noted),
                    section,
                    Shape.SUBROUTINE,
                    noted.mark.css_class if noted else "",
                )
            source, target = drawn[membership.component], aggregates[membership.variable]
            _membership_edge(chart, source, target, membership.noted)
        for variable, absent, noted in missing:
            if variable not in aggregates:
                aggregates[variable] = chart.node(
                    _label(variable, view.variables.get((route, variable))),
                    section,
                    Shape.SUBROUTINE,
                    noted.mark.css_class,
                )
            # What a finding says is missing: the finding's colour, dashed, said so.
            chart.mark(drawn[absent], noted.mark.css_class)
            chart.edge(
                drawn[absent],
                aggregates[variable],
                Line.DOTTED,
                f"missing: {noted.note}",
                "stroke:#c00,stroke-width:3px,stroke-dasharray:6 4,color:#c00",
            )
    return sections


def _on_route(noted: Noted | None, route: str) -> Noted | None:
    """A component's mark as one route's section shows it: a change said for another
    route ("new on route targets") is that route's, not this one's."""
    if noted is None or " on route " not in noted.note:
        return noted
    said, _, where = noted.note.rpartition(" on route ")
    return Noted(noted.mark, said) if where == route else None


def _membership_edge(chart: Flowchart, source: str, target: str, noted: Noted | None) -> None:
    if noted is None:
        chart.edge(source, target)
    elif noted.mark in (Mark.REMOVED, Mark.BREAKING):
        chart.edge(source, target, Line.THICK, noted.note, BREAKING_EDGE)
    else:
        chart.edge(source, target, Line.THICK, noted.note, ADDED_EDGE)
