"""Turn a run request into models: each input parsed once, by the one module that reads it.

Each area owns one function here. Imports are local so a run that reads no
binary never imports lief, and a sources-only run never starts CMake.
"""

from __future__ import annotations

from linter.manifest.model import Manifest
from linter.request import Progress, RunRequest


def collect_models(request: RunRequest, manifest: Manifest, progress: Progress) -> list[object]:
    models: list[object] = []
    if request.check_sources:
        models.extend(_source_models(request, manifest, progress))
        models.extend(_config_source_models(request, manifest, progress))
    if request.artifacts:
        models.extend(_artifact_models(request, manifest, progress))
    return models


def _source_models(request: RunRequest, manifest: Manifest, progress: Progress) -> list[object]:
    """Issue 5: CMake sources and build declarations under request.root."""
    return []


def _config_source_models(
    request: RunRequest, manifest: Manifest, progress: Progress
) -> list[object]:
    """Issue 4: the config's source evaluated with each CMake, per manifest platform."""
    return []


def _artifact_models(request: RunRequest, manifest: Manifest, progress: Progress) -> list[object]:
    """Issues 3, 4, 6, 8: open each artifact once; binaries, evaluated config, operators, probes."""
    return []
