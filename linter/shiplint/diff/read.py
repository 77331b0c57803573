"""Read each side of a diff through the check's own pipeline, with one binary reader.

A diff is two checks' reading and no rule: the artifact area (every shared object,
read once through `shiplint.artifacts.reading`), with a manifest that names a registry the operator
area (each library's kernel tables), and with CMakes and a manifest the installed
config's evaluation per route. Nothing here opens a file itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shiplint.areas import ARTIFACTS, CONFIG_ARTIFACT, OPERATORS
from shiplint.artifacts.reading import Reader
from shiplint.manifest.model import Manifest, bare_manifest
from shiplint.request import Progress, RunRequest
from shiplint.snapshot import Snapshot, artifact_snapshots

# Without a manifest a diff compares the binaries only: no library is placed, no
# config is looked for.
NO_MANIFEST = bare_manifest()


def read_side(
    artifacts: Sequence[Path],
    manifest: Manifest,
    cmakes: Sequence[str],
    reader: Reader,
    progress: Progress,
    cmake_timeout: float | None = None,
) -> list[Snapshot]:
    """One snapshot per artifact of one side. Raises ArtifactError (exit 2) when one
    cannot be opened."""
    from shiplint.pipeline import area_models

    # What a snapshot holds: the inventory, the installed config's evaluations when
    # there is a CMake to run, the operator registrations when the manifest names registries.
    areas = (
        ARTIFACTS,
        *((CONFIG_ARTIFACT,) if cmakes else ()),
        *((OPERATORS,) if manifest.registries else ()),
    )
    request = RunRequest(
        root=Path("."),
        check_sources=False,
        artifacts=tuple(artifacts),
        cmake=tuple(cmakes),
        cmake_timeout=cmake_timeout,
    )
    models = area_models(request, manifest, areas, progress, reader)
    return [snap for snap, _ in artifact_snapshots(models, manifest.cmake.package)]
