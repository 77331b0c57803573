"""Where the package's installed CMake config is in an artifact: one lookup for every area."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from shiplint.manifest.model import Manifest


def config_file_names(package: str) -> tuple[str, ...]:
    """The two names find_package(<package> CONFIG) looks for, in its order."""
    return (f"{package}Config.cmake", f"{package.lower()}-config.cmake")


def installed_configs(manifest: Manifest, members: Iterable[str]) -> tuple[str, ...]:
    """The config file of each installed config directory that holds one, in the
    manifest's order (the first is the one a consumer finds)."""
    present = set(members)
    found: list[str] = []
    for directory in manifest.cmake.installed_config_dirs:
        for file_name in config_file_names(manifest.cmake.package):
            member = posixpath.join(directory.strip("/"), file_name)
            if member in present:
                found.append(member)
                break
    return tuple(found)
