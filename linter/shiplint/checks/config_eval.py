"""Rules SL1xx: what the evaluated package config published, against the manifest.

Each rule reads a model of `shiplint.cmake_eval.model` (produced by real CMake,
one configure run per CMake and evaluated config) and compares it with the
manifest. Findings point at the evaluated config (`<artifact>!/<member>` or the
repository's source) and name the CMake version, because the same config
publishes different things on different CMake routes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import Any

from shiplint.cmake_eval.model import (
    AggregateAcrossRoutes,
    ConfigEvaluation,
    EntryKind,
    FailureKind,
    ImportedTarget,
    MissingConfig,
    Mode,
    ResolvedVariable,
    RouteCoverage,
)
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Aggregate, LibraryType, Manifest
from shiplint.plural import counted, noun
from shiplint.rule import Rule


def _on(ev: ConfigEvaluation) -> str:
    """`CMake 4.4.5 (route targets), linux-x86_64`: the context every message carries."""
    route = f" (route {ev.route})" if ev.route else ""
    return f"CMake {ev.cmake_version}{route}, {ev.platform}"


def _subject(ev: ConfigEvaluation, **fields: str | None) -> Subject:
    return Subject(cmake_version=ev.cmake_version, artifact=ev.artifact, **fields)


def _applies(routes: tuple[str, ...], ev: ConfigEvaluation) -> bool:
    return not routes or ev.route in routes


def _usable(ev: ConfigEvaluation) -> bool:
    """Evaluated to the end: rules about what it published apply."""
    return ev.failure is None


def _defines_targets(manifest: Manifest, ev: ConfigEvaluation) -> bool:
    route = next((r for r in manifest.cmake.routes if r.name == ev.route), None)
    return route is None or route.imported_targets


def _expected(manifest: Manifest, aggregate: Aggregate) -> tuple[str, ...]:
    return aggregate.carries.expected(manifest.components)


def _must_stay_out(manifest: Manifest, aggregate: Aggregate, component: str) -> bool:
    """Excluded by the manifest: opt-in (and not listed in `only`), or in `all_except`."""
    if component in _expected(manifest, aggregate):
        return False
    known = manifest.component(component)
    return (known is not None and known.opt_in) or component in aggregate.carries.excluded


def _variable(ev: ConfigEvaluation, name: str) -> ResolvedVariable | None:
    return ev.variable(name)


# --- SL101 ---------------------------------------------------------------------


def opt_in_component_in_aggregate(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev):
        return
    for aggregate in manifest.aggregates:
        resolved = _variable(ev, aggregate.variable)
        if resolved is None or not _applies(aggregate.routes, ev):
            continue
        for entry in resolved.entries:
            component = entry.component
            if component is None or not _must_stay_out(manifest, aggregate, component):
                continue
            known = manifest.component(component)
            kind = "opt-in component" if known is not None and known.opt_in else "component"
            yield Finding(
                message=f"{aggregate.variable} carries the {kind} {component} on {_on(ev)} "
                f"(entry `{entry.raw}`); the manifest keeps it out of this aggregate",
                location=ev.config,
                subject=_subject(ev, component=component, variable=aggregate.variable),
                hint=f"Leave {component} out of {aggregate.variable} on this route (and out of "
                "any hand-kept list the config builds it from); consumers ask for it by name.",
            )


# --- SL102 ---------------------------------------------------------------------


def component_missing_from_aggregate(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev) or not ev.found:
        return
    shipped = set(ev.shipped_components())
    for aggregate in manifest.aggregates:
        resolved = _variable(ev, aggregate.variable)
        if resolved is None or not _applies(aggregate.routes, ev):
            continue
        carried = set(resolved.components)
        for component in _expected(manifest, aggregate):
            if component in shipped and component not in carried:
                owner = manifest.owner_of(component)
                yield Finding(
                    message=f"{aggregate.variable} does not carry the shipped component "
                    f"{component} on {_on(ev)}; it carries: "
                    f"{', '.join(resolved.components) or 'nothing'}",
                    location=ev.config,
                    subject=_subject(
                        ev,
                        component=component,
                        variable=aggregate.variable,
                        library=owner.name if owner else None,
                    ),
                    hint=f"Add {component} to {aggregate.variable} on this route (a list kept by "
                    "hand for one route is the usual cause), or exclude it in the manifest.",
                )


# --- SL103 ---------------------------------------------------------------------


def aggregate_differs_between_routes(
    manifest: Manifest, model: AggregateAcrossRoutes
) -> Iterator[Finding]:
    sets = {view.route: set(view.components) for view in model.views}
    if len({frozenset(s) for s in sets.values()}) < 2:
        return
    union = set().union(*sets.values())
    parts = []
    differing: set[str] = set()
    for view in model.views:
        missing = sorted(union - set(view.components))
        differing.update(missing)
        if missing:
            parts.append(
                f"route {view.route} (CMake {view.cmake_version}) lacks {', '.join(missing)}"
            )
    versions = ",".join(v.cmake_version for v in model.views)
    only = next(iter(differing)) if len(differing) == 1 else None
    yield Finding(
        message=f"{model.variable} carries different components on different CMake routes "
        f"for {model.platform}: {'; '.join(parts)}",
        location=model.config,
        subject=Subject(
            component=only,
            variable=model.variable,
            cmake_version=versions,
            artifact=model.artifact,
        ),
        hint="Publish the same components on every route: derive the older route's list from "
        "the same component declarations instead of keeping a second list by hand.",
    )


# --- SL104 ---------------------------------------------------------------------


def component_variable_mismatch(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev) or not ev.found:
        return
    shipped = set(ev.shipped_components())
    for declared in manifest.component_variables:
        known = manifest.component(declared.component)
        resolved = (
            ev.requested_variable(declared.component, declared.variable)
            if known is not None and known.only_on_request
            else _variable(ev, declared.variable)
        )
        if resolved is None or not _applies(declared.routes, ev):
            continue
        components = resolved.components
        subject = _subject(ev, component=declared.component, variable=declared.variable)
        if declared.component in shipped and not resolved.entries:
            yield Finding(
                message=f"{declared.variable} is empty on {_on(ev)} although "
                f"{declared.component} ships",
                location=ev.config,
                subject=subject,
                hint=f"Set {declared.variable} to {declared.component}'s target or library "
                "on this route too, so a consumer following either recipe keeps it.",
            )
        elif resolved.entries and components != (declared.component,):
            yield Finding(
                message=f"{declared.variable} names {', '.join(components) or 'no component'} "
                f"(`{resolved.text}`) on {_on(ev)}; the manifest says it names "
                f"{declared.component}",
                location=ev.config,
                subject=subject,
                hint=f"Make {declared.variable} name exactly {declared.component}'s target "
                "or library.",
            )


# --- SL105 / SL106 / SL107 -----------------------------------------------------


def shipped_component_without_target(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev) or not ev.found or not _defines_targets(manifest, ev):
        return
    # Each library once, by its first member; a target importing any of its members
    # (an identical copy under another name) imports it.
    members: dict[str, set[str]] = {}
    for shipped in ev.shipped:
        members.setdefault(shipped.library, set()).add(shipped.member)
    for lib in ev.shipped:
        library = manifest.library(lib.library)
        if library is None or not library.kind.linkable or lib.library not in members:
            continue
        files = members.pop(lib.library)
        for component in lib.components:
            target = manifest.target_name(component)
            known = manifest.component(component)
            on_request = known is not None and known.only_on_request
            request = ev.request(component)
            published = request.targets if on_request and request is not None else ev.targets
            # Named as the manifest says, or importing exactly this library under another name.
            if any(t.name == target or t.location in files for t in published):
                continue
            asked = f" when {manifest.request_name(component)} is requested" if on_request else ""
            yield Finding(
                message=f"{lib.member} ships (component {component}) but the config defines "
                f"no imported target {target}{asked} on {_on(ev)}",
                location=ev.config,
                subject=_subject(ev, component=component, library=lib.library, target=target),
                hint=f"Define {target} for the shipped library, or stop shipping it.",
            )
    # Header-only components ship with the package itself: their target must exist.
    for known in manifest.components:
        if not known.header_only:
            continue
        target = manifest.target_name(known.name)
        request = ev.request(known.name)
        published = request.targets if known.only_on_request and request else ev.targets
        if any(t.name == target for t in published):
            continue
        asked = f" when {known.request_name} is requested" if known.only_on_request else ""
        yield Finding(
            message=f"the config defines no imported target {target} for the header-only "
            f"component {known.name}{asked} on {_on(ev)}",
            location=ev.config,
            subject=_subject(ev, component=known.name, target=target),
            hint=f"Define {target} as an INTERFACE IMPORTED target carrying the include "
            "directories and usage requirements.",
        )


def target_for_unshipped_library(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev):
        return
    shipped_members = {lib.member for lib in ev.shipped}
    shipped_components = set(ev.shipped_components())
    for target in ev.targets:
        component = target.component
        known = manifest.component(component) if component is not None else None
        if component is None or known is None or known.header_only:
            continue
        if component in shipped_components:
            continue
        if target.location is not None and target.location in shipped_members:
            continue
        yield Finding(
            message=f"the config defines {target.name} on {_on(ev)} but the component's "
            f"library is not shipped (IMPORTED_LOCATION {target.location or 'unset'})",
            location=ev.config,
            subject=_subject(ev, component=component, target=target.name),
            hint="Define a component's target only when its library is present "
            "(test that the file exists before add_library).",
        )


def imported_location_mismatch(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev):
        return
    for target in ev.targets:
        if target.component is None or target.type == "INTERFACE_LIBRARY":
            continue
        known = manifest.component(target.component)
        if known is not None and known.header_only:
            if target.location is not None:
                yield Finding(
                    message=f"{target.name} has IMPORTED_LOCATION {target.location} on "
                    f"{_on(ev)}; the manifest declares {target.component} header-only",
                    location=ev.config,
                    subject=_subject(ev, component=target.component, target=target.name),
                    hint=f"Make {target.name} an INTERFACE target, or give "
                    f"{target.component} its library in the manifest.",
                )
            continue
        owner = manifest.owner_of(target.component)
        if owner is None:
            continue
        location = target.location
        if location is not None and owner.matches_file(ev.platform, posixpath.basename(location)):
            continue
        # An identical copy of the owner's file under a version-sibling name is the owner.
        if any(s.library == owner.name and s.member == location for s in ev.shipped):
            continue
        expected = owner.file_pattern(ev.platform) or f"{owner.name} (not placed on this platform)"
        yield Finding(
            message=f"{target.name} has IMPORTED_LOCATION {location or 'unset'} on {_on(ev)}; "
            f"the manifest assigns {expected} ({owner.name}) to {target.component}",
            location=ev.config,
            subject=_subject(
                ev, component=target.component, target=target.name, library=owner.name
            ),
            hint=f"Point {target.name} at {expected}, or correct the manifest's library for "
            f"{target.component}.",
        )


# --- SL121 ----------------------------------------------------------------------

# The imported target types a library of each type may have; UNKNOWN_LIBRARY lets CMake
# work the type out from the file, which is right for either.
_TARGET_TYPES = {
    LibraryType.SHARED: ("SHARED_LIBRARY", "UNKNOWN_LIBRARY"),
    LibraryType.STATIC: ("STATIC_LIBRARY", "UNKNOWN_LIBRARY"),
}


def _published_targets(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[ImportedTarget]:
    """Every target the evaluation saw: the plain find_package's, then the ones only a
    component's own request published."""
    seen = set()
    for target in ev.targets:
        seen.add(target.name)
        yield target
    for request in ev.requests:
        known = manifest.component(request.component)
        if known is None or not known.only_on_request:
            continue
        for target in request.targets:
            if target.name not in seen:
                seen.add(target.name)
                yield target


def imported_target_type_mismatch(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev):
        return
    for target in _published_targets(manifest, ev):
        if target.component is None or not target.type.endswith("_LIBRARY"):
            continue
        owner = manifest.owner_of(target.component)
        if owner is None or target.type == "INTERFACE_LIBRARY":
            continue  # header-only components and their INTERFACE targets: SL107
        allowed = _TARGET_TYPES[owner.type]
        if target.type in allowed:
            continue
        yield Finding(
            message=f"{target.name} is a {target.type} IMPORTED target on {_on(ev)}, but the "
            f"manifest declares {owner.name}, the library of {target.component}, "
            f"{owner.type.value} (a {allowed[0]} target)",
            location=ev.config,
            subject=_subject(
                ev, component=target.component, target=target.name, library=owner.name
            ),
            hint=f"Declare {target.name} as add_library({target.name} "
            f"{owner.type.value.upper()} IMPORTED), or correct the library's `type` in the "
            "manifest.",
        )


# --- SL108 ---------------------------------------------------------------------


def registration_library_not_retained(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev) or ev.platform.os != "linux":
        return
    registering = {
        lib.library
        for lib in ev.shipped
        if (known := manifest.library(lib.library)) is not None and known.registers_statically
    }
    for target in ev.targets:
        owner = manifest.owner_of(target.component) if target.component else None
        if owner is None or owner.name not in registering:
            continue
        if not target.retained:
            yield Finding(
                message=f"{target.name} reaches consumers without --no-as-needed on {_on(ev)}: "
                f"its INTERFACE_LINK_OPTIONS ({'; '.join(target.link_options) or 'none'}) do "
                f"not keep {owner.name}, which registers from a static initializer",
                location=ev.config,
                subject=_subject(
                    ev, component=target.component, target=target.name, library=owner.name
                ),
                hint="Add `LINKER:--push-state,--no-as-needed,<library>,--pop-state` to the "
                "target's INTERFACE_LINK_OPTIONS.",
            )
    for resolved in (*ev.aggregates, *ev.component_variables):
        for entry in resolved.entries:
            if entry.kind is not EntryKind.PATH or entry.library not in registering:
                continue
            if not entry.retained:
                yield Finding(
                    message=f"{resolved.variable} hands {entry.library} to consumers as "
                    f"`{entry.raw}` on {_on(ev)}, without --no-as-needed; it registers from a "
                    "static initializer, so --as-needed drops it",
                    location=ev.config,
                    subject=_subject(
                        ev,
                        component=entry.component,
                        library=entry.library,
                        variable=resolved.variable,
                    ),
                    hint="Wrap the path: `-Wl,--push-state,--no-as-needed,<path>,--pop-state`.",
                )


# --- SL109 / SL110 -------------------------------------------------------------


def absent_component_request_accepted(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev):
        return
    package = manifest.cmake.package
    for request in ev.requests:
        if request.shipped or request.refused:
            continue
        call = f"find_package({package} COMPONENTS {request.component} REQUIRED)"
        yield Finding(
            message=f"{call} succeeds on {_on(ev)}, though {request.component} is not shipped",
            location=ev.config,
            subject=_subject(ev, component=request.component),
            hint=f"Set {package}_{request.component}_FOUND to FALSE, {package}_FOUND to FALSE "
            f"and a {package}_NOT_FOUND_MESSAGE naming the component for every requested "
            "component the package lacks.",
        )


# --- SL126 ----------------------------------------------------------------------


def absent_component_refusal_unnamed(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    """The consumer's configure does fail, as it should; only the message does not say
    which component is missing (a warning: nothing a consumer gets is wrong)."""
    if not _usable(ev):
        return
    package = manifest.cmake.package
    for request in ev.requests:
        if request.shipped or not request.refused:
            continue
        said = " ".join(t for t in (request.message, request.fatal) if t)
        if request.component in said:
            continue
        call = f"find_package({package} COMPONENTS {request.component} REQUIRED)"
        yield Finding(
            message=f"{call} fails without naming the component (message: {said or 'none'}) "
            f"on {_on(ev)}; {request.component} is not shipped",
            location=ev.config,
            subject=_subject(ev, component=request.component),
            hint=f"Set a {package}_NOT_FOUND_MESSAGE naming each requested component the "
            "package lacks.",
        )


def present_component_request_refused(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev) or not ev.found or not _defines_targets(manifest, ev):
        return
    package = manifest.cmake.package
    for request in ev.requests:
        if not request.shipped or not request.refused:
            continue
        said = " ".join(t for t in (request.message, request.fatal) if t) or "no message"
        yield Finding(
            message=f"find_package({package} COMPONENTS {request.component}) fails on "
            f"{_on(ev)} although {request.component} ships: {said}",
            location=ev.config,
            subject=_subject(ev, component=request.component),
            hint="Answer a component request from what the package ships.",
        )


# --- SL119 ----------------------------------------------------------------------


def required_request_answered_differently(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev):
        return
    package = manifest.cmake.package
    for request in ev.requests:
        if not request.shipped or request.required_found is None:
            continue
        plain = not request.refused
        if request.required_found == plain:
            continue
        spelling = request.spelling or request.component
        call = f"find_package({package} COMPONENTS {spelling}"
        if plain:
            said = request.required_message or "no message"
            what = f"{call} REQUIRED) refuses {request.component} ({said}) while {call}) finds it"
        else:
            said = " ".join(t for t in (request.message, request.fatal) if t) or "no message"
            what = f"{call}) refuses {request.component} ({said}) while {call} REQUIRED) finds it"
        yield Finding(
            message=f"{what} on {_on(ev)}; {request.component} ships",
            location=ev.config,
            subject=_subject(ev, component=request.component),
            hint=f"Answer a request for a shipped component the same whether or not "
            f"{package}_FIND_REQUIRED is set: REQUIRED may only turn a refusal into an error.",
        )


# --- SL120 ----------------------------------------------------------------------


def request_set_incomplete(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev) or not _defines_targets(manifest, ev):
        return
    package = manifest.cmake.package
    shipped = set(ev.shipped_components())
    header_only = {c.name for c in manifest.components if c.header_only}
    answers = {answer.request: answer for answer in ev.request_sets}
    for request_set in manifest.cmake.request_sets:
        answer = answers.get(request_set.request)
        if answer is None:
            continue  # the run stopped before it; SL111 says why
        call = f"find_package({package} COMPONENTS {request_set.request})"
        if answer.refused:
            said = " ".join(t for t in (answer.message, answer.fatal) if t) or "no message"
            yield Finding(
                message=f"{call} fails on {_on(ev)}: {said}",
                location=ev.config,
                subject=_subject(ev),
                hint=f"Answer {request_set.request} with the components that ship.",
            )
            continue
        published = {t.component for t in answer.targets} | {t.name for t in answer.targets}
        for component in request_set.brings.expected(manifest.components):
            if component not in shipped and component not in header_only:
                continue
            target = manifest.target_name(component)
            if component in published or target in published:
                continue
            yield Finding(
                message=f"{call} publishes no target for {component} ({target}) on {_on(ev)}, "
                f"though {component} ships and the manifest says {request_set.request} "
                "brings it",
                location=ev.config,
                subject=_subject(ev, component=component, target=target),
                hint=f"Define {target} when {request_set.request} is requested (expand "
                f"{request_set.request} to every shipped component), or leave {component} "
                "out of the request set's `brings` in the manifest.",
            )


# --- SL122 ----------------------------------------------------------------------


def evaluation_not_confined(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not ev.unconfined:
        return
    yield Finding(
        message=(
            f"the config was evaluated on {_on(ev)} with nothing keeping its writes inside "
            "the evaluation's temporary directory: neither read-only mounts in a user "
            "namespace nor Landlock work on this system, so it could write any file your "
            "user can"
        ),
        location=ev.config,
        subject=_subject(ev),
        hint=(
            "Evaluate untrusted artifacts where user namespaces (unshare) or Landlock "
            "(Linux 5.13+) are available, or in a throwaway container or CI job."
        ),
    )


# --- SL127 ----------------------------------------------------------------------


def host_answered_for_platform(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    """Said once per evaluation: what the config was told may be the host's, not the
    platform's, so what it published may differ from what a consumer there sees."""
    if not ev.host_answers:
        return
    asked = "; ".join(f"`{a}`" for a in ev.host_answers)
    yield Finding(
        message=f"the host, not {ev.platform}, answered what the config asked on {_on(ev)}: "
        f"{asked}; what the config published there may not be what a consumer on that "
        "platform gets",
        location=ev.config,
        subject=_subject(ev),
        hint="Read the result with that in mind, or check the artifact on its own platform.",
    )


# --- SL111 / SL112 / SL129 / SL113 / SL114 -----------------------------------


def config_evaluation_failed(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    failure = ev.failure
    if failure is None:
        return
    what = {
        FailureKind.TIMEOUT: "evaluating the config was stopped at the time limit",
        FailureKind.STOPPED: "evaluating the config was interrupted from outside",
        FailureKind.CMAKE_UNUSABLE: "the config could not be evaluated",
    }.get(failure.kind, "the config fails to configure")
    # Without a compiler the probe is a consumer no real one resembles: say that, and do
    # not blame the package for what may be the probe's limit.
    no_language = failure.kind is FailureKind.ERROR and not ev.languages
    limit = (
        " (the probe consumer enabled no language: no C or C++ compiler is on PATH)"
        if no_language
        else ""
    )
    if no_language:
        hint = (
            "Install a C and C++ compiler where shiplint runs, so the probe enables the "
            "languages a consumer's project() does, and run again."
        )
    elif failure.kind is FailureKind.ERROR:
        hint = "Fix the error CMake reports: a consumer with project(<name> C CXX) stops there too."
    elif failure.kind is FailureKind.STOPPED:
        hint = (
            "Something outside shiplint stopped CMake (SIGSTOP, a debugger, a job-control "
            "stop); run again without stopping it."
        )
    elif failure.kind is FailureKind.TIMEOUT:
        hint = (
            "A config must configure quickly and without prompting; check for loops and "
            "for commands it runs that wait."
        )
    else:
        hint = "Check the configured CMake binaries (--cmake, [tool.shiplint] cmake)."
    yield Finding(
        message=f"{what} on {_on(ev)}{limit}: {failure.message}",
        location=failure.location,
        subject=_subject(ev),
        hint=hint,
    )


def _ships_nothing_linkable(manifest: Manifest, ev: ConfigEvaluation) -> bool:
    """An artifact evaluation whose artifact holds none of the manifest's linkable
    libraries, in a manifest that declares some (a header-only package expects none)."""
    if not _usable(ev) or ev.mode is not Mode.ARTIFACT:
        return False
    if not any(lib.kind.linkable for lib in manifest.libraries):
        return False
    return not any(
        (known := manifest.library(lib.library)) is not None and known.kind.linkable
        for lib in ev.shipped
    )


def _nothing_linkable(ev: ConfigEvaluation, state: str, package: str, hint: str) -> Finding:
    route = f" (route {ev.route})" if ev.route else ""
    return Finding(
        message=f"the artifact ships the {package} CMake config but no linkable library of the "
        f"manifest for {ev.platform}; on CMake {ev.cmake_version}{route} {state}",
        location=ev.config,
        subject=_subject(ev),
        hint=hint,
    )


_SHIP_OR_LEAVE_OUT = (
    "Ship the runtime and component libraries for this platform, or leave the CMake config "
    "out of this artifact."
)


def config_without_linkable_library(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    # The config says not found: a consumer's configure stops there, told why.
    if ev.found or not _ships_nothing_linkable(manifest, ev):
        return
    package = manifest.cmake.package
    reason = f" ({ev.not_found_message})" if ev.not_found_message else ""
    yield _nothing_linkable(ev, f"{package}_FOUND is FALSE{reason}", package, _SHIP_OR_LEAVE_OUT)


def found_config_without_linkable_library(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    # The config says found: a consumer configures, then links nothing of the package
    # (or what cannot be linked), and learns it only at link or load time.
    if not ev.found or not _ships_nothing_linkable(manifest, ev):
        return
    package = manifest.cmake.package
    offered = ", ".join(f"{v.variable}=`{v.text}`" for v in ev.aggregates if v.entries)
    state = f"{package}_FOUND is TRUE, offering {offered or 'nothing in its aggregates'}"
    hint = (
        f"{_SHIP_OR_LEAVE_OUT} Until they ship, have the config set {package}_FOUND to FALSE "
        f"with {package}_NOT_FOUND_MESSAGE saying why, so a consumer's configure stops there."
    )
    yield _nothing_linkable(ev, state, package, hint)


def package_not_found_despite_libraries(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev) or ev.found:
        return
    # One per library, by its first member: identical copies are the same library.
    first: dict[str, str] = {}
    for lib in ev.shipped:
        if (known := manifest.library(lib.library)) is not None and known.kind.linkable:
            first.setdefault(lib.library, lib.member)
    linkable = list(first.values())
    if not linkable:
        return
    yield Finding(
        message=f"find_package({manifest.cmake.package}) reports not found on {_on(ev)} "
        f"although {counted(len(linkable), 'linkable library', 'linkable libraries')} "
        f"{noun(len(linkable), 'ships', 'ship')} (first: {linkable[0]}): "
        f"{ev.not_found_message or 'no message'}",
        location=ev.config,
        subject=_subject(ev),
        hint="Check what the config looks for (directories, file names) against the layout.",
    )


def installed_configs_disagree(manifest: Manifest, ev: ConfigEvaluation) -> Iterator[Finding]:
    if not _usable(ev):
        return
    for alternate in ev.alternates:
        differences: list[str] = []
        if alternate.found != ev.found:
            differences.append(f"{manifest.cmake.package}_FOUND {alternate.found} vs {ev.found}")
        pairs = (
            *zip(alternate.aggregates, ev.aggregates, strict=True),
            *zip(alternate.component_variables, ev.component_variables, strict=True),
        )
        for theirs, ours in pairs:
            if set(theirs.components) != set(ours.components):
                differences.append(
                    f"{ours.variable} carries {', '.join(theirs.components) or 'nothing'} "
                    f"vs {', '.join(ours.components) or 'nothing'}"
                )
        their_targets = {t.name: t.location for t in alternate.targets}
        our_targets = {t.name: t.location for t in ev.targets}
        if their_targets != our_targets:
            only_theirs = sorted(set(their_targets) - set(our_targets))
            only_ours = sorted(set(our_targets) - set(their_targets))
            moved = sorted(
                n
                for n in set(their_targets) & set(our_targets)
                if their_targets[n] != our_targets[n]
            )
            for label, names in (
                ("targets only here", only_theirs),
                ("targets missing here", only_ours),
                ("targets at other locations", moved),
            ):
                if names:
                    differences.append(f"{label}: {', '.join(names)}")
        if not differences:
            continue
        yield Finding(
            message=f"{alternate.config.path} publishes something else than {ev.config.path} "
            f"on {_on(ev)}: {'; '.join(differences)}",
            location=alternate.config,
            subject=_subject(ev),
            hint="Install one config and resolve the package root from its own location the "
            "same way from every directory it is installed in.",
        )


def config_missing_from_artifact(manifest: Manifest, model: MissingConfig) -> Iterator[Finding]:
    yield Finding(
        message=f"the artifact holds no {manifest.cmake.package} CMake config in "
        f"{', '.join(model.searched)}",
        location=model.location,
        subject=Subject(artifact=model.label),
        hint="Install the config into one of the manifest's cmake.installed_config_dirs, "
        "or correct the manifest.",
    )


def route_not_evaluated(manifest: Manifest, model: RouteCoverage) -> Iterator[Finding]:
    ran = ", ".join(f"{version} ({route})" for route, version in model.evaluated) or "none"
    for name in model.missing:
        route = next(r for r in manifest.cmake.routes if r.name == name)
        yield Finding(
            message=f"the config was not evaluated on route {name} ({_version_range(route)}) "
            f"for {model.platform}: no configured CMake falls in it (evaluated with: {ran})",
            location=model.config,
            subject=Subject(artifact=model.artifact),
            hint="Give a CMake of that range with --cmake or [tool.shiplint] cmake "
            "(`pip install cmake==<version>` into a directory of its own), so what that "
            "route publishes is checked too.",
        )


# --- SL117 ---------------------------------------------------------------------


def _framework(path: str) -> bool:
    """A macOS framework bundle (`.../Metal.framework`, or the binary inside one)."""
    return path.rstrip("/").endswith(".framework") or ".framework/" in path


def _targets_seen(ev: ConfigEvaluation) -> list[ImportedTarget]:
    seen: dict[str, ImportedTarget] = {t.name: t for t in ev.targets}
    for request in ev.requests:
        for target in request.targets:
            seen.setdefault(target.name, target)
    return sorted(seen.values(), key=lambda t: t.name)


def build_machine_path_in_link_interface(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    """A library by full path: CMake makes it a dependency of the consumer's link, so
    the build stops where the file is missing (`ninja: error: '<path>', needed by ...`)."""
    if not _usable(ev):
        return
    for target in _targets_seen(ev):
        paths = tuple(p for p in target.build_machine_paths if not _framework(p))
        if not paths:
            continue
        yield Finding(
            message=f"{target.name} links {counted(len(paths), 'absolute path')} outside the package "
            f"that the config spells out on {_on(ev)}: {', '.join(paths)}",
            location=ev.config,
            subject=_subject(ev, component=target.component, target=target.name),
            hint="Export what the build machine found by name, not by path: a system "
            "library as its name or an imported target the config finds with "
            "find_dependency().",
        )


# --- SL128 ----------------------------------------------------------------------


def build_machine_framework_in_link_interface(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    """A framework by full path: CMake turns it into `-F<its directory> -framework
    <Name>` with no dependency on the path, so a Mac laid out otherwise still links
    (the SDK's own framework), with a warning about the missing directory."""
    if not _usable(ev):
        return
    for target in _targets_seen(ev):
        paths = tuple(p for p in target.build_machine_paths if _framework(p))
        if not paths:
            continue
        yield Finding(
            message=f"{target.name} links {counted(len(paths), 'framework')} by a path of the "
            f"machine that built the package on {_on(ev)}: {', '.join(paths)}; a consumer "
            "gets `-F` for those directories on its compile and link lines",
            location=ev.config,
            subject=_subject(ev, component=target.component, target=target.name),
            hint="Export frameworks by name: `-framework <Name>` or "
            "`$<LINK_LIBRARY:FRAMEWORK,<Name>>`.",
        )


# --- SL118 ---------------------------------------------------------------------


def _ours_unresolved(manifest: Manifest, kind: EntryKind, raw: str, path: str | None) -> bool:
    """An entry that points into the package yet resolves to no manifest component."""
    namespace = manifest.cmake.namespace
    if kind is EntryKind.TARGET:
        return bool(namespace) and raw.startswith(namespace)
    # In-package paths are member paths by now (relative); others stay absolute.
    return kind is EntryKind.PATH and path is not None and not path.startswith("/")


def aggregate_entry_names_no_component(
    manifest: Manifest, ev: ConfigEvaluation
) -> Iterator[Finding]:
    if not _usable(ev):
        return
    routes = {a.variable: a.routes for a in manifest.aggregates}
    routes.update({v.variable: v.routes for v in manifest.component_variables})
    for resolved in (*ev.aggregates, *ev.component_variables):
        if not _applies(routes.get(resolved.variable, ()), ev):
            continue
        for entry in resolved.entries:
            if entry.component is not None:
                continue
            if not _ours_unresolved(manifest, entry.kind, entry.raw, entry.path):
                continue
            what = "target" if entry.kind is EntryKind.TARGET else "file"
            yield Finding(
                message=f"{resolved.variable} carries `{entry.raw}` on {_on(ev)}, a {what} of "
                "the package that resolves to no component of the manifest, so what it "
                "carries is not checked",
                location=ev.config,
                subject=_subject(
                    ev, variable=resolved.variable, target=entry.raw if what == "target" else None
                ),
                hint="Name the component's target or library in the manifest (`target`, "
                "`libraries[].platforms.<platform>.file`), or drop the entry from the variable.",
            )


def _version_range(route: Any) -> str:
    def dotted(version: tuple[int, ...]) -> str:
        return ".".join(str(part) for part in version)

    if route.since and route.below:
        return f"CMake {dotted(route.since)} to below {dotted(route.below)}"
    if route.since:
        return f"CMake {dotted(route.since)} and newer"
    return f"CMake below {dotted(route.below)}"


RULES: tuple[Rule[Any], ...] = (
    Rule("SL101", ConfigEvaluation, opt_in_component_in_aggregate),
    Rule("SL102", ConfigEvaluation, component_missing_from_aggregate),
    Rule("SL103", AggregateAcrossRoutes, aggregate_differs_between_routes),
    Rule("SL104", ConfigEvaluation, component_variable_mismatch),
    Rule("SL105", ConfigEvaluation, shipped_component_without_target),
    Rule("SL106", ConfigEvaluation, target_for_unshipped_library),
    Rule("SL107", ConfigEvaluation, imported_location_mismatch),
    Rule("SL108", ConfigEvaluation, registration_library_not_retained),
    Rule("SL109", ConfigEvaluation, absent_component_request_accepted),
    Rule("SL110", ConfigEvaluation, present_component_request_refused),
    Rule("SL111", ConfigEvaluation, config_evaluation_failed),
    Rule("SL112", ConfigEvaluation, config_without_linkable_library),
    Rule("SL113", ConfigEvaluation, package_not_found_despite_libraries),
    Rule("SL114", MissingConfig, config_missing_from_artifact),
    Rule("SL115", ConfigEvaluation, installed_configs_disagree),
    Rule("SL116", RouteCoverage, route_not_evaluated),
    Rule("SL117", ConfigEvaluation, build_machine_path_in_link_interface),
    Rule("SL118", ConfigEvaluation, aggregate_entry_names_no_component),
    Rule("SL119", ConfigEvaluation, required_request_answered_differently),
    Rule("SL120", ConfigEvaluation, request_set_incomplete),
    Rule("SL121", ConfigEvaluation, imported_target_type_mismatch),
    Rule("SL122", ConfigEvaluation, evaluation_not_confined),
    Rule("SL126", ConfigEvaluation, absent_component_refusal_unnamed),
    Rule("SL127", ConfigEvaluation, host_answered_for_platform),
    Rule("SL128", ConfigEvaluation, build_machine_framework_in_link_interface),
    Rule("SL129", ConfigEvaluation, found_config_without_linkable_library),
)
