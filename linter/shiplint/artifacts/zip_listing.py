"""A zip archive's members as the tree lists them, kept under the archive file's digest.

Listing a wheel through zipfile (its central directory read into an object per member,
each member's name and type checked) costs tens of milliseconds on every run: 42 ms for
ExecuTorch 1.5.1's 5,370 members. What the tree keeps of it, each listed member's entry
and where each link leads, with what was rejected and why, depends only on the
archive's bytes and on the code that lists them. Kept under the file's digest
(file_digest.py: by its identity, so a run that saw the archive reads none of its
bytes to find it), it is read back in a few milliseconds, and zipfile reads the central
directory again only when a member must be read through it (one that is not plain:
zip_inflate.py).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from shiplint import cache
from shiplint.memo import Memo, constant


class ZipEntry(NamedTuple):
    """What the tree reads of one member's central directory entry; `position` is its
    place in zipfile's list of the archive's entries."""

    position: int
    filename: str
    orig_filename: str
    header_offset: int
    compress_size: int
    file_size: int
    CRC: int
    compress_type: int
    flag_bits: int
    # Where the member's data must end (the next entry's header), as zipfile 3.12+ has
    # it; None where zipfile keeps none.
    end: int | None

    @property
    def _end_offset(self) -> int | None:
        # The name zipfile's own entry gives it.
        return self.end


def entry_of(index: int, info: zipfile.ZipInfo) -> ZipEntry:
    """The entry zipfile read for the member at `index`."""
    end = getattr(info, "_end_offset", None)
    return ZipEntry(
        index,
        info.filename,
        info.orig_filename,
        info.header_offset,
        info.compress_size,
        info.file_size,
        info.CRC,
        info.compress_type,
        info.flag_bits,
        end if isinstance(end, int) else None,
    )


class Listing(NamedTuple):
    """The listed members by name, each link's name and the member it leads to, and
    each rejected member's shown name and why."""

    files: dict[str, ZipEntry]
    links: dict[str, str]
    rejected: tuple[tuple[str, str], ...]


def kept_listing(digest: bytes) -> Listing | None:
    """The listing a run kept for the archive whose bytes have this digest."""
    return _KEPT.get(digest)


def keep_listing(digest: bytes, listing: Listing) -> None:
    _KEPT.put(listing, digest)


def _encode(listing: Listing) -> Any:
    return (
        [(name, tuple(entry)) for name, entry in listing.files.items()],
        sorted(listing.links.items()),
        [list(pair) for pair in listing.rejected],
    )


_INT = {int}


def _decode(data: Any) -> Listing:
    """The kept listing; ValueError (a miss) for anything but what `_encode` writes."""
    files_data, links_data, rejected_data = data
    files: dict[str, ZipEntry] = {}
    for name, fields in files_data:
        if type(name) is not str or type(fields) is not tuple or len(fields) != 10:
            raise ValueError("not a listed member")
        # Thousands of entries: checked with few Python steps each.
        numbers = (fields[0], *fields[3:9])
        if set(map(type, numbers)) != _INT or min(numbers) < 0:
            raise ValueError("not a member's entry")
        if type(fields[1]) is not str or type(fields[2]) is not str:
            raise ValueError("not a member's names")
        if fields[9] is not None and type(fields[9]) is not int:
            raise ValueError("not a member's end")
        files[name] = ZipEntry._make(fields)
    links: dict[str, str] = {}
    for name, target in links_data:
        if type(name) is not str or type(target) is not str or target not in files:
            raise ValueError("not a link to a listed member")
        links[name] = target
    rejected = []
    for member, reason in rejected_data:
        if type(member) is not str or type(reason) is not str:
            raise ValueError("not a rejected member")
        rejected.append((member, reason))
    return Listing(files, links, tuple(rejected))


# Keyed by the code that lists: what is listed, rejected and why is that code's.
_HERE = Path(__file__).parent
_CODE = (Path(__file__), _HERE / "archive.py", _HERE / "member_names.py", _HERE / "paths.py")
_KEPT: Memo[Listing] = Memo("zip-listing", constant(cache.source_bytes(_CODE)), _encode, _decode)
