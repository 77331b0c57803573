"""Write a draft as manifest YAML: fixed key order, comments where a human decides.

Written by hand rather than dumped, so the comments sit beside what they are about
and the same draft is always the same bytes. A scalar is plain only when YAML reads
it back as that very string; anything else is double-quoted (JSON's quoting, which
YAML reads).
"""

from __future__ import annotations

import json
import re
import textwrap

from shiplint.init.draft import (
    Draft,
    DraftAggregate,
    DraftComponent,
    DraftLibrary,
    DraftRoute,
)

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_./+-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}
_WIDTH = 92


def scalar(value: str) -> str:
    if _PLAIN.match(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value)


def _flow(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(scalar(v) for v in values) + "]"


def _comment(text: str, indent: int) -> list[str]:
    pad = " " * indent
    return [f"{pad}# {line}" for line in textwrap.wrap(text, _WIDTH - indent - 2)]


def render(draft: Draft, schema: str | None = None) -> str:
    lines: list[str] = []
    if schema:
        lines.append(f"# yaml-language-server: $schema={schema}")
        lines.append("#")
    lines.append("# A starting manifest written by `shiplint init` from:")
    lines.extend(f"#   {line}" for line in draft.provenance)
    lines.extend(
        _comment(
            "Read every comment: each marks something init guessed or only the project can "
            "decide. Then check the same artifacts with the same CMakes:",
            0,
        )
    )
    # One line, whatever its length: a command is copied whole.
    lines.append(f"#   {draft.check_command or 'shiplint check --no-sources ARTIFACT ...'}")
    lines.append("version: 1")
    lines.append("")
    lines.append("package:")
    lines.append(f"  name: {scalar(draft.package)}")
    lines.append("")
    lines.extend(_cmake(draft))
    lines.append("")
    if draft.libraries:
        lines.append("libraries:")
        for library in draft.libraries:
            lines.extend(_library(library))
    else:
        lines.extend(_comment("No shared library: every component is header-only.", 0))
        lines.append("libraries: []")
    lines.append("")
    lines.append("components:")
    for component in draft.components:
        lines.extend(_component(component))
    if draft.aggregates:
        lines.append("")
        lines.append("aggregates:")
        for aggregate in draft.aggregates:
            lines.extend(_aggregate(aggregate))
    if draft.component_variables:
        lines.append("")
        lines.append("component_variables:")
        for variable in draft.component_variables:
            lines.append(f"  - variable: {scalar(variable.variable)}")
            lines.append(f"    component: {scalar(variable.component)}")
            if variable.routes is not None:
                lines.append(f"    routes: {_flow(variable.routes)}")
    if draft.externals or draft.provided:
        lines.append("")
        lines.append("externals:")
    if draft.externals:
        lines.append("  system:")
        for group in draft.externals:
            lines.extend(_comment(group.comment, 4))
            lines.extend(f"    - policy: {scalar(p)}" for p in group.policies)
            lines.extend(f"    - {scalar(e)}" for e in group.entries)
    if draft.provided:
        lines.append("  provided:")
        for provided in draft.provided:
            lines.extend(_comment(provided.comment, 4))
            lines.append(f"    - provider: {scalar(provided.provider)}")
            lines.append(f"      distribution: {scalar(provided.provider)}")
            lines.append(f"      libraries: {_flow(provided.libraries)}")
    if draft.build_declarations:
        lines.append("")
        lines.append("sources:")
        lines.append('  cmake_roots: ["."]')
        lines.append("  build_declarations:")
        for declaration in draft.build_declarations:
            lines.extend(_comment(" ".join(declaration.notes), 4) if declaration.notes else [])
            lines.append(f"    - kind: {scalar(declaration.kind)}")
            if declaration.path is not None:
                lines.append(f"      path: {scalar(declaration.path)}")
    lines.append("")
    lines.extend(_decide_later())
    return "\n".join(lines) + "\n"


def _cmake(draft: Draft) -> list[str]:
    lines = ["cmake:", f"  package: {scalar(draft.cmake_package or draft.package)}"]
    if draft.namespace:
        lines.append(f"  namespace: {scalar(draft.namespace)}")
    else:
        lines.extend(_comment("No namespace: the package's targets have none.", 2))
    lines.append(f"  package_root: {scalar(draft.package_root)}")
    lines.append("  installed_config_dirs:")
    lines.extend(f"    - {scalar(d)}" for d in draft.config_dirs)
    lines.append("  routes:")
    for route in draft.routes:
        lines.extend(_route(route))
    return lines


def _route(route: DraftRoute) -> list[str]:
    lines = [f"    - name: {scalar(route.name)}"]
    if route.since is not None:
        lines.append(f"      since: {json.dumps(route.since)}")
    if route.below is not None:
        lines.append(f"      below: {json.dumps(route.below)}")
    lines.append(f"      description: {scalar(route.description)}")
    if not route.imported_targets:
        lines.append("      imported_targets: false")
    return lines


def _library(library: DraftLibrary) -> list[str]:
    lines: list[str] = []
    for note in library.notes:
        lines.extend(_comment(note, 2))
    lines.append(f"  - name: {scalar(library.name)}")
    lines.append(f"    kind: {library.kind}")
    if library.build_target is not None:
        lines.append(f"    build: {{target: {scalar(library.build_target)}}}")
    lines.append("    platforms:")
    for placement in library.placements:
        inner = f"dir: {scalar(placement.directory)}"
        if placement.file is not None:
            inner += f", file: {json.dumps(placement.file)}"
        lines.append(f"      {placement.selector}: {{{inner}}}")
    if library.components or library.symbols:
        lines.append("    owns:")
        if library.components:
            lines.append(f"      components: {_flow(library.components)}")
        if library.symbols:
            lines.append("      symbols:")
            lines.extend(f"        - {scalar(symbol)}" for symbol in library.symbols)
    if library.depends_on:
        lines.append(f"    depends_on: {_flow(library.depends_on)}")
    return lines


def _component(component: DraftComponent) -> list[str]:
    lines: list[str] = []
    for note in component.notes:
        lines.extend(_comment(note, 2))
    lines.append(f"  - name: {scalar(component.name)}")
    if component.target is not None:
        lines.append(f"    target: {scalar(component.target)}")
    if component.request is not None:
        lines.append(f"    request: {scalar(component.request)}")
    if component.header_only:
        lines.append("    header_only: true")
    if not component.requestable:
        lines.append("    requestable: false")
    if component.only_on_request:
        lines.append("    only_on_request: true")
    if component.opt_in:
        lines.append("    opt_in: true")
    return lines


def _aggregate(aggregate: DraftAggregate) -> list[str]:
    lines: list[str] = []
    for note in aggregate.notes:
        lines.extend(_comment(note, 2))
    lines.append(f"  - variable: {scalar(aggregate.variable)}")
    if aggregate.only is not None:
        lines.append(f"    carries: {{only: {_flow(aggregate.only)}}}")
    else:
        lines.append(f"    carries: {{all_except: {_flow(aggregate.all_except or ())}}}")
    if aggregate.routes is not None:
        lines.append(f"    routes: {_flow(aggregate.routes)}")
    return lines


def _decide_later() -> list[str]:
    """What init cannot see in a build: said as comments, for the human to fill in."""
    return [
        "# Libraries that must never be loaded into one process (alternatives, or two that",
        "# register the same operators) go here, each with its reason:",
        "# conflicts:",
        "#   - libraries: [a, b]",
        '#     reason: "..."',
        "#",
        "# A finding you accept after the first `shiplint check` is waived with a reason:",
        "# waivers:",
        "#   - rule: SL310",
        "#     subject: {library: a}",
        '#     reason: "..."',
    ]
