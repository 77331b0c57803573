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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.artifacts.tree import Tree
from shiplint.include_closure.model import Missing
from shiplint.manifest.model import Headers
from shiplint.memo import Memo

# One header's unresolved includes, as kept: (line, spelling, angled, missing, conditional,
# shipped_at), and the manifest's required patterns no header matched.
Kept = tuple[dict[str, list[tuple[Any, ...]]], tuple[str, ...]]
_MISSING = frozenset(m.value for m in Missing)


def closure_key(
    tree: Tree,
    members: Iterable[str],
    headers: Iterable[str],
    decided_by: tuple[object, ...],
    section: Headers,
) -> bytes | None:
    """What this closure is keyed by, or None when a header has no fingerprint."""
    from shiplint.artifacts.prefix import member_fingerprint

    digest = hashlib.sha256()
    for member in headers:
        found = member_fingerprint(tree, member)
        if found is None:
            return None
        digest.update(member.encode("utf-8", "surrogateescape") + b"\0" + found)
    names = "\0".join(sorted(members)).encode("utf-8", "surrogateescape")
    fields = repr((decided_by, section.exclude, section.required, section.external))
    # Two digests of fixed length, then the fields: no two inputs join alike.
    return digest.digest() + hashlib.sha256(names).digest() + fields.encode()


def kept_closure(key: bytes) -> Kept | None:
    return _CLOSURES.get(key)


def keep_closure(key: bytes, kept: Kept) -> None:
    _CLOSURES.put(kept, key)


def _encode(kept: Kept) -> Any:
    found, required = kept
    return found, list(required)


def _decode(data: Any) -> Kept:
    """The kept closure, each include checked to be of the form it was kept in (an entry
    of another form is not this code's: a miss)."""
    found, required = data
    if not isinstance(found, dict) or not all(isinstance(r, str) for r in required):
        raise TypeError("not a kept closure")
    for header, entries in found.items():
        if not isinstance(header, str) or not isinstance(entries, list):
            raise TypeError("not a kept closure")
        for line, spelling, angled, missing, conditional, shipped_at in entries:
            if not (
                type(line) is int
                and isinstance(spelling, str)
                and type(angled) is bool
                and missing in _MISSING
                and type(conditional) is bool
                and (shipped_at is None or isinstance(shipped_at, str))
            ):
                raise TypeError("not a kept include")
    return found, tuple(required)


@functools.cache
def _identity() -> bytes:
    """The code and data that decide a closure."""
    from shiplint import platforms
    from shiplint.resources import data_dir

    here = Path(__file__).parent
    files = (*sorted(here.glob("*.py")), Path(platforms.__file__ or ""))
    data = (data_dir("schemas") / "system-headers.json",)
    return hashlib.sha256(cache.source_bytes((*files, *data))).digest()


_CLOSURES: Memo[Kept] = Memo("include-closure", _identity, _encode, _decode)
