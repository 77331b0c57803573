"""Decide the starting manifest from the gathered facts: a pure function.

Where the CMake routes publish different things, the newest route's answer is
written (the contract a project moves towards) and the difference is returned as a
disagreement for the caller to print, so the first `shiplint check` reports it
instead of the manifest baking it in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shiplint.artifacts.linkage import allowed_external
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.fastclass import dataclass
from shiplint.init.draft import (
    Draft,
    DraftAggregate,
    DraftComponent,
    DraftComponentVariable,
    DraftLibrary,
    DraftPlacement,
    ExternalGroup,
    ProvidedGroup,
)
from shiplint.init.externals import group_externals, known_system, provided_groups
from shiplint.init.facts import distribution
from shiplint.init.model import ArtifactFacts, Facts, InitError, Shipped
from shiplint.init.names import file_pattern, is_extension_module
from shiplint.init.routes import Route, routes_of
from shiplint.init.sentinels import sentinels
from shiplint.init.spelling import target_spellings
from shiplint.init.targets import (
    PackageTarget,
    accepts_anything,
    component_name,
    imported,
    in_namespace,
    library_at,
    namespace,
    newest,
)
from shiplint.init.why import no_component, no_config
from shiplint.manifest.model import Externals
from shiplint.platforms import Platform


@dataclass
class _Component:
    name: str
    target: str
    library: str | None
    request: str | None = None
    only_on_request: bool = False
    opt_in: bool = False
    notes: tuple[str, ...] = ()
    requestable: bool = True


def decide(facts: Facts) -> Draft:
    config = facts.config
    if config is None:
        raise InitError(no_config([a.label for a in facts.artifacts]))
    routes = routes_of(facts)
    prefix = _namespace(facts.artifacts)
    components = _components(facts, prefix)
    owner = {c.library: c.name for c in components.values() if c.library is not None}
    aggregates, variables, disagreements, excluded = _variables(facts, routes, owner)
    for name in excluded:
        component = components.get(name)
        if component is not None and not component.opt_in:
            component.opt_in = True
            component.notes += (
                "opt_in: left out of the aggregates the newest route publishes. Decide: keep it "
                "opt-in, or add it to them.",
            )
    if not components:
        raise InitError(no_component(facts))
    libraries = _libraries(facts, owner, prefix)
    system, provided = _externals(facts.artifacts)
    return Draft(
        package=distribution(facts.artifacts),
        cmake_package=config.package,
        namespace=prefix,
        package_root=config.package_root,
        config_dirs=config.directories,
        routes=tuple(r.draft for r in routes),
        libraries=libraries,
        components=tuple(
            _draft_component(c, prefix) for c in sorted(components.values(), key=lambda c: c.name)
        ),
        aggregates=aggregates,
        component_variables=variables,
        externals=system,
        provided=provided,
        provenance=tuple(f"{a.label} ({a.platform})" for a in facts.artifacts),
        disagreements=disagreements,
        warnings=_evaluation_warnings(facts),
    )


def _namespace(artifacts: Sequence[ArtifactFacts]) -> str:
    targets: list[PackageTarget] = []
    for facts in artifacts:
        evaluation = newest(facts.evaluations)
        if evaluation is not None:
            targets.extend(imported(facts, evaluation))
    return namespace(targets)


def _components(facts: Facts, prefix: str) -> dict[str, _Component]:
    """One component per imported target of the package on the newest route, then one
    per shipped library that only a request of its own imports."""
    out: dict[str, _Component] = {}
    config = facts.config
    assert config is not None
    for artifact in facts.artifacts:
        evaluation = newest(artifact.evaluations)
        if evaluation is None:
            continue
        trial = _matching_trial(artifact, evaluation)
        # A config asked for no component answers no unknown one either: whether it
        # accepts anything is what the trial run (which asked) says.
        anything = accepts_anything(evaluation) or (trial is not None and accepts_anything(trial))
        for target in imported(artifact, evaluation):
            if not in_namespace(target.name, prefix):
                continue
            name = component_name(target.name, prefix)
            if name in out:
                continue
            out[name] = _Component(name, target.name, target.library)
            spellings = target_spellings(target.name, prefix, config.spellings)
            if anything:
                if target.library is None:
                    # An INTERFACE target of a config that ignores COMPONENTS: what a
                    # plain find_package publishes, no component to ask for.
                    out[name].requestable = False
                continue
            if trial is None:
                continue
            accepted = _accepted(facts, trial, spellings, target.library)
            if accepted is None:
                # The config refuses every spelling: the target is what a plain
                # find_package publishes, and asking for it by name would fail.
                out[name].requestable = False
                out[name].notes += (
                    f"find_package({config.package} COMPONENTS ...) accepted none of "
                    f"{', '.join(spellings)}: written requestable: false. If consumers ask "
                    "for it by another name, set `request` to it instead.",
                )
            elif accepted != name:
                out[name].request = accepted
        if trial is not None and not anything:
            _requested_only(facts, artifact, trial, prefix, out)
    return out


def _matching_trial(
    artifact: ArtifactFacts, evaluation: ConfigEvaluation
) -> ConfigEvaluation | None:
    return next((t for t in artifact.trials if t.cmake == evaluation.cmake), None)


def _accepted(
    facts: Facts, trial: ConfigEvaluation, spellings: Sequence[str], library: str | None
) -> str | None:
    for spelling in spellings:
        for candidate in facts.trials:
            if candidate.spelling != spelling or candidate.library != library:
                continue
            answer = trial.request(candidate.key)
            if answer is not None and not answer.refused:
                return spelling
    return None


def _requested_only(
    facts: Facts,
    artifact: ArtifactFacts,
    trial: ConfigEvaluation,
    prefix: str,
    out: dict[str, _Component],
) -> None:
    known = {c.library for c in out.values()}
    for candidate in facts.trials:
        if candidate.library is None or candidate.library in known:
            continue
        answer = trial.request(candidate.key)
        if answer is None or answer.refused:
            continue
        for target in answer.targets:
            if library_at(artifact, target.location) != candidate.library:
                continue
            if not in_namespace(target.name, prefix):
                continue
            name = component_name(target.name, prefix)
            out[name] = _Component(
                name,
                target.name,
                candidate.library,
                request=candidate.spelling if candidate.spelling != name else None,
                only_on_request=True,
                opt_in=True,
                notes=(
                    "Its target exists only when requested by name; opt_in keeps it out of the "
                    "aggregates. Decide whether consumers should get it without asking.",
                ),
            )
            known.add(candidate.library)
            break


def _draft_component(component: _Component, prefix: str) -> DraftComponent:
    return DraftComponent(
        name=component.name,
        target=None if component.target == f"{prefix}{component.name}" else component.target,
        request=component.request,
        opt_in=component.opt_in,
        only_on_request=component.only_on_request,
        header_only=component.library is None,
        notes=component.notes,
        requestable=component.requestable,
    )


def _variables(
    facts: Facts, routes: Sequence[Route], owner: dict[str, str]
) -> tuple[
    tuple[DraftAggregate, ...], tuple[DraftComponentVariable, ...], tuple[str, ...], tuple[str, ...]
]:
    """Aggregates and component variables as the newest route publishes them; the
    components left out of an aggregate; and where older routes differ."""
    config = facts.config
    assert config is not None
    aggregates: list[DraftAggregate] = []
    singles: list[DraftComponentVariable] = []
    disagreements: list[str] = []
    excluded: set[str] = set()
    for variable in config.variables:
        carried_newest: set[str] = set()
        shipped_all: set[str] = set()
        defined_on: set[str] = set()
        for artifact in facts.artifacts:
            views = _views(artifact, variable, routes, owner)
            if not views:
                continue
            defined_on.update(route for route, _ in views)
            newest_route, carried = views[-1]
            carried_newest |= carried
            shipped = {owner[name] for name in artifact.shipped if name in owner}
            shipped_all |= shipped
            excluded_here = shipped - carried
            for route, other in views[:-1]:
                if other != carried:
                    disagreements.append(
                        _disagreement(variable, artifact, route, other, newest_route, carried)
                    )
            if variable.endswith("_LIBRARY") and len(carried) == 1:
                continue
            excluded |= excluded_here
        if not carried_newest:
            continue
        on = (
            None
            if defined_on == {r.draft.name for r in routes}
            else tuple(r.draft.name for r in routes if r.draft.name in defined_on)
        )
        if variable.endswith("_LIBRARY") and len(carried_newest) == 1:
            singles.append(DraftComponentVariable(variable, next(iter(carried_newest)), on))
            continue
        left_out = tuple(sorted(shipped_all - carried_newest))
        aggregates.append(DraftAggregate(variable, left_out, None, on))
    return tuple(aggregates), tuple(singles), tuple(disagreements), tuple(sorted(excluded))


def _views(
    artifact: ArtifactFacts, variable: str, routes: Sequence[Route], owner: dict[str, str]
) -> list[tuple[str, set[str]]]:
    """(route, components carried) on each route the variable is defined, oldest first."""
    out: list[tuple[str, set[str]]] = []
    for route in routes:
        for evaluation in artifact.evaluations:
            if evaluation.cmake not in route.cmakes or evaluation.failure is not None:
                continue
            found = evaluation.variable(variable)
            if found is None or not found.defined:
                continue
            carried = {
                owner[e.library]
                for e in found.entries
                if e.library is not None and e.library in owner
            }
            out.append((route.draft.name, carried))
            break
    return out


def _disagreement(
    variable: str,
    artifact: ArtifactFacts,
    route: str,
    carried: set[str],
    newest_route: str,
    newest_carried: set[str],
) -> str:
    parts = []
    missing = sorted(newest_carried - carried)
    extra = sorted(carried - newest_carried)
    if missing:
        parts.append(f"lacks {', '.join(missing)}")
    if extra:
        parts.append(f"also carries {', '.join(extra)}")
    return (
        f"{artifact.label} ({artifact.platform}): {variable} on route {route} "
        f"{' and '.join(parts)} compared with route {newest_route}; written as route "
        f"{newest_route} publishes it, so `shiplint check` reports the difference"
    )


def _evaluation_warnings(facts: Facts) -> tuple[str, ...]:
    """Evaluations that said nothing: what was written for them came from the others."""
    out = []
    for artifact in facts.artifacts:
        for evaluation in artifact.evaluations:
            if evaluation.failure is not None:
                out.append(
                    f"{artifact.label}: CMake {evaluation.cmake_version} could not evaluate the "
                    f"config: {evaluation.failure.message}"
                )
            elif not evaluation.found:
                said = (evaluation.not_found_message or "").strip().rstrip(".")
                out.append(
                    f"{artifact.label}: on CMake {evaluation.cmake_version} the config reports "
                    f"the package NOT FOUND ({said or 'it gives no reason'}); nothing was "
                    "written from this artifact's config"
                )
    return tuple(out)


def _libraries(facts: Facts, owner: dict[str, str], prefix: str) -> tuple[DraftLibrary, ...]:
    names = sorted({name for a in facts.artifacts for name in a.shipped})
    runtime = _runtime(facts.artifacts, owner)
    # Loaded by a library of the package (not only by Python extension modules, which
    # consumers never link): a third-party library shipped for the others.
    needed = {
        dep
        for a in facts.artifacts
        for s in a.shipped.values()
        if not is_extension_module(s.file_name)
        for dep in s.depends_on
    }
    foreign = _foreign_targets(facts.artifacts, prefix)
    out = []
    for name in names:
        where = [a for a in facts.artifacts if name in a.shipped]
        notes: list[str] = []
        first = where[0].shipped[name]
        if is_extension_module(first.file_name):
            kind = "python-extension"
        elif name == runtime:
            kind = "runtime"
        elif name in owner:
            kind = "component"
        elif name in foreign:
            kind = "bundled"
            notes.append(f"Imported by another package's config in the artifact ({foreign[name]}).")
        elif name in needed:
            kind = "bundled"
            notes.append(
                "Loaded by the package's libraries; no config imports it. Decide: bundled or component."
            )
        else:
            kind = "plugin"
            notes.append(
                "No config imports it and no library of the package loads it: opened at run time? "
                "Decide: plugin or component."
            )
        depends = _common(tuple(a.shipped[name].depends_on for a in where))
        sonames = sorted({a.shipped[name].record.soname or "" for a in where} - {""})
        if sonames and any(
            s.rsplit("/", 1)[-1] != a.shipped[name].file_name for a in where for s in sonames
        ):
            notes.append(f"SONAME {', '.join(sonames)}.")
        out.append(
            DraftLibrary(
                name=name,
                kind=kind,
                placements=_placements(facts.artifacts, name),
                components=(owner[name],) if name in owner else (),
                symbols=sentinels(facts.artifacts, name)
                if kind in ("runtime", "component")
                else (),
                depends_on=tuple(d for d in depends if d != name),
                notes=tuple(notes),
            )
        )
    order = {"runtime": 0, "component": 1, "bundled": 2, "plugin": 3, "python-extension": 4}
    return tuple(sorted(out, key=lambda lib: (order[lib.kind], lib.name)))


def _foreign_targets(artifacts: Sequence[ArtifactFacts], prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for artifact in artifacts:
        evaluation = newest(artifact.evaluations)
        if evaluation is None:
            continue
        for target in imported(artifact, evaluation):
            if target.library is not None and not in_namespace(target.name, prefix):
                out.setdefault(target.library, target.name)
    return out


def _runtime(artifacts: Sequence[ArtifactFacts], owner: dict[str, str]) -> str | None:
    """The component library every other component library loads directly; the only
    one when there is one. None when they do not share one (oneTBB's stand alone)."""
    owned = sorted(owner)
    if len(owned) == 1:
        return owned[0]
    for candidate in owned:
        users = [
            a.shipped[name]
            for a in artifacts
            for name in owned
            if name != candidate and name in a.shipped and candidate in a.shipped
        ]
        if users and all(candidate in u.depends_on for u in users):
            return candidate
    return None


def _common(lists: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    lists = list(lists)
    if not lists:
        return ()
    kept = set(lists[0]).intersection(*lists[1:])
    return tuple(sorted(kept))


def _placements(artifacts: Sequence[ArtifactFacts], name: str) -> tuple[DraftPlacement, ...]:
    """Per OS when the library lands alike on every architecture the artifacts cover,
    else per architecture (`linux-x86_64` only)."""
    out: list[DraftPlacement] = []
    for os_name in sorted({a.platform.os for a in artifacts}):
        of_os = [a for a in artifacts if a.platform.os == os_name]
        placed = {
            a.platform: _placement(a.shipped[name], a.platform) for a in of_os if name in a.shipped
        }
        if not placed:
            continue
        shapes = set(placed.values())
        if len(placed) == len(of_os) and len(shapes) == 1:
            directory, file = next(iter(shapes))
            out.append(DraftPlacement(os_name, directory, file))
            continue
        for platform in sorted(placed, key=str):
            directory, file = placed[platform]
            out.append(DraftPlacement(str(_selector(platform)), directory, file))
    return tuple(out)


def _selector(platform: Platform) -> str:
    return str(platform) if platform.arch is not None else platform.os


def _placement(shipped: Shipped, platform: Platform) -> tuple[str, str | None]:
    return shipped.directory or ".", file_pattern(shipped.name, shipped.file_name, platform)


def _externals(
    artifacts: Sequence[ArtifactFacts],
) -> tuple[tuple[ExternalGroup, ...], tuple[ProvidedGroup, ...]]:
    by_artifact: list[tuple[ArtifactFacts, set[str]]] = []
    for artifact in artifacts:
        needed = {e for s in artifact.shipped.values() for e in s.externals}
        by_artifact.append((artifact, needed))
    tagged = Externals(policies=("platform-tag",))
    covered: set[str] = set()
    uses_tag = False
    for artifact, needed in by_artifact:
        for name in needed:
            if allowed_external(artifact.inventory.listing, name, tagged):
                covered.add(name)
                uses_tag = True
    found: set[tuple[str, str]] = set()
    rest: set[tuple[str, str]] = set()
    for artifact in artifacts:
        for shipped in artifact.shipped.values():
            for name in shipped.externals:
                if allowed_external(artifact.inventory.listing, name, tagged):
                    continue
                # A NEEDED entry naming a file the artifact ships, which the loader does
                # not find there, is the artifact's defect (SL308 reports it): never
                # allowed as an external.
                if name.lower() in _file_names(artifact):
                    continue
                os_name = artifact.platform.os
                if shipped.foreign_dirs and known_system(os_name, name) is None:
                    found.add((shipped.foreign_dirs[0].split("/", 1)[0], name))
                else:
                    rest.add((os_name, name))
    rest = {(os_name, name) for os_name, name in rest if all(name != n for _, n in found)}
    provided, rest = provided_groups(found, rest)
    return group_externals(uses_tag, rest), provided


def _file_names(artifact: ArtifactFacts) -> frozenset[str]:
    return frozenset(m.rsplit("/", 1)[-1].lower() for m in artifact.inventory.members)
