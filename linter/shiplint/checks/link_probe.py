"""Rules of the link probe (SL5xx): what real consumer builds kept on their link line.

Each rule compares one consumer's NEEDED (already resolved to manifest libraries
by `shiplint.probes.link`) with the manifest. A library that registers nothing
statically may legitimately be dropped by `--as-needed` when the consumer uses
none of its symbols, so absence is only a defect for registration-only libraries;
presence of a library the consumer did not ask for is always a fact.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Aggregate, Library, Manifest
from shiplint.plural import counted
from shiplint.probes.link.model import (
    ConsumerBuild,
    ConsumerKind,
    NotProbed,
    NotProbedReason,
    ProbeContext,
    ProbeUnavailable,
    RunSite,
)
from shiplint.probes.status import could_not_run, did_not_apply
from shiplint.rule import Rule


def _where(context: ProbeContext) -> str:
    route = f", route {context.route}" if context.route else ""
    return f"with CMake {context.cmake_version}{route}"


def _needed(build: ConsumerBuild) -> str:
    return "[" + ", ".join(build.needed) + "]"


def _registration_only(manifest: Manifest, library: str) -> Library | None:
    lib = manifest.library(library)
    return lib if lib is not None and lib.registers_statically else None


def component_dropped(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL501: a component asked for by name is not in the consumer's NEEDED."""
    consumer, context = build.consumer, build.context
    if build.failure or consumer.kind not in (ConsumerKind.TARGET, ConsumerKind.VARIABLE):
        return
    if consumer.component is None:
        return
    owner = manifest.owner_of(consumer.component)
    if owner is None or owner.name not in context.libraries or owner.name in build.libraries:
        return
    if not owner.registers_statically:
        return
    file = context.file_of(owner.name)
    yield Finding(
        message=(
            f"{consumer.describe()} {_where(context)} does not depend on {file}: "
            f"its NEEDED is {_needed(build)}; the linker dropped the registration-only "
            "library under --as-needed, so its operators are never registered"
        ),
        location=context.config,
        subject=Subject(
            component=consumer.component,
            library=owner.name,
            variable=consumer.variable,
            target=consumer.target,
            cmake_version=context.cmake_version,
            artifact=context.artifact,
        ),
        hint=(
            f"Wrap {file} for retention where the config offers it: "
            "`LINKER:--push-state,--no-as-needed,<lib>,--pop-state` in the imported target's "
            "INTERFACE_LINK_OPTIONS, `-Wl,--push-state,--no-as-needed,<lib>,--pop-state` "
            "in a variable."
        ),
    )


def _aggregate(manifest: Manifest, build: ConsumerBuild) -> Aggregate | None:
    if build.failure or build.consumer.kind is not ConsumerKind.AGGREGATE:
        return None
    return next((a for a in manifest.aggregates if a.variable == build.consumer.variable), None)


def aggregate_carries_excluded(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL502: the aggregate's consumer depends on a library the aggregate must not carry."""
    aggregate = _aggregate(manifest, build)
    if aggregate is None:
        return
    expected = set(aggregate.carries.expected(manifest.components))
    known = {c.name for c in manifest.components}
    context = build.context
    for name in build.libraries:
        library = manifest.library(name)
        owned = [c for c in library.owns.components if c in known] if library else []
        if not owned or any(c in expected for c in owned):
            continue
        file = context.file_of(name)
        yield Finding(
            message=(
                f"the consumer linking only ${{{aggregate.variable}}} {_where(context)} depends "
                f"on {file} (component {', '.join(owned)}), which the aggregate must not carry"
            ),
            location=context.config,
            subject=Subject(
                component=owned[0],
                library=name,
                variable=aggregate.variable,
                cmake_version=context.cmake_version,
                artifact=context.artifact,
            ),
            hint=(
                f"Keep {', '.join(owned)} out of {aggregate.variable} (and out of the "
                "INTERFACE_LINK_LIBRARIES of the targets it lists); consumers opt in by name."
            ),
        )


def aggregate_drops_component(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL503: the aggregate's consumer lacks a registration-only library it must carry."""
    aggregate = _aggregate(manifest, build)
    if aggregate is None:
        return
    context = build.context
    reported: set[str] = set()
    for component in aggregate.carries.expected(manifest.components):
        owner = manifest.owner_of(component)
        if owner is None or owner.name in reported or owner.name not in context.libraries:
            continue
        if owner.name in build.libraries or _registration_only(manifest, owner.name) is None:
            continue
        reported.add(owner.name)
        file = context.file_of(owner.name)
        yield Finding(
            message=(
                f"the consumer linking only ${{{aggregate.variable}}} {_where(context)} does not "
                f"depend on {file} (component {component}), which the artifact ships and the "
                f"aggregate must carry: its NEEDED is {_needed(build)}"
            ),
            location=context.config,
            subject=Subject(
                component=component,
                library=owner.name,
                variable=aggregate.variable,
                cmake_version=context.cmake_version,
                artifact=context.artifact,
            ),
            hint=(
                f"List {file} in {aggregate.variable} on this route, wrapped for retention "
                "(`-Wl,--push-state,--no-as-needed,<lib>,--pop-state`), or state in the "
                "manifest that the aggregate does not carry it."
            ),
        )


def consumer_build_failed(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL504: a consumer did not configure, link or read."""
    failure, context = build.failure, build.context
    if failure is None:
        return
    output = f"; last lines of output:\n{failure.tail}" if failure.tail else ""
    yield Finding(
        message=(
            f"{build.consumer.describe()} failed at the {failure.step.value} step {_where(context)}: "
            f"{failure.reason}{output}"
        ),
        location=context.config,
        subject=Subject(
            component=build.consumer.component,
            variable=build.consumer.variable,
            target=build.consumer.target,
            cmake_version=context.cmake_version,
            artifact=context.artifact,
        ),
        hint=(
            "Build the same consumer by hand (find_package(... CONFIG REQUIRED), link what it "
            "names) with this CMake: a consumer that cannot link cannot use the package."
        ),
    )


def consumer_does_not_run(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL510: a consumer that linked does not run where it was built."""
    run, context = build.run_at(RunSite.IN_PLACE), build.context
    if build.failure or run is None or run.ok:
        return
    output = f": {run.tail}" if run.tail else ""
    yield Finding(
        message=(
            f"{build.consumer.describe()} {_where(context)} links but does not run where it "
            f"was built ({run.reason}){output}; its RUNPATH is {_listed(build.runpath)}"
        ),
        location=context.config,
        subject=_consumer_subject(build),
        hint=(
            "Make the config record where the libraries are: a library the consumer links "
            "through a linker flag (not a path or an imported target) gets no RUNPATH entry "
            "from CMake, so publish it as a path or a target, or add its directory to the "
            "link options as a run path."
        ),
    )


def consumer_not_relocatable(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL511: a consumer runs in place but not deployed beside the package's libraries."""
    here, there = build.run_at(RunSite.IN_PLACE), build.run_at(RunSite.DEPLOYED)
    if build.failure or here is None or not here.ok or there is None or there.ok:
        return
    context = build.context
    relative = [e for e in build.runpath if e.startswith(_RELATIVE_TOKENS)]
    why = (
        "none of its RUNPATH entries is relative to the binary"
        if not relative
        else f"its relative entries {_listed(relative)} did not find them"
    )
    output = f": {there.tail}" if there.tail else ""
    yield Finding(
        message=(
            f"{build.consumer.describe()} {_where(context)} runs where it was built but not "
            f"once deployed beside copies of the package's libraries with the package moved "
            f"away ({there.reason}){output}; its RUNPATH is {_listed(build.runpath)}: {why}"
        ),
        location=context.config,
        subject=_consumer_subject(build),
        hint=(
            "Publish a run path relative to the consumer ($ORIGIN on Linux, @loader_path on "
            "macOS) in the imported targets' link options, so an application deployed with "
            "the libraries beside it finds them without the package it was built against."
        ),
    )


# Loader tokens that make a run path relative to the binary holding it.
_RELATIVE_TOKENS = ("$ORIGIN", "${ORIGIN}", "@loader_path", "@executable_path")


def _asked_components(manifest: Manifest, build: ConsumerBuild) -> set[str]:
    """The components the consumer asked the package for."""
    consumer = build.consumer
    if consumer.kind is ConsumerKind.AGGREGATE:
        aggregate = _aggregate(manifest, build)
        return set(aggregate.carries.expected(manifest.components)) if aggregate else set()
    return {consumer.component} if consumer.component else set()


def registrations_differ(manifest: Manifest, build: ConsumerBuild) -> Iterator[Finding]:
    """SL512: what a running consumer finds registered is not what it asked for."""
    if build.failure or build.registered is None:
        return
    context = build.context
    asked = _asked_components(manifest, build)
    registered = set(build.registered)
    for library in manifest.libraries:
        spaces = library.owns.operator_namespaces
        if not spaces or library.name not in context.libraries:
            continue
        seen = sorted(n for n in registered if n.split("::", 1)[0] in spaces)
        wanted = [c for c in library.owns.components if c in asked]
        expected = library.owns.operator_count
        namespaces = ", ".join(spaces)
        if wanted and (not seen or (expected is not None and len(seen) != expected)):
            declared = f"the manifest declares {expected}" if expected is not None else ""
            fact = f"sees {counted(len(seen), 'operator')} of {namespaces} registered"
            problem = f"{fact}; {declared}" if declared else fact
            why = (
                f"it asked for {', '.join(wanted)}, which {context.file_of(library.name)} registers"
            )
        elif not wanted and seen:
            problem = (
                f"sees {counted(len(seen), 'operator')} of {namespaces} registered ({_first(seen)})"
            )
            why = (
                f"it did not ask for {', '.join(library.owns.components)}, whose library "
                f"{context.file_of(library.name)} registers them"
            )
        else:
            continue
        yield Finding(
            message=f"{build.consumer.describe()} {_where(context)} {problem}: {why}",
            location=context.config,
            subject=replace(
                _consumer_subject(build),
                component=build.consumer.component or library.owns.components[0],
                library=library.name,
            ),
            hint=(
                "A consumer must register exactly the components it links: keep a "
                "registration-only library on the link line of the consumers that name it "
                "(retention), and out of every other target's and variable's link interface."
            ),
        )


def _first(names: list[str], shown: int = 3) -> str:
    more = f", … ({len(names) - shown} more)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _listed(entries: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(entries) + "]"


def _consumer_subject(build: ConsumerBuild) -> Subject:
    return Subject(
        component=build.consumer.component,
        variable=build.consumer.variable,
        target=build.consumer.target,
        cmake_version=build.context.cmake_version,
        artifact=build.context.artifact,
    )


_NOT_PROBED_HINTS = {
    NotProbedReason.OTHER_PLATFORM: "Run the link probe on a host of the artifact's platform.",
    NotProbedReason.NOTHING_TO_LINK: (
        "Nothing to link here; the artifact rules report libraries the manifest requires."
    ),
    NotProbedReason.NO_LISTING_ON_ROUTE: (
        "Registrations are counted on the routes with imported targets; a consumer on this "
        "route sees what the same libraries register there."
    ),
    NotProbedReason.NO_NAME_ON_ROUTE: (
        "Covered by the aggregate consumer on this route; add a component variable to the "
        "manifest (and the config) if consumers should name these components on it."
    ),
}


RULES: tuple[Rule[Any], ...] = (
    Rule("SL501", ConsumerBuild, component_dropped),
    Rule("SL502", ConsumerBuild, aggregate_carries_excluded),
    Rule("SL503", ConsumerBuild, aggregate_drops_component),
    Rule("SL504", ConsumerBuild, consumer_build_failed),
    Rule("SL505", ProbeUnavailable, could_not_run("link probe", "--link-probe")),
    Rule("SL510", ConsumerBuild, consumer_does_not_run),
    Rule("SL511", ConsumerBuild, consumer_not_relocatable),
    Rule("SL512", ConsumerBuild, registrations_differ),
    Rule("SL506", NotProbed, did_not_apply("not probed", _NOT_PROBED_HINTS)),
)
