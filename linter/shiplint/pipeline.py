"""Turn a run request into models: each input parsed once, by the one module that reads it.

Each area owns one function here. Imports are local so a run that reads no
binary never imports lief, and a sources-only run never starts CMake.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from shiplint.manifest.model import Manifest
from shiplint.plural import counted
from shiplint.request import Progress, RunRequest

if TYPE_CHECKING:
    from shiplint.artifacts.archive import ArtifactTree
    from shiplint.artifacts.worker import BinaryReader
    from shiplint.sources.model import CMakeProject, SourceModel


def collect_models(
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
    reader: BinaryReader | None = None,
) -> list[object]:
    """Every model of the run. `reader` parses binaries (a started `WorkerReader`, so
    its lief import overlaps the caller's work); without one, a worker is made here.
    Raises ManifestError when a file the manifest names for the run is missing."""
    if request.check_sources and request.wants("SL1"):
        from shiplint.manifest.errors import ManifestError
        from shiplint.manifest.inputs import missing_config_sources

        problems = missing_config_sources(manifest, request.root)
        if problems:
            raise ManifestError(problems)
    models: list[object] = []
    if request.check_sources:
        project: CMakeProject | None = None
        if request.wants("SL2"):
            sources = _source_models(request, manifest, progress)
            models.append(sources)
            project = sources.project
        if request.wants("SL1"):
            models.extend(_config_source_models(request, manifest, progress, project))
    if request.artifacts:
        models.extend(_artifact_models(request, manifest, progress, reader))
    return models


def _source_models(request: RunRequest, manifest: Manifest, progress: Progress) -> SourceModel:
    """CMake sources and build declarations under request.root."""
    from shiplint.sources.collect import read_sources

    progress.step(f"reading CMake sources and build declarations under {request.root}")
    return read_sources(request.root, manifest)


def _config_source_models(
    request: RunRequest, manifest: Manifest, progress: Progress, project: CMakeProject | None
) -> list[object]:
    """The config's source evaluated with each CMake, per manifest platform, in a
    tree that also holds what the project's install(EXPORT)s would install beside it (the
    walk is the SL2 run's when there is one, so the sources are read once)."""
    if manifest.cmake.config_source is None:
        return []
    from shiplint.cmake_eval import evaluate_source
    from shiplint.sources.interpret import walk_project

    if project is None:
        sources = manifest.sources
        project = walk_project(request.root, sources.cmake_roots, sources.exclude)
    progress.step(
        f"evaluating {manifest.cmake.config_source} with {counted(len(request.cmake), 'CMake')}"
    )
    return evaluate_source(
        request.root, manifest, request.cmake, request.evaluation_timeout, project
    )


def _artifact_models(
    request: RunRequest, manifest: Manifest, progress: Progress, reader: BinaryReader | None
) -> list[object]:
    """Open each artifact once (an unreadable one raises ArtifactError: exit 2) and hand the
    tree to every area that reads artifacts."""
    from shiplint.artifacts.worker import WorkerReader

    if reader is not None:
        return _each_artifact(request, manifest, progress, reader)
    with WorkerReader() as own:
        return _each_artifact(request, manifest, progress, own)


def _each_artifact(
    request: RunRequest, manifest: Manifest, progress: Progress, reader: BinaryReader
) -> list[object]:
    from shiplint.artifacts.archive import open_artifact

    models: list[object] = []
    for path in request.artifacts:
        progress.step(f"reading {path.name}")
        # Closed after every area has read it: a run over many artifacts holds one open.
        with open_artifact(path, request.shown(path)) as tree:
            models.extend(_areas_of_one_artifact(tree, reader, request, manifest, progress))
    return models


def _areas_of_one_artifact(
    tree: ArtifactTree,
    reader: BinaryReader,
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
) -> list[object]:
    models: list[object] = []
    # The config evaluation waits on CMake processes: run it beside the binary
    # reading, which keeps this process busy, instead of after it.
    with ThreadPoolExecutor(max_workers=1) as background:
        config = (
            background.submit(_config_artifact_models, tree, request, manifest, progress)
            if request.wants("SL1")
            else None
        )
        # Operators and the probe read what the binary area collected.
        binaries = (
            _binary_models(tree, reader, manifest, progress)
            if request.wants("SL3", "SL4", "SL5")
            else []
        )
        models.extend(binaries)
        if request.wants("SL4"):
            models.extend(_operator_models(tree, binaries, reader, manifest, progress))
        if config is not None:
            models.extend(config.result())
    if request.link_probe and request.wants("SL5"):
        models.extend(_link_probe_models(tree, binaries, request, manifest, progress))
    return models


def _binary_models(
    tree: ArtifactTree, reader: BinaryReader, manifest: Manifest, progress: Progress
) -> list[object]:
    """The artifact's listing and the binaries the rules need (one ArtifactModel)."""
    from shiplint.artifacts.collect import collect_artifact

    progress.step(f"reading the binaries of {tree.label}")
    return [collect_artifact(tree, manifest, reader)]


def _config_artifact_models(
    tree: ArtifactTree, request: RunRequest, manifest: Manifest, progress: Progress
) -> list[object]:
    """The installed config evaluated with each CMake, as the artifact's platform."""
    from shiplint.cmake_eval import evaluate_artifact
    from shiplint.cmake_eval.platform_guess import artifact_platform

    progress.step(
        f"evaluating the CMake config of {tree.label} with {counted(len(request.cmake), 'CMake')}"
    )
    platform = artifact_platform(tree, manifest)
    return evaluate_artifact(tree, platform, manifest, request.cmake, request.evaluation_timeout)


def _operator_models(
    tree: ArtifactTree,
    binaries: list[object],
    reader: BinaryReader,
    manifest: Manifest,
    progress: Progress,
) -> list[object]:
    """Registries and registered operators, from the binaries the binary area read."""
    from shiplint.operators.artifact import operator_models

    progress.step(f"reading operator registrations in {tree.label}")
    return list(operator_models(tree, binaries, manifest, reader))


def _link_probe_models(
    tree: ArtifactTree,
    binaries: list[object],
    request: RunRequest,
    manifest: Manifest,
    progress: Progress,
) -> list[object]:
    """Consumers built against the artifact's package (host platform only)."""
    from shiplint.link_probe.probe import ProbeOptions, probe_artifact

    options = ProbeOptions(
        cmake=request.cmake, timeout=request.build_timeout, progress=progress.step
    )
    return probe_artifact(tree, tree.platform, manifest, options)
