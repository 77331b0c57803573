"""Which platform an artifact is for: the wheel tag, else what its binaries' headers say.

Never the host shiplint runs on: an install tree unpacked from a macOS wheel is a
macOS artifact on a Linux CI runner too. The headers are read with `struct`
(`headers.sniff`), so knowing the platform parses no binary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.headers import SNIFF_BYTES, sniff
from shiplint.artifacts.placement import is_shared_object_name
from shiplint.artifacts.tree import Tree
from shiplint.platforms import Platform

WHEEL_TAG = "wheel tag"
BINARIES = "binaries"
UNKNOWN = "unknown"


def artifact_platform(tree: Tree, members: Iterable[str]) -> tuple[Platform | None, str]:
    """The platform and where it came from: the wheel tag, else the most common
    (OS, architecture) among the headers of the members named like shared objects."""
    if tree.platform is not None:
        return tree.platform, WHEEL_TAG
    seen: Counter[Platform] = Counter()
    for member in members:
        if not is_shared_object_name(member):
            continue
        try:
            found = sniff(tree.head(member, SNIFF_BYTES))
        except MemberError:  # reported when the binary is read; it just does not vote
            continue
        if found is not None:
            seen[found] += 1
    if not seen:
        return None, UNKNOWN
    return seen.most_common(1)[0][0], BINARIES


def linux_wheel(path: Path) -> bool:
    """Whether `path` is named as a wheel tagged for Linux alone (its binaries are ELF)."""
    platforms = path.stem.rsplit("-", 1)[-1].split(".")
    return path.suffix == ".whl" and all("linux" in platform for platform in platforms)
