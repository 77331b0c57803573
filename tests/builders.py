"""Hand-built manifests for rule tests: the cheapest real fixture."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from pathlib import Path
from typing import Any

from shiplint.artifacts.copies import place_with_copies
from shiplint.artifacts.inventory import list_artifact
from shiplint.artifacts.kinds import ArtifactKind
from shiplint.artifacts.linkage import link_graph
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.model import Inventory
from shiplint.artifacts.placement import LibraryFile
from shiplint.artifacts.records import BinaryRecord
from shiplint.artifacts.tree import Tree
from shiplint.manifest.model import (
    CMakePackage,
    CMakeRoute,
    Component,
    Externals,
    Library,
    LibraryKind,
    Manifest,
    Ownership,
    Placement,
    Sources,
)
from shiplint.platforms import Platform, PlatformSelector

ROUTES = (
    CMakeRoute("paths", None, (3, 28), "imported targets unsupported"),
    CMakeRoute("targets", (3, 28), None, "imported targets"),
)


def library(
    name: str,
    kind: LibraryKind = LibraryKind.COMPONENT,
    *,
    components: tuple[str, ...] = (),
    platforms: tuple[str, ...] = ("linux",),
    directory: str = "pkg/lib",
    required: bool = True,
    registers_statically: bool = False,
    **extra: Any,
) -> Library:
    lib = Library(
        name=name,
        kind=kind,
        build_target=name,
        output_name=name,
        placements=tuple(
            Placement(PlatformSelector.parse(p), directory, None, required) for p in platforms
        ),
        registers_statically=registers_statically,
        owns=Ownership(components=components),
        depends_on=(),
        must_not_depend_on=(),
    )
    return replace(lib, **extra) if extra else lib


def manifest(
    libraries: tuple[Library, ...] = (), components: tuple[Component, ...] = (), **extra: Any
) -> Manifest:
    base = Manifest(
        path="shiplint.yaml",
        name="pkg",
        cmake=CMakePackage(
            package="pkg",
            namespace="pkg::",
            installed_config_dirs=("pkg/share/cmake",),
            config_source=None,
            config_source_extras=(),
            routes=ROUTES,
            package_root="pkg",
            required_dirs=(),
        ),
        libraries=libraries,
        components=components,
        aggregates=(),
        component_variables=(),
        externals=Externals(system=("libc.so.*", "libm.so.*", "libstdc++.so.*", "libgcc_s.so.*")),
        conflicts=(),
        registries=(),
        waivers=(),
        sources=Sources(),
    )
    return replace(base, **extra) if extra else base


def listing_as(tree: Tree, the_manifest: Manifest, platform: Platform) -> Listing:
    """The tree's listing as if it were for `platform`: a test's placeholder tree holds
    empty files, which name no platform of their own."""
    listing = list_artifact(tree, the_manifest)
    libraries = place_with_copies(tree, the_manifest, platform, listing.members)
    return replace(listing, platform=platform, platform_source="test", libraries=libraries)


# The platform tag a hand-built wheel's name carries, per platform.
_WHEEL_TAGS = {
    Platform("linux", "x86_64"): "manylinux_2_28_x86_64",
    Platform("macos", "aarch64"): "macosx_14_0_arm64",
    Platform("windows", "x86_64"): "win_amd64",
}


def library_file(*, library: str, member: str, required: bool = True) -> LibraryFile:
    """Manifest library `library` found at `member`: placed in the member's directory,
    looked for by its exact file name."""
    directory, name = posixpath.split(member)
    return LibraryFile(library, directory, name, required, member)


def inventory(
    *,
    binaries: tuple[BinaryRecord, ...],
    platform: Platform,
    libraries: tuple[LibraryFile, ...] = (),
    members: tuple[str, ...] | None = None,
    externals: Externals | None = None,
    label: str | None = None,
    path: str | None = None,
) -> Inventory:
    """A wheel's inventory from hand-built binary records, linked as the loader would
    link them (the real link graph). Members default to the binaries' names; the label
    to a wheel named for `platform`; the path to the label."""
    label = label or f"pkg-1.0-cp311-cp311-{_WHEEL_TAGS[platform]}.whl"
    listing = Listing(
        label=label,
        path=path or label,
        kind=ArtifactKind.WHEEL,
        platform=platform,
        platform_source="wheel tag",
        members=members if members is not None else tuple(sorted(b.name for b in binaries)),
        libraries=libraries,
        configs=(),
    )
    return Inventory(listing, binaries, link_graph(listing, binaries, externals or Externals()))


# A config version file for version 1.0 (the fixture wheels' version): find_package(pkg
# <version>) needs one beside the config.
VERSION_FILE = """\
set(PACKAGE_VERSION 1.0)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
"""


def config_package(tmp_path: Path, config: str) -> Path:
    """An unpacked package `pkg-1.0` with an empty `libpkg.so` and `config` as its
    `pkg/share/cmake/pkg-config.cmake`."""
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    (root / "pkg" / "lib" / "libpkg.so").write_bytes(b"")
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    return root
