"""Placing the manifest's libraries: each found in its own directory's names, and every
match in member order, as `Library.members` finds them over all the members."""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.placement import place_libraries
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import LibraryKind, Manifest, Placement
from shiplint.platforms import Platform, PlatformSelector

from tests.builders import library, manifest
from tests.material import EXAMPLE_MANIFEST, example_manifest, other_wheel, wheel

LINUX = Platform("linux", "x86_64")


def _agrees_with_members(mf: Manifest, platform: Platform, members: tuple[str, ...]) -> int:
    """Checks every placed library against `Library.members`; the number with a match."""
    placed = {f.library: f for f in place_libraries(mf, platform, members)}
    found = 0
    for lib in mf.libraries:
        if lib.placement_for(platform) is None:
            assert lib.name not in placed
            continue
        assert placed[lib.name].matches == lib.members(platform, members), lib.name
        found += placed[lib.name].member is not None
    return found


@pytest.mark.parametrize(
    ("artifact", "manifest_path"),
    [
        (lambda: wheel("1.5.1", "manylinux_2_28_x86_64"), EXAMPLE_MANIFEST),
        (lambda: wheel("1.5.1", "macosx_14_0_arm64"), EXAMPLE_MANIFEST),
        (lambda: wheel("1.5.1", "win_amd64"), EXAMPLE_MANIFEST),
        (lambda: other_wheel("openvino"), example_manifest("openvino")),
        (lambda: other_wheel("mlx"), example_manifest("mlx")),
    ],
    ids=["executorch-linux", "executorch-macos", "executorch-windows", "openvino", "mlx"],
)
def test_the_real_wheels_libraries_are_placed_as_their_members_match(
    artifact: object, manifest_path: Path
) -> None:
    mf = load_manifest(manifest_path)
    with open_artifact(artifact()) as tree:  # type: ignore[operator]
        assert tree.platform is not None
        assert _agrees_with_members(mf, tree.platform, tree.names()) >= 1


def _placed_at(directory: str, file: str | None = None) -> tuple[Placement, ...]:
    return (Placement(PlatformSelector("linux"), directory, file, True),)


def test_every_match_in_member_order_with_the_shortest_preferred() -> None:
    runtime = library("x", LibraryKind.RUNTIME, placements=_placed_at("pkg/lib"))
    mf = manifest(libraries=(runtime,))
    members = (
        "pkg/lib/libx.so.1",
        "pkg/lib/deeper/libx.so",
        "pkg/libx.so",
        "pkg/lib/libx.a",
        "pkg/lib/libx.so",
        "other/pkg/lib/libx.so",
    )
    (placed,) = place_libraries(mf, LINUX, members)
    assert placed.member == "pkg/lib/libx.so"
    assert placed.matches == ("pkg/lib/libx.so",)
    assert placed.lookalikes == ("libx.a", "libx.so.1")
    globbed = library("x", LibraryKind.RUNTIME, placements=_placed_at("pkg/lib/", "libx.so*"))
    (placed,) = place_libraries(manifest(libraries=(globbed,)), LINUX, members)
    assert placed.member == "pkg/lib/libx.so"
    assert placed.matches == ("pkg/lib/libx.so.1", "pkg/lib/libx.so")
    assert _agrees_with_members(manifest(libraries=(globbed,)), LINUX, members) == 1


@pytest.mark.parametrize("directory", ["", "/", "."])
def test_a_library_at_the_root(directory: str) -> None:
    root = library("x", LibraryKind.RUNTIME, placements=_placed_at(directory))
    mf = manifest(libraries=(root,))
    members = ("libx.so", "lib/libx.so", "libx.so.2")
    (placed,) = place_libraries(mf, LINUX, members)
    assert placed.matches == ("libx.so",)
    # The root's files are found as the root's; `.` names the root only for `matches`.
    assert placed.member == (None if directory == "." else "libx.so")
    _agrees_with_members(mf, LINUX, members)
