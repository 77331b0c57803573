"""A structural check of a Mermaid flowchart, independent of the code that writes one.

Mermaid's own parser needs Node; this reads the subset of the flowchart grammar
shiplint writes and fails on what would break or silently change a rendering: an
unknown line, an id declared twice, an edge to an id nobody declared, an unbalanced
subgraph, a class used but not defined or given to an undeclared node, an unquoted
label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ID = r"[A-Za-z][A-Za-z0-9_]*"
_LABEL = r'"[^"]*"'
NODE = re.compile(rf"^({_ID})(\[\[{_LABEL}\]\]|\(\[{_LABEL}\]\)|\[{_LABEL}\]|\({_LABEL}\))$")
SUBGRAPH = re.compile(rf"^subgraph ({_ID})\[({_LABEL})\]$")
EDGE = re.compile(rf"^({_ID}) (-->|-\.->|==>|~~~)(\|{_LABEL}\|)? ({_ID})$")
DIRECTION = re.compile(r"^direction (LR|TB|TD|RL|BT)$")
LINK_STYLE = re.compile(r"^linkStyle (\d+) (\S.*)$")
CLASSDEF = re.compile(rf"^classDef ({_ID}) (\S.*)$")
CLASS = re.compile(rf"^class ({_ID}(?:,{_ID})*) ({_ID})$")


@dataclass
class Chart:
    nodes: dict[str, str] = field(default_factory=dict)  # id -> label
    groups: dict[str, str] = field(default_factory=dict)
    # (source, arrow, label or "", target)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)
    classes: dict[str, set[str]] = field(default_factory=dict)  # class -> node ids
    parents: dict[str, str | None] = field(default_factory=dict)  # id -> enclosing group
    # edge index -> its own style (linkStyle)
    link_styles: dict[int, str] = field(default_factory=dict)
    # group id -> its own direction
    directions: dict[str, str] = field(default_factory=dict)

    def lines(self, node: str) -> list[str]:
        """A label's lines (Mermaid's `<br>`)."""
        return self.nodes[node].split("<br>")

    def first_line(self, text: str) -> list[str]:
        """The ids of the nodes whose label's first line is `text` or starts `text: `."""
        return [
            i
            for i, lab in self.nodes.items()
            if (first := lab.split("<br>")[0]) == text or first.startswith(text + ": ")
        ]

    def section_of(self, ident: str, depth: int = 1) -> str | None:
        """The group `depth` levels above a node or group."""
        found: str | None = ident
        for _ in range(depth):
            found = self.parents.get(found or "")
        return found

    def labelled(self, text: str) -> str:
        """The id of the one node whose label is `text` or starts with `text: `."""
        found = self.first_line(text)
        assert len(found) == 1, f"{text!r}: {found}"
        return found[0]


def parse(text: str) -> Chart:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines and re.fullmatch(r"flowchart (LR|TB|TD|RL|BT)", lines[0]), lines[:1]
    chart = Chart()
    declared: set[str] = set()
    defined: set[str] = set()
    used: list[tuple[str, list[str]]] = []
    stack: list[str] = []

    def declare(ident: str) -> None:
        assert ident not in declared, f"id {ident} declared twice"
        declared.add(ident)
        chart.parents[ident] = stack[-1] if stack else None

    for number, line in enumerate(lines[1:], start=2):
        if m := SUBGRAPH.match(line):
            declare(m[1])
            chart.groups[m[1]] = m[2][1:-1]
            stack.append(m[1])
        elif line == "end":
            assert stack, f"line {number}: end without subgraph"
            stack.pop()
        elif m := NODE.match(line):
            declare(m[1])
            chart.nodes[m[1]] = re.search(_LABEL, m[2])[0][1:-1]  # type: ignore[index]
        elif m := DIRECTION.match(line):
            assert stack, f"line {number}: direction outside a subgraph"
            chart.directions[stack[-1]] = m[1]
        elif m := LINK_STYLE.match(line):
            chart.link_styles[int(m[1])] = m[2]
        elif m := EDGE.match(line):
            chart.edges.append((m[1], m[2], (m[3] or "||")[2:-2], m[4]))
        elif m := CLASSDEF.match(line):
            defined.add(m[1])
        elif m := CLASS.match(line):
            used.append((m[2], m[1].split(",")))
        else:
            raise AssertionError(f"line {number}: not a flowchart line shiplint writes: {line!r}")
    assert not stack, f"subgraphs left open: {stack}"
    for source, _, _, target in chart.edges:
        assert source in declared, f"edge from undeclared {source}"
        assert target in declared, f"edge to undeclared {target}"
    for index in chart.link_styles:
        assert index < len(chart.edges), f"linkStyle {index}: no such edge"
    for name, nodes in used:
        assert name in defined, f"class {name} used but not defined"
        for node in nodes:
            assert node in chart.nodes, f"class {name} given to undeclared {node}"
            chart.classes.setdefault(name, set()).add(node)
    return chart
