"""One kind of kept thing in the user cache: its kind, the code that decides it, its codec.

A memo is the one way a module keeps what it computed: it declares the kind (the
cache directory), the identity of the code that decides the answer (its sources,
the installed parser: a change of either is a new key), and how an answer becomes
plain data and back. The memo keys each entry by those and the input's bytes,
stores the plain data in `marshal` form (which builds no object of an arbitrary
class, and is decoded only after `cache.py` has authenticated the entry), and turns
an entry that does not decode (another format's, or one the codec refuses) into a
miss, computed again and replaced. Everything that makes an entry safe to read
(ownership, authentication, no links, bounds) is `cache.py`'s, for every kind alike.
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from shiplint import cache
from shiplint.fastclass import dataclass

T = TypeVar("T")
# What a decoder may raise on data of another format: a miss, never a failure.
DECODE_ERRORS = (EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError)


# A kept answer may be None (a file without the table asked for): a miss is this.
_MISS = object()


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Memo(Generic[T]):
    kind: str
    # What decides an answer besides the input: code, parser, interpreter.
    identity: Callable[[], bytes]
    # The answer as plain data (tuples, lists, dicts, str, bytes, numbers) and back.
    encode: Callable[[T], Any] = _same
    decode: Callable[[Any], T] = _same
    # The largest payload kept: an answer past it (a run's outputs grown huge) is
    # computed each time rather than filling the cache.
    largest: int = cache.MAX_ENTRY

    def key(self, *inputs: bytes) -> str:
        return cache.key(self.kind.encode(), self.identity(), *inputs)

    def get(self, *inputs: bytes, decode: Callable[[Any], T] | None = None) -> T | None:
        """The answer kept for `inputs`, or None (absent, not authentic, not decodable);
        `decode`, when given, decodes this answer (one that needs the caller's context,
        a member's name) instead of the memo's codec."""
        found = self._lookup(inputs, decode or self.decode)
        return None if found is _MISS else found  # type: ignore[return-value]

    def holds(self, *inputs: bytes) -> bool:
        """Whether an authentic entry is kept for `inputs`, without decoding it (a decode
        may still refuse it: `get` says)."""
        return cache.read(self.kind, self.key(*inputs)) is not None

    def _lookup(self, inputs: tuple[bytes, ...], decode: Callable[[Any], T]) -> T | object:
        payload = cache.read(self.kind, self.key(*inputs))
        if payload is None:
            return _MISS
        try:
            return decode(marshal.loads(payload))
        except DECODE_ERRORS:
            return _MISS

    def put(self, answer: T, *inputs: bytes) -> None:
        """Keep `answer` for `inputs`; nothing when marshal cannot keep its data (a date,
        nesting past marshal's depth) or it is larger than `largest`: such an answer is
        computed each time."""
        try:
            payload = marshal.dumps(self.encode(answer))
        except ValueError:
            return
        if len(payload) > self.largest:
            return
        cache.write(self.kind, self.key(*inputs), payload)

    def through(self, compute: Callable[[], T], *inputs: bytes) -> T:
        """The kept answer for `inputs`, else `compute()`'s, kept. What `compute` raises
        (an input error) is raised, and nothing is kept."""
        kept = self._lookup(inputs, self.decode)
        if kept is not _MISS:
            return kept  # type: ignore[return-value]
        answer = compute()
        self.put(answer, *inputs)
        return answer


def constant(value: bytes) -> Callable[[], bytes]:
    """An identity that does not change within a process."""
    return functools.cache(lambda: value)
