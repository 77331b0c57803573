"""Evaluate a package config with each configured CMake: one configure run per CMake.

`evaluate_artifact` lays out an artifact's config (see layout.py);
`evaluate_source` lays out the repository's config source for every platform the
manifest describes. Each returns `ConfigEvaluation` models (one per CMake and
platform), `AggregateAcrossRoutes` models comparing the routes, or a
`MissingConfig` when an artifact holds no config to evaluate.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from shiplint.artifacts.configs import installed_configs
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.tree import Tree
from shiplint.cmake_eval import compiler_need
from shiplint.cmake_eval.cmake_binary import CMakeBinary, CMakeUnusable, identify
from shiplint.cmake_eval.compare import compare_routes, route_coverage
from shiplint.cmake_eval.diagnostics import config_text, created, diagnose
from shiplint.cmake_eval.isolate import Answers, ProbeRun, answer_all
from shiplint.cmake_eval.languages import host_languages
from shiplint.cmake_eval.layout import Layout, TreeNotWritten, layout_artifact, layout_source
from shiplint.cmake_eval.model import (
    AlternateConfig,
    ComponentRequest,
    ConfigEvaluation,
    ConfigModel,
    Failure,
    FailureKind,
    ImportedTarget,
    MissingConfig,
    Mode,
    RequestSetAnswer,
    ResolvedVariable,
    ShippedLibrary,
)
from shiplint.cmake_eval.probe import ProbeFiles, request_dir, write_probe
from shiplint.cmake_eval.replay import configure_kept
from shiplint.cmake_eval.resolve import Resolver
from shiplint.cmake_eval.results import (
    PathMapper,
    Raw,
    cmake_errors,
    cmake_list,
    error_location,
    read_results,
)
from shiplint.cmake_eval.run import Confinement, RunOutcome, detect
from shiplint.cmake_eval.target_host import NOTES, TargetHost, host_answers, is_host
from shiplint.cmake_eval.target_host import stand_ins as host_stand_ins
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.handoff import Turns
from shiplint.manifest.model import Manifest
from shiplint.placed import placed_libraries
from shiplint.platforms import Platform
from shiplint.scratch import scratch_tree
from shiplint.waiting import HALT_GRACE

if TYPE_CHECKING:
    from shiplint.sources.model import CMakeProject

# A component name no package defines: the request every config must refuse.
ABSENT_COMPONENT = "shiplint_absent_component"

_FALSE = {"", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"}


def truthy(value: str) -> bool:
    """CMake's if(<constant>) truth for a variable's value."""
    upper = value.upper()
    return upper not in _FALSE and not upper.endswith("-NOTFOUND")


@dataclass(frozen=True)
class _Input:
    """What is being evaluated, known even when laying it out failed."""

    mode: Mode
    label: str
    platform: Platform
    config: Location
    shipped: tuple[ShippedLibrary, ...]


def _input_of(layout: Layout) -> _Input:
    return _Input(
        layout.mode, layout.label, layout.platform, layout.config_location, layout.shipped
    )


def manifest_platforms(manifest: Manifest) -> tuple[Platform, ...]:
    """The platforms the manifest describes: its list, else every placement's selector.

    An OS named both plainly and with an architecture (`linux`, `linux-x86_64`) is
    evaluated with the architecture only: an arch-less platform matches every
    arch-qualified placement too, so it would repeat the same evaluation.
    """
    if manifest.platforms:
        return manifest.platforms
    seen = {
        Platform(p.selector.os, p.selector.arch)
        for lib in manifest.libraries
        for p in lib.placements
    }
    qualified = {p.os for p in seen if p.arch is not None}
    kept = {p for p in seen if p.arch is not None or p.os not in qualified}
    return tuple(sorted(kept, key=str))


def evaluation_platform(listing: Listing, manifest: Manifest) -> Platform:
    """The artifact's platform (its inventory's); for an artifact whose platform is
    unknown (no wheel tag, no binary header: SL317 says so), the manifest's only
    platform, else Linux, the platform a config's default branches assume."""
    if listing.platform is not None:
        return listing.platform
    if len(manifest.platforms) == 1:
        return manifest.platforms[0]
    return Platform("linux")


def evaluate_artifact(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
) -> list[ConfigModel]:
    """Each CMake package of the manifest installed in the artifact, evaluated on its own
    (the main one as the manifest describes it, then each of cmake.other_packages). A run
    whose inputs were evaluated before is replayed (replay.py)."""
    if not manifest.cmake.other_packages:
        return _evaluate_package(tree, listing, manifest, cmakes, timeout)
    models: list[ConfigModel] = []
    for package in manifest.cmake_packages:
        scoped = manifest.for_package(package)
        configs = installed_configs(scoped, listing.members)
        found = _evaluate_package(tree, replace(listing, configs=configs), scoped, cmakes, timeout)
        models.extend(replace(model, cmake_package=package) for model in found)
    return models


def _evaluate_package(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
) -> list[ConfigModel]:
    platform = evaluation_platform(listing, manifest)
    member = listing.config
    if member is None:
        searched = manifest.cmake.installed_config_dirs
        return [MissingConfig(listing.label, platform, searched, tree.location())]
    libraries = placed_libraries(tree, listing, manifest, platform)
    with scratch_tree("shiplint-cmake-") as tmp:
        work = Path(tmp)
        layout = layout_artifact(tree, listing, manifest, platform, libraries, work / "tree")
        what = _Input(Mode.ARTIFACT, tree.label, platform, tree.location(member), ())
        evaluations = _evaluate_all(layout, what, manifest, cmakes, timeout, work)
    return [
        *evaluations,
        *compare_routes(manifest, evaluations),
        *route_coverage(manifest, evaluations),
    ]


def evaluate_source(
    repo: Path,
    manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
    project: CMakeProject | None = None,
) -> list[ConfigModel]:
    """The config source, per manifest platform. With the sources walk's `project`, the
    tree also holds the export files its install(EXPORT) declarations would install."""
    models: list[ConfigModel] = []
    config = Location(manifest.cmake.config_source or manifest.path)
    for platform in manifest_platforms(manifest):
        with scratch_tree("shiplint-cmake-") as tmp:
            work = Path(tmp)
            layout = layout_source(repo, manifest, platform, work / "tree")
            if isinstance(layout, Layout) and project is not None:
                # Only a source evaluation lays out exports: an artifact run never imports them.
                from shiplint.cmake_eval.exports import plan_exports, write_exports

                config_dir = manifest.cmake.installed_config_dirs[0]
                write_exports(plan_exports(project, manifest, platform, config_dir), layout.root)
            what = _Input(Mode.SOURCE, "source", platform, config, ())
            evaluations = _evaluate_all(layout, what, manifest, cmakes, timeout, work)
        models.extend(evaluations)
        models.extend(compare_routes(manifest, evaluations))
        models.extend(route_coverage(manifest, evaluations))
    return models


def _evaluate_all(
    layout: Layout | Failure,
    what: _Input,
    manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
    work: Path,
) -> list[ConfigEvaluation]:
    if isinstance(layout, Layout):
        what = _input_of(layout)
    if not cmakes:
        # Said, not skipped: no CMake means no route of the config was checked.
        failure = Failure(
            FailureKind.CMAKE_UNUSABLE,
            "no CMake binary is configured (--cmake, [tool.shiplint] cmake) and none is on PATH",
            what.config,
        )
        return [_failed(what, "none", "none", None, failure)]

    def one(index: int, path: str) -> ConfigEvaluation:
        try:
            cmake = identify(path)
        except CMakeUnusable as exc:
            failure = Failure(
                FailureKind.CMAKE_UNUSABLE, f"cannot use CMake {path}: {exc.reason}", what.config
            )
            return _failed(what, path, "unknown", None, failure)
        route = manifest.cmake.route_for(cmake.version)
        route_name = route.name if route else None
        if isinstance(layout, Failure):
            return _failed(what, path, cmake.version_text, route_name, layout)
        return evaluate_once(
            layout, manifest, cmake, path, route_name, timeout, work / f"run{index}"
        )

    if isinstance(layout, Layout):
        # Spent from every run's one limit, as a configure's own detection would be: a
        # compiler that hangs stops each evaluation at the limit, not at twice it.
        started = time.monotonic()
        _detect_newest(layout, cmakes, timeout, work / "detect")
        timeout = max(timeout - (time.monotonic() - started), 0.0)
    # The runs wait on CMake, not on Python: each CMake runs while the next run is
    # prepared (each in its own directory; the placeholder tree is only read), results
    # in the given order. Except when the probe generates the config into the tree
    # first (a .cmake.in source through configure_package_config_file): every run
    # writes that same file, and a run reading it while another rewrites it sees half
    # a config.
    if isinstance(layout, Layout) and layout.configure:
        return [one(index, path) for index, path in enumerate(cmakes)]
    with Turns("shiplint-routes") as turns:
        return turns.map(lambda indexed: one(*indexed), enumerate(cmakes))


def _detect_newest(layout: Layout, cmakes: Sequence[str], timeout: float, work: Path) -> None:
    """With several CMakes, the newest detects the compilers first: the others then share
    its ABI answers (abi_sharing.py) instead of compiling and linking them again. Not for
    a package evaluated without them first (evaluate_once)."""
    if not host_languages() or needs_compilers(layout) is None:
        return
    found = []
    for path in cmakes:
        try:
            found.append(identify(path))
        except CMakeUnusable:
            continue  # said by its evaluation
    if len({cmake.version for cmake in found}) < 2:
        return
    newest = max(found, key=lambda cmake: cmake.version)
    detect(newest, layout.platform, host_languages(), work, timeout)


def _failed(
    what: _Input, cmake: str, version: str, route: str | None, failure: Failure
) -> ConfigEvaluation:
    return ConfigEvaluation(
        mode=what.mode,
        label=what.label,
        platform=what.platform,
        cmake=cmake,
        cmake_version=version,
        route=route,
        config=what.config,
        shipped=what.shipped,
        failure=failure,
        found=False,
        not_found_message=None,
        aggregates=(),
        component_variables=(),
        targets=(),
        requests=(),
        seconds=0.0,
    )


def probe_variables(manifest: Manifest) -> tuple[str, ...]:
    package = manifest.cmake.package
    names = [f"{package}_FOUND", f"{package}_NOT_FOUND_MESSAGE"]
    names += [a.variable for a in manifest.aggregates]
    names += [v.variable for v in manifest.component_variables]
    return tuple(dict.fromkeys(names))


def evaluate_once(
    layout: Layout,
    manifest: Manifest,
    cmake: CMakeBinary,
    configured_as: str,
    route: str | None,
    timeout: float,
    work: Path,
) -> ConfigEvaluation:
    """One configure run of the probe against `layout` (or its replay), read back into
    a model, as a consumer with the host's languages sees the config: first without
    them when no file of the package names what their detection sets, then with them
    when the run showed it may have needed them (compiler_need.py)."""
    languages = host_languages()
    started = time.monotonic()
    because = needs_compilers(layout) if languages else None
    if languages and because is None:
        tried = _evaluate(layout, manifest, cmake, configured_as, route, timeout, work, ())
        if isinstance(tried, ConfigEvaluation):
            return tried
        because = tried
        timeout = max(timeout - (time.monotonic() - started), 0.0)
        work = work.with_name(f"{work.name}-languages")
    evaluation = _evaluate(layout, manifest, cmake, configured_as, route, timeout, work, languages)
    # With the host's languages no run is tentative, so every one is read.
    assert isinstance(evaluation, ConfigEvaluation)
    if because is None:
        return evaluation
    # Named by the artifact's members, not the run's temporary paths.
    return replace(evaluation, languages_because=because.replace(f"{layout.root}/", ""))


def needs_compilers(layout: Layout) -> str | None:
    """Why an evaluation of `layout` needs the compilers before it runs (a package file
    naming a variable their detection sets, but the probe's own), or None."""
    return compiler_need.named_in(layout.tree_cmake_files(), given_by_probe(layout))


def given_by_probe(layout: Layout) -> frozenset[str]:
    """What the detection sets that the probe sets itself, languages or not."""
    return frozenset({"CMAKE_SIZEOF_VOID_P"}) if layout.platform.pointer_size else frozenset()


def _evaluate(
    layout: Layout,
    manifest: Manifest,
    cmake: CMakeBinary,
    configured_as: str,
    route: str | None,
    timeout: float,
    work: Path,
    enabled: tuple[str, ...],
) -> ConfigEvaluation | str:
    """evaluate_once with the languages `enabled`; made without the host's, why a run may
    have answered otherwise with them, when one may have."""
    shipped = _shipped_components(manifest, layout)
    spell = manifest.request_name
    # Targets that are no find_package component are never named after COMPONENTS.
    requestable = [c for c in manifest.components if c.requestable]
    # Components may share a spelling (a request that brings several targets).
    together = tuple(dict.fromkeys(spell(c.name) for c in requestable if c.name in shipped))
    alone = [
        (spelling,)
        for spelling in dict.fromkeys(spell(c.name) for c in requestable if c.name not in shipped)
        if spelling not in together
    ]
    # The shipped ones twice: plainly, then as REQUIRED (the twin), since a config that
    # reads <pkg>_FIND_REQUIRED can answer the two differently.
    batched = [together, together] if together else []
    sets = [(request_set.request,) for request_set in manifest.cmake.request_sets]
    # A package with no find_package component takes no COMPONENTS: a request for an
    # unknown one asks it nothing it claims to answer.
    absent = [(ABSENT_COMPONENT,)] if requestable else []
    requests = [*batched, *alone, *absent, *sets]
    first_set = len(requests) - len(sets)
    languages = host_languages()
    # Made without the languages the host has: a run may say it needed them.
    tentative = enabled != languages
    needed: list[str] = []
    # The twin and the requests for what the artifact lacks are asked as REQUIRED
    # (SL109 is about a REQUIRED request).
    required = frozenset(range(1 if together else 0, first_set))
    deadline = time.monotonic() + timeout
    # What the config asks of the host (python3's sysconfig, uname) answered for the
    # artifact's platform (target_host.py): the same stand-ins for every run.
    target = TargetHost(layout.platform, layout.python, layout.platform_tag)
    places = contextlib.ExitStack()
    stand_ins = places.enter_context(host_stand_ins(work, target))

    def run(only: frozenset[str] | None, attempt: int) -> ProbeRun:
        # A resumed run (isolate.py) in a directory of its own beside the first.
        here = work if attempt == 0 else work.with_name(f"{work.name}.{attempt}")
        probe = write_probe(
            here / "probe",
            manifest.cmake.package,
            layout.config_dir,
            probe_variables(manifest),
            requests,
            layout.configure,
            tuple(directory for _, directory in layout.alternates),
            enabled,
            required,
            only,
            layout.platform.pointer_size,
            compiler_need.watched(given_by_probe(layout)) if tentative else (),
        )
        # Writable: the evaluation's whole directory (this run's and the laid-out tree,
        # where the probe configures a .cmake.in source), nothing else.
        remaining = max(deadline - time.monotonic(), 0.0) if attempt else timeout
        outcome = configure_kept(
            cmake,
            probe.source_dir,
            layout,
            here,
            remaining,
            enabled,
            stand_ins,
            tentative,
            given_by_probe(layout),
        )
        # A run that never finished (the time limit, a CMake stopped from outside) would
        # not finish with them either: its answer is the evaluation's.
        if outcome.compiler_need is not None and not (outcome.timed_out or outcome.halted):
            needed.append(outcome.compiler_need)
        return ProbeRun(probe, outcome, PathMapper(layout.root, here))

    try:
        with places:
            answers = answer_all(run, requests, manifest.cmake.package, deadline)
    except TreeNotWritten as exc:
        failure = Failure(FailureKind.ERROR, str(exc), layout.config_location)
        return _failed(_input_of(layout), configured_as, cmake.version_text, route, failure)
    if needed:
        return needed[0]
    probe, outcome = answers.first.probe, answers.outcome
    mapper = PathMapper(layout.root, work)
    main = read_results(probe.main_result, mapper)
    package = manifest.cmake.package
    # The shipped members (copies included): a path naming anything else carries nothing.
    present = layout.shipped
    written = _config_text(layout)
    published = _published(main, manifest, layout.platform, present, written)
    found = main.variables.get(f"{package}_FOUND", (False, ""))
    message = main.variables.get(f"{package}_NOT_FOUND_MESSAGE", (False, ""))[1]
    alternates = []
    for (member, _), path in zip(layout.alternates, probe.alternate_results, strict=True):
        raw = read_results(path, mapper)
        if raw.present:
            alternate_found = raw.variables.get(f"{package}_FOUND", (False, ""))
            alternates.append(
                AlternateConfig(
                    layout.location(member),
                    alternate_found[0] and truthy(alternate_found[1]),
                    *_published(raw, manifest, layout.platform, present, written),
                )
            )
    aggregates, component_variables, targets = published
    return ConfigEvaluation(
        mode=layout.mode,
        label=layout.label,
        platform=layout.platform,
        cmake=configured_as,
        cmake_version=cmake.version_text,
        route=route,
        config=layout.config_location,
        shipped=layout.shipped,
        failure=_failure(outcome, main, layout, mapper, probe, timeout),
        found=found[0] and truthy(found[1]),
        not_found_message=message or None,
        aggregates=aggregates,
        component_variables=component_variables,
        targets=targets,
        requests=_requests(
            probe, answers.results, layout, manifest, present, written, 1 if together else None
        ),
        request_sets=_request_sets(
            [(i, spellings) for i, (spellings, _) in enumerate(probe.request_results)][first_set:],
            answers.results,
            manifest,
            layout.platform,
            present,
            written,
        ),
        seconds=round(outcome.seconds, 3),
        alternates=tuple(alternates),
        languages=languages,
        unconfined=outcome.confinement is Confinement.NONE,
        reused=outcome.reused,
        runs=answers.runs,
        host_answers=_host_answers(answers, stand_ins, target),
        diagnostics=diagnose(
            outcome.stderr,
            main.variables,
            main.targets,
            (
                *(a.variable for a in manifest.aggregates),
                *(v.variable for v in manifest.component_variables),
            ),
            created(probe.main_result, mapper),
            package,
            config_text(
                lambda: _config_files(layout), mapper, layout.config_location, layout.location
            ),
            mapper,
        ),
    )


def _config_files(layout: Layout) -> Iterator[tuple[Path, bytes]]:
    """The config's `.cmake` files, then those of the packages installed beside it
    (`share/cmake/Caffe2` beside `share/cmake/Torch`), which its find_dependency calls
    evaluate in the consumer's project too."""
    yield from layout.cmake_files()
    parent = layout.config_dir.parent
    if parent == layout.root or layout.root not in parent.parents:
        return
    if layout.planned is not None:
        yield from layout.planned.cmake_files(parent)
        return
    for path in sorted(parent.rglob("*.cmake")):
        try:
            yield path, path.read_bytes()
        except OSError:
            continue


def _shipped_components(manifest: Manifest, layout: Layout) -> set[str]:
    """The components the artifact ships, as its component requests are asked: those of
    its shipped libraries, and the header-only ones, which ship with the package itself
    (their target's existence is what SL105 checks)."""
    owned = {c for lib in layout.shipped for c in lib.components}
    return owned | {c.name for c in manifest.components if c.header_only}


def _host_answers(answers: Answers, stand_ins: Path | None, target: TargetHost) -> tuple[str, ...]:
    """What the host answered instead of the artifact's platform, over every run."""
    if stand_ins is None:
        if is_host(target):
            return ()
        return (
            "python3, python and uname (no stand-in: no temporary directory here lets a program run)",
        )
    return tuple(
        dict.fromkeys(
            asked
            for run in answers.probes
            for asked in host_answers(run.source_dir.parent / "home" / NOTES)
        )
    )


def _config_text(layout: Layout) -> str:
    """The text of the evaluated config's files, to tell a baked-in path from a found one."""
    parts = []
    for _, data in layout.cmake_files():
        # As a text-mode read decodes it: universal newlines.
        text = data.decode("utf-8", errors="replace")
        parts.append(text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(parts)


_ABSOLUTE = re.compile(r"^(/|[A-Za-z]:[/\\])")


def _build_machine_paths(items: Sequence[str], written: str) -> tuple[str, ...]:
    """Absolute paths among `items` that the config spells out itself (not ones it found).

    Paths inside the evaluated tree are member paths by now (relative); a path a config
    computed on the consumer's machine (find_library) is not in its text.
    """
    return tuple(
        item for item in items if _ABSOLUTE.match(item) and "$<" not in item and item in written
    )


def _resolver(
    manifest: Manifest,
    platform: Platform,
    targets: tuple[ImportedTarget, ...],
    shipped: tuple[ShippedLibrary, ...],
) -> Resolver:
    return Resolver(manifest, platform, targets, frozenset(s.member for s in shipped), shipped)


def _published(
    raw: Raw,
    manifest: Manifest,
    platform: Platform,
    present: tuple[ShippedLibrary, ...],
    written: str = "",
) -> tuple[tuple[ResolvedVariable, ...], tuple[ResolvedVariable, ...], tuple[ImportedTarget, ...]]:
    """The manifest's aggregates and component variables, resolved, and the targets."""
    targets = _targets(raw, manifest, platform, present, written)
    resolver = _resolver(manifest, platform, targets, present)

    def resolved(name: str) -> ResolvedVariable:
        defined, value = raw.variables.get(name, (False, ""))
        return ResolvedVariable(name, defined, resolver.resolve(cmake_list(value)))

    return (
        tuple(resolved(a.variable) for a in manifest.aggregates),
        tuple(resolved(v.variable) for v in manifest.component_variables),
        targets,
    )


def _targets(
    main: Raw,
    manifest: Manifest,
    platform: Platform,
    present: tuple[ShippedLibrary, ...],
    written: str,
) -> tuple[ImportedTarget, ...]:
    by_location = _resolver(manifest, platform, (), present)
    out: list[ImportedTarget] = []
    for record in main.targets:
        name = record["name"]
        location = record.get("IMPORTED_LOCATION") or record.get("CONFIG_LOCATION") or None
        # Named as the manifest names the component's target, else the component whose
        # library the target imports.
        component = manifest.component_of_target(name)
        if component is None and location is not None:
            component = by_location.library_of(location)[1]
        link_libraries = cmake_list(record.get("INTERFACE_LINK_LIBRARIES", ""))
        link_options = cmake_list(record.get("INTERFACE_LINK_OPTIONS", ""))
        out.append(
            ImportedTarget(
                name=name,
                type=record.get("TYPE", ""),
                location=location,
                link_libraries=link_libraries,
                link_options=link_options,
                component=component,
                build_machine_paths=_build_machine_paths((*link_libraries, *link_options), written),
                include_dirs=cmake_list(record.get("INTERFACE_INCLUDE_DIRECTORIES", "")),
                compile_definitions=cmake_list(record.get("INTERFACE_COMPILE_DEFINITIONS", "")),
            )
        )
    return tuple(sorted(out, key=lambda t: t.name))


def _requests(
    probe: ProbeFiles,
    results: dict[str, Raw],
    layout: Layout,
    manifest: Manifest,
    present: tuple[ShippedLibrary, ...],
    written: str,
    required_twin: int | None,
) -> tuple[ComponentRequest, ...]:
    """Each component request's answer; `required_twin` is the index of the request that
    repeats the shipped components' request as REQUIRED, whose answers are attached to
    the plain ones."""
    package = manifest.cmake.package
    shipped = _shipped_components(manifest, layout)
    by_spelling: dict[str, list[str]] = {}
    for known in manifest.components:
        by_spelling.setdefault(manifest.request_name(known.name), []).append(known.name)
    out: list[ComponentRequest] = []

    def answer(
        raw: Raw, spelling: str, found: bool, message: str, fatal: str, retried: bool
    ) -> list[ComponentRequest]:
        _, variables, targets = _published(raw, manifest, layout.platform, present, written)
        return [
            ComponentRequest(
                component=component,
                shipped=component in shipped,
                found=found,
                message=message or None,
                fatal=fatal or None,
                spelling=spelling,
                targets=targets,
                component_variables=variables,
                retried=retried,
            )
            for component in by_spelling.get(spelling, [spelling])
        ]

    def overall(raw: Raw) -> tuple[bool, str, str]:
        found = raw.variables.get(f"{package}_FOUND", (False, ""))
        message = raw.variables.get(f"{package}_NOT_FOUND_MESSAGE", (False, ""))[1]
        fatal = raw.variables.get("_shiplint_fatal", (False, ""))[1]
        return found[0] and truthy(found[1]), message, fatal

    def answers(
        index: int, spellings: tuple[str, ...], raw: Raw
    ) -> Iterator[tuple[Raw, str, bool, str, str, bool]]:
        request_found, message, fatal = overall(raw)
        if len(spellings) == 1:
            yield raw, spellings[0], request_found, message, fatal, False
            return
        # Asked together: each component answers for itself through <pkg>_<c>_FOUND, and
        # the request's message and any abort belong to the ones that were refused. One
        # the config left unanswered was asked for again alone.
        for position, spelling in enumerate(spellings):
            single = results.get(request_dir(index, position), Raw())
            if single.present:
                yield single, spelling, *overall(single), True
                continue
            own = raw.variables.get(f"{package}_{spelling}_FOUND", (False, ""))
            component_found = truthy(own[1]) if own[0] else request_found
            refused = "" if component_found else message
            yield raw, spelling, component_found, refused, "" if component_found else fatal, False

    as_required: dict[str, tuple[bool, str | None]] = {}
    sets = {request_set.request for request_set in manifest.cmake.request_sets}
    for index, (spellings, _) in enumerate(probe.request_results):
        if len(spellings) == 1 and spellings[0] in sets:
            continue  # a request set, read by _request_sets
        raw = results.get(request_dir(index), Raw())
        if not raw.present:
            continue  # the run stopped before this request; the failure says why
        for single, spelling, found, message, fatal, retried in answers(index, spellings, raw):
            if index == required_twin:
                said = " ".join(t for t in (message, fatal) if t)
                as_required[spelling] = (found and not fatal, said or None)
            else:
                out.extend(answer(single, spelling, found, message, fatal, retried))
    return tuple(
        replace(
            request,
            required_found=as_required[request.spelling][0],
            required_message=as_required[request.spelling][1],
        )
        if request.spelling in as_required
        else request
        for request in out
    )


def _request_sets(
    asked: Sequence[tuple[int, tuple[str, ...]]],
    results: dict[str, Raw],
    manifest: Manifest,
    platform: Platform,
    present: tuple[ShippedLibrary, ...],
    written: str,
) -> tuple[RequestSetAnswer, ...]:
    package = manifest.cmake.package
    out = []
    for index, (spelling,) in asked:
        raw = results.get(request_dir(index), Raw())
        if not raw.present:
            continue  # the run stopped before this request; the failure says why
        found = raw.variables.get(f"{package}_FOUND", (False, ""))
        message = raw.variables.get(f"{package}_NOT_FOUND_MESSAGE", (False, ""))[1]
        fatal = raw.variables.get("_shiplint_fatal", (False, ""))[1]
        out.append(
            RequestSetAnswer(
                request=spelling,
                found=found[0] and truthy(found[1]),
                message=message or None,
                fatal=fatal or None,
                targets=_targets(raw, manifest, platform, present, written),
            )
        )
    return tuple(out)


def _failure(
    outcome: RunOutcome,
    main: Raw,
    layout: Layout,
    mapper: PathMapper,
    probe: ProbeFiles,
    timeout: float,
) -> Failure | None:
    if outcome.halted:
        return Failure(
            FailureKind.STOPPED,
            f"CMake was stopped (SIGSTOP or a debugger) and did not continue within "
            f"{HALT_GRACE:g} s; the run was ended",
            layout.config_location,
        )
    if outcome.timed_out:
        return Failure(
            FailureKind.TIMEOUT,
            f"configuring a consumer did not finish within {timeout:g} s and was stopped",
            layout.config_location,
        )
    if outcome.returncode == 0 and main.present:
        return None
    errors = cmake_errors(outcome.stderr)
    # An error that arose inside a component request is that request's answer (isolate.py).
    own = [e for e in errors if e.request is None]
    if main.present and errors and not own:
        return None
    error = own[0] if own else None
    if error is None:
        tail = mapper.text(outcome.stderr.strip())[-500:] or "no output"
        return Failure(
            FailureKind.ERROR,
            f"CMake exited with {outcome.returncode}: {tail}",
            layout.config_location,
        )
    location = error_location(
        error, mapper, probe.source_dir, layout.config_location, layout.location
    )
    return Failure(FailureKind.ERROR, mapper.text(error.message), location)
