"""Turn a run request into models: each input read once, only when a built area needs it.

`shiplint.areas.plan` says which areas the selected rules need; this module builds
their inputs and runs them. Per artifact: the listing first (no binary parsed),
then, only when an area needs them, the binary records and link graph (the
inventory), which the artifact rules, the operator area and the link probe all
read. Imports are local so a run that reads no binary never imports a binary reader, and a
sources-only run never starts CMake.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from shiplint.areas import (
    ARTIFACTS,
    CONFIG_ARTIFACT,
    CONFIG_SOURCE,
    CONFIG_VERSION,
    HEADER_PROBE,
    INCLUDE_CLOSURE,
    LINK_PROBE,
    OPERATORS,
    SOURCES,
    Area,
    Input,
    Plan,
    plan,
)
from shiplint.handoff import Turns
from shiplint.manifest.model import Manifest
from shiplint.plural import counted
from shiplint.request import Progress, RunRequest
from shiplint.rule import Rule

if TYPE_CHECKING:
    from shiplint.areas import Model
    from shiplint.artifacts.listing import Listing
    from shiplint.artifacts.model import Inventory
    from shiplint.artifacts.reading import Reader
    from shiplint.artifacts.tree import Tree
    from shiplint.cmake_eval.model import ConfigModel, VersionModel
    from shiplint.include_closure.model import IncludeModel
    from shiplint.operators.model import OperatorRegistrations
    from shiplint.probes.header.model import HeaderModel
    from shiplint.probes.link.model import ProbeModel
    from shiplint.sources.model import CMakeProject, SourceModel


def collect_models(
    request: RunRequest,
    manifest: Manifest,
    rules: Sequence[Rule[Any]],
    progress: Progress,
    reader: Reader | None = None,
) -> list[Model]:
    """Every model the selected `rules` read. `reader` reads binaries (opened by the
    caller, so that what it starts overlaps the caller's work); without one, one is
    opened here when a built area needs binaries. Raises ManifestError when a file the
    manifest names for the run is missing."""
    return _build(plan(request, rules, request.selection), request, manifest, progress, reader)


def area_models(
    request: RunRequest,
    manifest: Manifest,
    areas: Iterable[Area],
    progress: Progress,
    reader: Reader | None = None,
) -> list[Model]:
    """The models of `areas` the run can feed, for a reader of models rather than of
    findings (diff, init): it names what it reads, not rules that happen to read it."""
    run = Plan(frozenset(area for area in areas if area.available(request)))
    return _build(run, request, manifest, progress, reader)


def _build(
    run: Plan,
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
    reader: Reader | None,
) -> list[Model]:
    if run.builds(CONFIG_SOURCE):
        from shiplint.manifest.errors import ManifestError
        from shiplint.manifest.inputs import missing_config_sources

        problems = missing_config_sources(manifest, request.root)
        if problems:
            raise ManifestError(problems)
    models: list[Model] = []
    # The config source's evaluation reuses the sources walk when the run has one.
    project: CMakeProject | None = None
    if run.builds(SOURCES):
        sources = _source_model(request, manifest, progress)
        models.append(sources)
        project = sources.project
    if run.builds(CONFIG_SOURCE):
        models.extend(_config_source_models(request, manifest, progress, project))
    if run.reads(Input.LISTING):
        models.extend(_artifact_models(run, request, manifest, progress, reader))
    return models


def _source_model(request: RunRequest, manifest: Manifest, progress: Progress) -> SourceModel:
    """CMake sources and build declarations under request.root."""
    from shiplint.sources.collect import read_sources

    progress.step(f"reading CMake sources and build declarations under {request.root}")
    return read_sources(request.root, manifest)


def _config_source_models(
    request: RunRequest, manifest: Manifest, progress: Progress, project: CMakeProject | None
) -> list[ConfigModel]:
    """The config's source evaluated with each CMake, per manifest platform, in a tree
    that also holds what the project's install(EXPORT)s would install beside it (the
    walk is the sources area's when the run has one, so the sources are read once)."""
    if manifest.cmake.config_source is None:
        return []
    from shiplint.cmake_eval.evaluate import evaluate_source
    from shiplint.sources.interpret import walk_project

    if project is None:
        sources = manifest.sources
        project = walk_project(request.root, sources.cmake_roots, sources.exclude)
    progress.step(
        f"evaluating {manifest.cmake.config_source} with {counted(len(request.cmake), 'CMake')}"
    )
    models = evaluate_source(
        request.root,
        manifest,
        request.cmake,
        request.evaluation_timeout,
        project,
    )
    _say_reused(models, progress)
    return models


def _artifact_models(
    run: Plan,
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
    reader: Reader | None,
) -> list[Model]:
    from shiplint.artifacts.reading import opened

    if reader is not None or not run.reads(Input.BINARIES):
        return _each_artifact(run, request, manifest, progress, reader)
    with opened(request.artifacts, progress.step) as own:
        return _each_artifact(run, request, manifest, progress, own)


def _each_artifact(
    run: Plan,
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
    reader: Reader | None,
) -> list[Model]:
    """Open each artifact once (an unreadable one raises ArtifactError: exit 2), list it
    once, and hand the listing (and the inventory, when read) to every built area."""
    from contextlib import ExitStack

    from shiplint.artifacts.archive import open_artifact
    from shiplint.artifacts.inventory import list_artifact
    from shiplint.artifacts.prefix import PrefixTree, group_artifacts

    models: list[Model] = []
    # A wheel of the package and its companions' wheels are read as one prefix.
    for paths in group_artifacts(request.artifacts, manifest):
        progress.step(f"reading {' + '.join(path.name for path in paths)}")
        # Closed after every area has read it: a run over many artifacts holds one open.
        with ExitStack() as stack:
            trees = [
                stack.enter_context(open_artifact(path, request.shown(path))) for path in paths
            ]
            tree: Tree = trees[0] if len(trees) == 1 else PrefixTree(trees[0], trees[1:])
            listing = list_artifact(tree, manifest)
            models.extend(
                _areas_of_one_artifact(run, tree, listing, reader, request, manifest, progress)
            )
    return models


def _areas_of_one_artifact(
    run: Plan,
    tree: Tree,
    listing: Listing,
    reader: Reader | None,
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
) -> list[Model]:
    models: list[Model] = []
    inventory: Inventory | None = None
    # The config evaluations wait on CMake processes: the binary reading, which keeps
    # this process busy, runs while they wait. Replayed from the user cache, they wait
    # on none and run first, one after the other: two threads of Python only slow each
    # other (handoff.py).
    with Turns("shiplint-areas") as turns:
        config = (
            turns.start(_config_artifact_models, tree, listing, request, manifest, progress)
            if run.builds(CONFIG_ARTIFACT) or run.builds(INCLUDE_CLOSURE)
            else None
        )
        version = (
            turns.start(_version_file_models, tree, listing, request, manifest, progress)
            if run.builds(CONFIG_VERSION)
            else None
        )
        if run.reads(Input.BINARIES):
            assert reader is not None  # a reader is opened whenever binaries are read
            inventory = _inventory(tree, listing, reader, manifest, progress)
            if run.builds(ARTIFACTS):
                models.append(inventory)
            if run.builds(OPERATORS):
                models.extend(_operator_models(tree, inventory, reader, manifest, progress))
        if config is not None:
            evaluated = turns.result(config)
            if run.builds(CONFIG_ARTIFACT):
                models.extend(evaluated)
            if run.builds(INCLUDE_CLOSURE):
                models.append(_include_closure_model(tree, listing, evaluated, manifest, progress))
        if version is not None:
            versions = turns.result(version)
            models.extend(versions)
    if inventory is not None and run.builds(LINK_PROBE):
        models.extend(_link_probe_models(tree, inventory, request, manifest, progress))
    if inventory is not None and run.builds(HEADER_PROBE):
        models.extend(_header_probe_models(tree, inventory, request, manifest, progress))
    return models


def _inventory(
    tree: Tree, listing: Listing, reader: Reader, manifest: Manifest, progress: Progress
) -> Inventory:
    """The artifact's binaries read once, and their link graph resolved once."""
    from shiplint.artifacts.inventory import read_inventory

    progress.step(f"reading the binaries of {tree.label}")
    return read_inventory(tree, manifest, reader, listing)


def _config_artifact_models(
    tree: Tree, listing: Listing, request: RunRequest, manifest: Manifest, progress: Progress
) -> list[ConfigModel]:
    """The installed config evaluated with each CMake, as the artifact's platform."""
    from shiplint.cmake_eval.evaluate import evaluate_artifact

    progress.step(
        f"evaluating the CMake config of {tree.label} with {counted(len(request.cmake), 'CMake')}"
    )
    models = evaluate_artifact(
        tree,
        listing,
        manifest,
        request.cmake,
        request.evaluation_timeout,
    )
    _say_reused(models, progress)
    return models


def _say_reused(models: list[ConfigModel], progress: Progress) -> None:
    """Per route, whether its evaluation was replayed from the user cache."""
    from shiplint.cmake_eval.model import ConfigEvaluation

    for model in models:
        if isinstance(model, ConfigEvaluation):
            how = "reused (replayed from the user cache)" if model.reused else "evaluated"
            route = f"route {model.route}" if model.route else "no route"
            package = f"{model.cmake_package} in " if model.cmake_package else ""
            # More runs than one: requests a fatal error stopped were asked again (isolate.py).
            runs = f" in {model.runs} CMake runs" if model.runs > 1 else ""
            # Whether the consumer's compilers were detected, and why (compiler_need.py).
            languages = (
                f", with {' and '.join(model.languages)}: {model.languages_because}"
                if model.languages_because
                else ""
            )
            progress.step(
                f"{package}{model.label} ({model.platform}) with CMake {model.cmake_version} "
                f"({route}): {how}{runs}{languages}"
            )


def _include_closure_model(
    tree: Tree,
    listing: Listing,
    evaluated: list[ConfigModel],
    manifest: Manifest,
    progress: Progress,
) -> IncludeModel:
    """The public headers' includes, against the include directories the evaluated
    config's imported targets publish (every route and package that has targets)."""
    from shiplint.cmake_eval.model import ConfigEvaluation
    from shiplint.include_closure.build import include_closure

    progress.step(f"reading the #include lines of the public headers of {tree.label}")
    targets = [
        target
        for model in evaluated
        if isinstance(model, ConfigEvaluation)
        for target in model.targets
        if target.include_dirs
    ]
    published = dict.fromkeys(d for target in targets for d in target.include_dirs)
    # Definitions every such target passes on are a consumer's for certain; one only some
    # targets pass on is the consumer's choice of target, and stays unknown.
    shared = set.intersection(*(set(t.compile_definitions) for t in targets)) if targets else set()
    definitions = (
        tuple(d for d in dict.fromkeys(targets[0].compile_definitions) if d in shared)
        if targets
        else ()
    )
    evaluations = [m for m in evaluated if isinstance(m, ConfigEvaluation)]
    unevaluated = None
    if not evaluations:
        unevaluated = "the installed config was not evaluated (no config, or no CMake to run)"
    elif all(m.failure is not None for m in evaluations):
        failure = evaluations[0].failure
        why = failure.message.strip().splitlines()[0][:200] if failure else ""
        unevaluated = f"the installed config could not be evaluated ({why})"
    return include_closure(tree, listing, published, manifest, definitions, unevaluated)


def _version_file_models(
    tree: Tree, listing: Listing, request: RunRequest, manifest: Manifest, progress: Progress
) -> list[VersionModel]:
    """Each installed config's version file, asked as find_package asks it, per CMake."""
    from shiplint.cmake_eval.version_file import evaluate_version_files

    progress.step(f"evaluating the CMake version files of {tree.label}")
    return evaluate_version_files(
        tree,
        listing,
        manifest,
        request.cmake,
        request.evaluation_timeout,
    )


def _operator_models(
    tree: Tree, inventory: Inventory, reader: Reader, manifest: Manifest, progress: Progress
) -> list[OperatorRegistrations]:
    """Registries and registered operators, from the inventory's binaries."""
    from shiplint.operators.artifact import read_operators

    progress.step(f"reading operator registrations in {tree.label}")
    return list(read_operators(tree, inventory, manifest, reader))


def _link_probe_models(
    tree: Tree, inventory: Inventory, request: RunRequest, manifest: Manifest, progress: Progress
) -> list[ProbeModel]:
    """Consumers built against the artifact's package (host platform only)."""
    from shiplint.probes.link.probe import ProbeOptions, probe_artifact

    options = ProbeOptions(
        cmake=request.cmake, timeout=request.build_timeout, progress=progress.step
    )
    return probe_artifact(tree, inventory, manifest, options)


def _header_probe_models(
    tree: Tree, inventory: Inventory, request: RunRequest, manifest: Manifest, progress: Progress
) -> list[HeaderModel]:
    """Every public header of the artifact's package compiled alone (host platform only)."""
    from shiplint.probes.header.probe import HeaderOptions, probe_headers

    progress.step(f"compiling the headers of {tree.label} one by one")
    options = HeaderOptions(
        cmake=request.cmake, timeout=request.build_timeout, progress=progress.step
    )
    return probe_headers(tree, inventory, manifest, options)
