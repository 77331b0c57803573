"""Read an artifact's members one step ahead of their consumer.

Inflating a member (zlib) and digesting it (blake2b) release the GIL, so a thread that
reads the next member while the caller parses this one puts the archive's inflation on
the second core instead of the critical path. Members come back in the order asked,
each read once, at most `ahead` of them held beyond the one the caller has.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.tree import Tree

AHEAD = 2


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes
    digest: bytes  # blake2b, 16 bytes: what byte-identical copies are found by


@dataclass(frozen=True)
class Unread:
    name: str
    reason: str


def _read(tree: Tree, name: str) -> Member | Unread:
    try:
        data = tree.read(name)
    except MemberError as exc:
        return Unread(name, exc.reason)
    return Member(name, data, hashlib.blake2b(data, digest_size=16).digest())


def prefetched(
    tree: Tree, names: Iterable[str], ahead: int = AHEAD
) -> Generator[Member | Unread, None, None]:
    """Each member read (or the reason it cannot be), in the order of `names`."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="shiplint-read") as pool:
        pending: deque[Future[Member | Unread]] = deque()
        try:
            for name in names:
                pending.append(pool.submit(_read, tree, name))
                if len(pending) > ahead:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            # Abandoned early: reads not started are dropped, not waited for.
            for future in pending:
                future.cancel()
