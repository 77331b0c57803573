"""The manifest's libraries placed on the platform a run works for.

An artifact whose platform is known carries its placement in its listing. One whose
platform is unknown (no wheel tag, no binary header: SL317 says so) has none, so a
run that must lay its libraries out places them on the platform it stands in for the
artifact's. That stand-in is the caller's choice, and differs on purpose: a probe
builds for the host, the only platform it can build for; a CMake evaluation takes the
manifest's platform (`cmake_eval.evaluate.evaluation_platform`).
"""

from __future__ import annotations

from shiplint.artifacts.copies import place_with_copies
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.placement import LibraryFile
from shiplint.artifacts.tree import Tree
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform


def placed_libraries(
    tree: Tree, listing: Listing, manifest: Manifest, stand_in: Platform
) -> tuple[LibraryFile, ...]:
    """The listing's placement when it knows its platform; else the manifest's libraries
    placed on `stand_in`, each with the identical copies of its file."""
    if listing.platform is not None:
        return listing.libraries
    return place_with_copies(tree, manifest, stand_in, listing.members)
