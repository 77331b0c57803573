"""The include closure of an archive kept in the user cache, reused while nothing it
was decided by changed.

The closure is a pure function of the artifact's member names, the bytes of the
headers it read, the published include directories, the compile definitions, the
platform, the manifest's `headers` section and this package's code and data. The
key holds all of them; the bytes by each header's fingerprint (a digest of
everything reading the member depends on, taken without inflating it:
`shiplint.artifacts.fingerprint`), so a warm run of a wheel with ten thousand
headers inflates none. A tree without fingerprints (tar, directory) is never kept.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.artifacts.tree import Tree
from shiplint.manifest.model import Headers

_KIND = "include-closure"
_FORMAT = 1

# One header's unresolved includes, as kept: (line, spelling, angled, missing, conditional,
# shipped_at), and the manifest's required patterns no header matched.
Kept = tuple[dict[str, list[tuple[Any, ...]]], tuple[str, ...]]


def closure_key(
    tree: Tree,
    members: Iterable[str],
    headers: Iterable[str],
    decided_by: tuple[object, ...],
    section: Headers,
) -> str | None:
    """The key of this closure, or None when a header has no fingerprint."""
    from shiplint.artifacts.kept_reads import member_fingerprint

    digest = hashlib.sha256()
    for member in headers:
        found = member_fingerprint(tree, member)
        if found is None:
            return None
        digest.update(member.encode("utf-8", "surrogateescape") + b"\0" + found)
    names = "\0".join(sorted(members)).encode("utf-8", "surrogateescape")
    fields = repr((decided_by, section.exclude, section.required, section.external))
    return cache.key(_identity(), digest.digest(), hashlib.sha256(names).digest(), fields.encode())


def kept_closure(name: str) -> Kept | None:
    payload = cache.read(_KIND, name)
    if payload is None:
        return None
    try:
        form, found, required = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if form != _FORMAT:
        return None
    return found, tuple(required)


def keep_closure(name: str, kept: Kept) -> None:
    found, required = kept
    cache.write(_KIND, name, marshal.dumps((_FORMAT, found, list(required))))


@functools.cache
def _identity() -> bytes:
    """The code and data that decide a closure."""
    from shiplint import platforms
    from shiplint.resources import data_dir

    here = Path(__file__).parent
    files = (*sorted(here.glob("*.py")), Path(platforms.__file__ or ""))
    data = (data_dir("schemas") / "system-headers.json",)
    return hashlib.sha256(cache.source_bytes((*files, *data))).digest()
