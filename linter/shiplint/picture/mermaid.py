"""A Mermaid flowchart, written out: nodes with generated ids, subgraphs, edges, classes.

Every id is generated here (`n1`, `g1`, ...), never taken from a name: library and
variable names carry dots, `+` and `::`, which Mermaid's grammar reads as syntax.
Labels are quoted with Mermaid's own entity codes for the characters a quoted label
cannot hold.
"""

from __future__ import annotations

import enum
from dataclasses import field

from shiplint.fastclass import dataclass


class Shape(enum.Enum):
    # (opening, closing) of a node declaration.
    BOX = ("[", "]")
    ROUNDED = ("(", ")")
    SUBROUTINE = ("[[", "]]")

    def __init__(self, opening: str, closing: str) -> None:
        self.opening = opening
        self.closing = closing


class Line(enum.Enum):
    SOLID = "-->"
    DOTTED = "-.->"
    THICK = "==>"
    # Drawn as nothing: it only puts its two nodes side by side (a legend's row).
    INVISIBLE = "~~~"


def label(text: str) -> str:
    """`text` as a quoted Mermaid label."""
    escaped = (
        text.replace("&", "#amp;")
        .replace('"', "#quot;")
        .replace("<", "#lt;")
        .replace(">", "#gt;")
        # A line break is the one markup a label keeps: a long label wraps where it says.
        .replace("\n", "<br>")
    )
    return f'"{escaped}"'


@dataclass
class _Group:
    id: str
    title: str
    parent: str | None
    items: list[str] = field(default_factory=list)
    # Its own layout direction (Mermaid keeps it while no edge crosses the group).
    direction: str = ""


@dataclass
class Flowchart:
    """Declarations in the order they are added; `text()` writes the chart."""

    direction: str = "LR"
    _lines: dict[str | None, list[str]] = field(default_factory=dict)
    _groups: dict[str, _Group] = field(default_factory=dict)
    _edges: list[str] = field(default_factory=list)
    # (edge index, css) of edges drawn in a style of their own.
    _link_styles: list[tuple[int, str]] = field(default_factory=list)
    _classes: dict[str, str] = field(default_factory=dict)
    _members: dict[str, list[str]] = field(default_factory=dict)
    _count: int = 0

    def _next(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def group(self, title: str, parent: str | None = None, direction: str = "") -> str:
        """A subgraph (inside `parent`, when given); its id."""
        group = _Group(self._next("g"), title, parent, direction=direction)
        self._groups[group.id] = group
        self._lines.setdefault(parent, []).append(group.id)
        return group.id

    def node(
        self, text: str, group: str | None = None, shape: Shape = Shape.BOX, css: str = ""
    ) -> str:
        """A node (inside `group`, when given); its id."""
        node = self._next("n")
        self._lines.setdefault(group, []).append(
            f"{node}{shape.opening}{label(text)}{shape.closing}"
        )
        if css:
            self.mark(node, css)
        return node

    def edge(
        self, source: str, target: str, line: Line = Line.SOLID, text: str = "", css: str = ""
    ) -> None:
        arrow = line.value
        if text:
            arrow = f"{arrow}|{label(text)}|"
        if css:
            self._link_styles.append((len(self._edges), css))
        self._edges.append(f"{source} {arrow} {target}")

    def style(self, name: str, css: str) -> None:
        """A class the chart's nodes can be marked with."""
        self._classes[name] = css

    def mark(self, node: str, name: str) -> None:
        self._members.setdefault(name, []).append(node)

    def text(self) -> str:
        out = [f"flowchart {self.direction}"]
        self._write(None, 1, out)
        out.extend(f"  {edge}" for edge in self._edges)
        out.extend(f"  linkStyle {index} {css}" for index, css in self._link_styles)
        for name, css in self._classes.items():
            out.append(f"  classDef {name} {css}")
        for name, nodes in self._members.items():
            out.append(f"  class {','.join(nodes)} {name}")
        return "\n".join(out) + "\n"

    def _write(self, parent: str | None, depth: int, out: list[str]) -> None:
        indent = "  " * depth
        for item in self._lines.get(parent, []):
            group = self._groups.get(item)
            if group is None:
                out.append(indent + item)
                continue
            out.append(f"{indent}subgraph {group.id}[{label(group.title)}]")
            if group.direction:
                out.append(f"{indent}  direction {group.direction}")
            self._write(group.id, depth + 1, out)
            out.append(f"{indent}end")
