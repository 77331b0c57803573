"""Rules SL2xx: each component's CMake target is defined, shared, named, installed and built.

All read one `SourceModel` (sources/model.py); none sees CMake text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Library, Manifest
from shiplint.plural import counted
from shiplint.rule import Rule
from shiplint.sources.model import (
    Conditions,
    OutputName,
    PackagingEntry,
    PackagingIndex,
    SourceModel,
    TargetDef,
    name_matches,
)

_LIBRARY_KINDS = ("library", "imported", "alias")


def _component_libraries(manifest: Manifest) -> Iterator[tuple[Library, str]]:
    """Libraries that own a component and are built here, with the component named first."""
    for library in manifest.libraries:
        if library.owns.components and library.build_target:
            yield library, library.owns.components[0]


def _subject(library: Library, component: str | None = None) -> Subject:
    return Subject(component=component, library=library.name, target=library.build_target)


def _definitions(model: SourceModel, name: str) -> tuple[TargetDef, ...]:
    return tuple(d for d in model.project.definitions(name) if d.kind != "imported")


def _when(conditions: Conditions) -> str:
    if len(conditions) == 1:
        return conditions[0]
    # `A OR B` joined with `and` would read wrongly: bracket compound conditions.
    return " and ".join(f"({c})" if " OR " in c or " AND " in c else c for c in conditions)


def _alternatives(groups: list[Conditions]) -> str:
    """`A and B` or `C`, without repeats; empty when any alternative is unconditional."""
    if any(not g for g in groups):
        return ""
    unique = list(dict.fromkeys(_when(g) for g in groups))
    return " | ".join(f"({u})" if len(unique) > 1 else u for u in unique)


def _walk_caveat(model: SourceModel) -> str:
    count = len(model.project.unreadable)
    if not count:
        return ""
    return f"; {counted(count, 'CMake input')} could not be followed (see SL207), the target may be there"


# -- SL201 ------------------------------------------------------------------------------


def component_target_undefined(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for library, component in _component_libraries(manifest):
        target = library.build_target or ""
        if _definitions(model, target):
            continue
        yield Finding(
            message=f"component {component}: library {library.name} is built by target "
            f"{target}, which none of the {counted(len(model.project.files), 'CMake file')} read defines"
            f"{_walk_caveat(model)}",
            location=library.mark,
            subject=_subject(library, component),
            hint="Define the target (add_library or the project's wrapper), or correct the "
            "library's `build.target` in the manifest; check `sources.cmake_roots` and "
            "`sources.exclude`.",
        )


# -- SL202 ------------------------------------------------------------------------------


def registering_library_built_static(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for library in manifest.libraries:
        if not library.registers_statically or not library.build_target:
            continue
        defs = [d for d in _definitions(model, library.build_target) if d.kind in _LIBRARY_KINDS]
        types = {d.library_type for d in defs}
        if not defs or types & {"SHARED", "MODULE"} or not types & {"STATIC", "OBJECT"}:
            continue
        first = next(d for d in defs if d.library_type in ("STATIC", "OBJECT"))
        yield Finding(
            message=f"library {library.name} registers from a static initializer but its target "
            f"{first.name} is built {first.library_type} ({first.type_reason}); a consumer "
            "that references none of its symbols drops the initializer",
            location=first.location,
            subject=_subject(
                library, library.owns.components[0] if library.owns.components else None
            ),
            hint="Build it SHARED (or MODULE), as the shipped component must be; whole-archive "
            "linking is left to every consumer otherwise.",
        )


# -- SL203 ------------------------------------------------------------------------------


def _is_conditional(setting: Conditions, definitions: tuple[TargetDef, ...]) -> bool:
    """A setting is conditional when it sits under an if() its target's definition does not."""
    return not any(set(setting) <= set(d.conditions) for d in definitions)


def possible_output_names(
    model: SourceModel, target: str
) -> list[tuple[str, OutputName | None, bool]]:
    """(name, where it is set or None for the default, whether only under a condition)."""
    definitions = _definitions(model, target)
    # A file reached twice (two add_subdirectory paths) sets the same name twice: once is enough.
    settings = list(
        {
            (o.value, o.location): o for o in model.project.output_names if o.target == target
        }.values()
    )
    out: list[tuple[str, OutputName | None, bool]] = [
        (o.value, o, _is_conditional(o.conditions, definitions)) for o in settings
    ]
    if all(conditional for _, _, conditional in out):
        out.append((target, None, bool(out)))
    return out


def output_name_mismatch(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for library in manifest.libraries:
        target = library.build_target
        if not target or not _definitions(model, target):
            continue
        names = possible_output_names(model, target)
        if any(name == library.output_name or "${" in name for name, _, _ in names):
            continue
        described = ", ".join(
            f"{name} ({'set at ' + o.location.render() if o else 'the target name'}"
            f"{', only when ' + _when(o.conditions) if o and conditional else ''})"
            for name, o, conditional in names
        )
        setting = next((o for _, o, _ in names if o is not None), None)
        where = setting.location if setting else _definitions(model, target)[0].location
        yield Finding(
            message=f"library {library.name} must be named {library.output_name}, but target "
            f"{target} produces {described}",
            location=where,
            subject=_subject(library),
            hint=f"set_target_properties({target} PROPERTIES OUTPUT_NAME {library.output_name}), "
            "or correct output_name in the manifest: the component and its file must read "
            "as a pair.",
        )


# -- SL204 ------------------------------------------------------------------------------


def component_target_not_installed(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for library, component in _component_libraries(manifest):
        target = library.build_target or ""
        defs = _definitions(model, target)
        if not defs or any(i.target == target for i in model.project.installs):
            continue
        yield Finding(
            message=f"component {component}: target {target} (library {library.name}) is "
            "never installed: no install(TARGETS ...) names it",
            location=defs[0].location,
            subject=_subject(library, component),
            hint=f"install(TARGETS {target} EXPORT <set> LIBRARY DESTINATION ...) next to its "
            "definition, so an installed package carries it.",
        )


# -- SL205 ------------------------------------------------------------------------------


def component_never_built(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    if not manifest.sources.build_declarations:
        return
    declared = ", ".join(
        d.kind + (f" ({d.path})" if d.path else "") for d in manifest.sources.build_declarations
    )
    for library, component in _component_libraries(manifest):
        target = library.build_target or ""
        defs = _definitions(model, target)
        if not defs or model.built_by(target) is not None:
            continue
        yield Finding(
            message=f"component {component}: target {target} (library {library.name}) is "
            f"declared but never built: the build ({declared}) does not ask for it and no "
            "target it builds links or depends on it",
            location=defs[0].location,
            subject=_subject(library, component),
            hint=f"Request {target} explicitly in the build ({declared}: its target list, "
            "`--target`, a preset's targets): nothing else in the package links it.",
        )


# -- SL206 ------------------------------------------------------------------------------


def unknown_build_target(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for request in model.plan.requests:
        if model.project.definitions(request.name):
            continue
        yield Finding(
            message=f"the build ({request.declaration}) asks for target {request.name}, which "
            f"none of the {counted(len(model.project.files), 'CMake file')} read defines"
            f"{_walk_caveat(model)}",
            location=request.location,
            subject=Subject(target=request.name),
            hint="Remove the request or correct the target name; a build that asks for a "
            "missing target fails.",
        )
    for library in manifest.libraries:
        target = library.build_target
        if library.owns.components or not target or model.project.definitions(target):
            continue  # component libraries are SL201's
        yield Finding(
            message=f"library {library.name} ({library.kind.value}) is built by target {target}, "
            f"which none of the {counted(len(model.project.files), 'CMake file')} read defines"
            f"{_walk_caveat(model)}",
            location=library.mark,
            subject=_subject(library),
            hint="Correct the library's `build.target` in the manifest, or define the target.",
        )


# -- SL207 ------------------------------------------------------------------------------


def unreadable_build_source(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    plan = model.plan
    for item in (*model.project.unreadable, *plan.unreadable):
        yield Finding(
            message=item.reason,
            location=item.location,
            subject=Subject(variable=item.variable, target=item.target),
            hint="Fix the input, or list a vendored tree in sources.exclude; targets defined "
            "beyond this point are not seen.",
        )
    for item in plan.packaging_unreadable:
        yield Finding(
            message=item.reason,
            location=item.location,
            subject=Subject(variable=item.variable),
            hint="Name the file with a literal (a function that only adds the platform's "
            "prefix or suffix goes in packaging.name_functions), or waive the finding naming "
            "the expression as `variable`; this entry is not checked against the targets.",
        )


# -- SL208 ------------------------------------------------------------------------------


def conditional_component_target(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    for library, component in _component_libraries(manifest):
        target = library.build_target or ""
        defs = _definitions(model, target)
        if not defs:
            continue
        parts: list[str] = []
        defined = _alternatives([d.conditions for d in defs])
        if defined:
            parts.append(f"defined only when {defined}")
        shared = [d.choice or d.conditions for d in defs if d.library_type in ("SHARED", "MODULE")]
        if shared and len(shared) < len(defs):
            parts.append(f"SHARED only when {_alternatives(shared)}")
        matches = [
            (o, conditional)
            for name, o, conditional in possible_output_names(model, target)
            if name == library.output_name
        ]
        if matches and all(o is not None and conditional for o, conditional in matches):
            # Only what the name needs beyond the definition's own conditions.
            own = {c for d in defs for c in d.conditions}
            groups = [
                tuple(c for c in o.conditions if c not in own) or o.conditions
                for o, _ in matches
                if o is not None
            ]
            parts.append(f"named {library.output_name} only when {_alternatives(groups)}")
        requests = [r for r in model.plan.requests if r.name == target]
        if requests and not model.plan.builds_all:
            asked = _alternatives([r.conditions for r in requests])
            if asked:
                parts.append(f"requested only when {asked}")
        if parts:
            yield Finding(
                message=f"component {component}: target {target} is " + "; ".join(parts),
                location=defs[0].location,
                subject=_subject(library, component),
                hint="The packaging build must set these options; a build without them ships "
                "no (or a wrongly named) library for this component.",
            )


# -- SL209 ------------------------------------------------------------------------------

# Kinds whose target name or OUTPUT_NAME is the file the build leaves in its tree.
_PRODUCING_KINDS = ("library", "executable")


def _packaging_index(manifest: Manifest, model: SourceModel) -> PackagingIndex:
    """Every output name a known target may get (conditional ones too), and prebuilt libraries.

    A manifest library with a `build.target` counts only through its target: matching its
    manifest name would hide exactly the rename this rule is for.
    """
    outputs: list[tuple[str, str]] = []
    for target in dict.fromkeys(
        t.name for t in model.project.targets if t.kind in _PRODUCING_KINDS
    ):
        for name, _, _ in possible_output_names(model, target):
            outputs.append((name, f"target {target}"))
    for made in model.project.byproducts:
        outputs.append((made.value, f"target {made.target} (BUILD_BYPRODUCTS)"))
    for library in manifest.libraries:
        if not library.build_target:
            outputs.append((library.output_name, f"manifest library {library.name}"))
    return PackagingIndex(outputs)


def _packaging_caveat(model: SourceModel) -> str:
    count = len(model.plan.packaging_unreadable)
    if not count:
        return ""
    return (
        f"; {counted(count, 'packaging entry', 'packaging entries')} could not be read (see SL207)"
    )


def _entry_when(entry: PackagingEntry) -> str:
    return f" (when {_when(entry.conditions)})" if entry.conditions else ""


def packaging_entry_without_target(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    entries = [e for e in model.plan.packaging if not e.checked_in]
    if not entries:
        return
    index = _packaging_index(manifest, model)
    for entry in entries:
        for name in entry.names:
            if index.producers(name):
                continue
            yield Finding(
                message=f"the packaging ({entry.declaration}) copies {name!r} with "
                f"{entry.call}(...){_entry_when(entry)}, but no target of the "
                f"{counted(len(model.project.files), 'CMake file')} read produces it (by OUTPUT_NAME, "
                "target name or BUILD_BYPRODUCTS), no manifest library without a build target is named so, and it is "
                f"not a file in the checkout{_walk_caveat(model)}",
                location=entry.location,
                subject=Subject(target=name),
                hint="Correct the name to the target's output name, or remove the entry: "
                "packaging then looks for a file no build makes.",
            )


# -- SL210 ------------------------------------------------------------------------------


def component_not_packaged(manifest: Manifest, model: SourceModel) -> Iterator[Finding]:
    plan = model.plan
    if not plan.packaging_read:
        return
    for library, component in _component_libraries(manifest):
        target = library.build_target or ""
        defs = _definitions(model, target)
        if not defs or model.built_by(target) is None:
            continue  # undefined or never built: SL201 / SL205
        outputs = {library.output_name, *(n for n, _, _ in possible_output_names(model, target))}
        if any(
            name_matches(name, output)
            for entry in plan.packaging
            for name in entry.names
            for output in outputs
        ):
            continue
        yield Finding(
            message=f"component {component}: target {target} (library {library.name}) is built "
            f"but never packaged: none of the "
            f"{counted(len(plan.packaging), 'packaging entry', 'packaging entries')} of "
            f"{', '.join(plan.packaging_read)} copies {library.output_name} (or another name "
            f"the target may get){_packaging_caveat(model)}",
            location=defs[0].location,
            subject=_subject(library, component),
            hint=f"Add a packaging entry that copies the {library.output_name} library into "
            "the wheel; without one the component silently disappears from it.",
        )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL201", SourceModel, component_target_undefined),
    Rule("SL202", SourceModel, registering_library_built_static),
    Rule("SL203", SourceModel, output_name_mismatch),
    Rule("SL204", SourceModel, component_target_not_installed),
    Rule("SL205", SourceModel, component_never_built),
    Rule("SL206", SourceModel, unknown_build_target),
    Rule("SL207", SourceModel, unreadable_build_source),
    Rule("SL208", SourceModel, conditional_component_target),
    Rule("SL209", SourceModel, packaging_entry_without_target),
    Rule("SL210", SourceModel, component_not_packaged),
)
