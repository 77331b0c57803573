"""Rules of the link probe (SL5xx): what real consumer builds kept on their link line.

Each rule compares one consumer's NEEDED (already resolved to manifest libraries
by `shiplint.link_probe`) with the manifest. A library that registers nothing
statically may legitimately be dropped by `--as-needed` when the consumer uses
none of its symbols, so absence is only a defect for registration-only libraries;
presence of a library the consumer did not ask for is always a fact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.diagnostics import Finding, Subject
from shiplint.link_probe.model import (
    ConsumerBuild,
    ConsumerKind,
    NotProbed,
    NotProbedReason,
    ProbeContext,
    ProbeUnavailable,
)
from shiplint.manifest.model import Aggregate, Library, Manifest
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


def probe_unavailable(manifest: Manifest, model: ProbeUnavailable) -> Iterator[Finding]:
    """SL505: the probe could not run at all for this artifact (or this CMake)."""
    yield Finding(
        message=f"link probe not run on {model.artifact}: {model.reason}",
        location=model.location,
        subject=Subject(artifact=model.artifact, cmake_version=model.cmake_version),
        hint="Install a C++ compiler and the configured CMake, or run without --link-probe.",
    )


def not_probed(manifest: Manifest, model: NotProbed) -> Iterator[Finding]:
    """SL506: part of the probe does not apply, said rather than skipped."""
    yield Finding(
        message=f"not probed ({model.reason.value}): {model.detail}",
        location=model.location,
        subject=Subject(artifact=model.artifact, cmake_version=model.cmake_version),
        hint=_NOT_PROBED_HINTS[model.reason],
    )


_NOT_PROBED_HINTS = {
    NotProbedReason.OTHER_PLATFORM: "Run the link probe on a host of the artifact's platform.",
    NotProbedReason.NOTHING_TO_LINK: (
        "Nothing to link here; the artifact rules report libraries the manifest requires."
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
    Rule("SL505", ProbeUnavailable, probe_unavailable),
    Rule("SL506", NotProbed, not_probed),
)
