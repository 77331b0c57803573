"""Which platform to evaluate an artifact's config as, without reading any binary."""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform

_SUFFIX_OS = ((".dylib", "macos"), (".dll", "windows"), (".pyd", "windows"), (".so", "linux"))


class _Tree(Protocol):
    platform: Platform | None

    def names(self) -> tuple[str, ...]: ...


def artifact_platform(tree: _Tree, manifest: Manifest) -> Platform:
    """The wheel tag's platform; else the manifest's only platform; else the OS whose
    library suffix is most common in the tree (Linux when there is none: the host
    shiplint runs on in CI, and the platform a config's default branches assume)."""
    if tree.platform is not None:
        return tree.platform
    if len(manifest.platforms) == 1:
        return manifest.platforms[0]
    counts: Counter[str] = Counter()
    for name in tree.names():
        for suffix, os_name in _SUFFIX_OS:
            if name.endswith(suffix) or f"{suffix}." in name.rsplit("/", 1)[-1]:
                counts[os_name] += 1
                break
    return Platform(counts.most_common(1)[0][0] if counts else "linux")
