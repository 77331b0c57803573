"""A plain zip member is read outside zipfile, in large blocks, by zlib-ng or zlib
(`shiplint.artifacts.zip_inflate`), for RECORD's hashes and for whole reads; anything else
is read by zipfile. Every member of every real wheel reads to zipfile's bytes with either
inflater, and the members a careless or hostile packer writes (tests/hostile/rawzip.py)
read to what zipfile alone gives: the same bytes, or the same MemberError."""

from __future__ import annotations

import hashlib
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from shiplint.artifacts import archive, integrity, zip_inflate
from shiplint.artifacts.archive import MemberError, open_artifact
from shiplint.artifacts.zip_listing import ZipEntry

from tests.hostile import rawzip
from tests.material import OTHER_WHEELS, TBB_RUNTIME, cached_wheel, wheel

NAME = "pkg/data.txt"
# Compressible and long enough to take many of the blocks the reader inflates at once.
CONTENT = b"".join(b"line %d of the member\n" % i for i in range(60_000))

# Every real wheel of the test material (.ci/fetch-material).
_EXECUTORCH = (
    ("1.5.1", "manylinux_2_28_x86_64"),
    ("1.5.1", "manylinux_2_28_aarch64"),
    ("1.5.1", "macosx_14_0_arm64"),
    ("1.5.1", "win_amd64"),
    ("1.4.1", "manylinux_2_28_x86_64"),
    ("1.0.1", "macosx_12_0_arm64"),
    ("1.0.1", "win_amd64"),
)
_OTHERS = (*OTHER_WHEELS.values(), TBB_RUNTIME)
REAL_WHEELS = [f"executorch {v} {p}" for v, p in _EXECUTORCH] + [f"{n} {v}" for n, v in _OTHERS]


def _file(archive_file: zipfile.ZipFile) -> IO[bytes]:
    """The archive file zipfile reads (open while it is)."""
    assert archive_file.fp is not None
    return archive_file.fp


def _real_wheel(label: str) -> Path:
    parts = label.split()
    return wheel(parts[1], parts[2]) if parts[0] == "executorch" else cached_wheel(*parts)


Digests = dict[str, tuple[int, bytes]]
# Each real wheel's members as zipfile reads them (size, blake2b), once for both inflaters.
_ZIPFILE_DIGESTS: dict[str, Digests] = {}


def _zipfile_digests(label: str, archive_file: zipfile.ZipFile) -> Digests:
    if label not in _ZIPFILE_DIGESTS:
        found: Digests = {}
        for info in archive_file.infolist():
            hasher = hashlib.blake2b()
            size = 0
            with archive_file.open(info) as stream:
                while chunk := stream.read(1024 * 1024):
                    hasher.update(chunk)
                    size += len(chunk)
            found[info.filename] = (size, hasher.digest())
        _ZIPFILE_DIGESTS[label] = found
    return _ZIPFILE_DIGESTS[label]


@pytest.mark.parametrize("label", REAL_WHEELS)
def test_every_member_of_a_real_wheel_reads_to_zipfiles_bytes(label: str, inflater: str) -> None:
    with zipfile.ZipFile(_real_wheel(label)) as archive_file:
        expected = _zipfile_digests(label, archive_file)
        found: Digests = {}
        for info in archive_file.infolist():
            hasher = hashlib.blake2b()
            size = 0

            def sink(block: bytes, hasher: hashlib.blake2b = hasher) -> None:
                nonlocal size
                hasher.update(block)
                size += len(block)

            # Every member of these wheels is plain, its CRC-32 right: none is left to zipfile.
            assert zip_inflate.read_plain(_file(archive_file), info, sink, crc=True), info.filename
            found[info.filename] = (size, hasher.digest())
    assert found == expected


def test_a_real_wheel_reads_and_checks_alike_with_either_inflater(
    inflater: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the tree (whole reads) and the integrity check (RECORD's hashes): what
    zipfile alone reads and finds."""
    path = wheel("1.5.1", "manylinux_2_28_x86_64")
    with zipfile.ZipFile(path) as archive_file:
        problems = integrity._check(archive_file)
        with monkeypatch.context() as patched:
            patched.setattr(integrity, "_confirmed", lambda *_: False)
            assert problems == integrity._check(archive_file)
    with open_artifact(path) as tree, zipfile.ZipFile(path) as archive_file:
        for name in tree.names():
            entry = tree._info(name)  # type: ignore[attr-defined]
            assert tree.read(name) == archive_file.read(archive_file.infolist()[entry.position])


def test_the_inflater_is_zlib_ng_when_it_is_installed_else_zlib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    zip_inflate.inflater.cache_clear()
    try:
        try:
            from zlib_ng import zlib_ng
        except ImportError:
            assert zip_inflate.inflater() is zlib
        else:
            assert zip_inflate.inflater() is zlib_ng
        zip_inflate.inflater.cache_clear()
        monkeypatch.setitem(sys.modules, "zlib_ng", None)  # not installed: the import fails
        assert zip_inflate.inflater() is zlib
    finally:
        zip_inflate.inflater.cache_clear()


# -- crafted members -------------------------------------------------------------------


def _deflated(data: bytes, crc: int = zlib.crc32(CONTENT), size: int = len(CONTENT),
              method: int = rawzip.DEFLATED) -> rawzip.Entry:  # fmt: skip
    return rawzip.Entry(NAME.encode(), data, method, crc, size)


def _plain_deflated() -> bytes:
    return rawzip.build([rawzip.entry(NAME, CONTENT, compress=True)])


def _plain_stored() -> bytes:
    return rawzip.build([rawzip.entry(NAME, CONTENT)])


def _empty() -> bytes:
    return rawzip.build([rawzip.entry(NAME, b"", compress=True), rawzip.entry("pkg/b", b"")])


def _bad_crc() -> bytes:
    return rawzip.build([_deflated(rawzip.deflate(CONTENT), crc=zlib.crc32(CONTENT) ^ 1)])


def _bad_crc_stored() -> bytes:
    entry = rawzip.entry(NAME, CONTENT)
    entry.crc = zlib.crc32(CONTENT) ^ 0x80000000
    return rawzip.build([entry])


def _local_name_differs() -> bytes:
    data = bytearray(_plain_deflated())
    # The local header's name (after its 30 fixed bytes) differs from the central one.
    assert data[30 : 30 + len(NAME)] == NAME.encode()
    data[30:34] = b"PKG/"
    return bytes(data)


def _no_local_header() -> bytes:
    data = bytearray(_plain_deflated())
    data[0:4] = b"PK\x05\x05"
    return bytes(data)


def _truncated() -> bytes:
    return rawzip.build([_deflated(rawzip.deflate(CONTENT)[:-300])])


def _corrupt_stream() -> bytes:
    data = bytearray(rawzip.deflate(CONTENT))
    data[len(data) // 2] ^= 0xFF
    return rawzip.build([_deflated(bytes(data))])


def _inflates_past_its_size() -> bytes:
    short = CONTENT[:-1000]
    return rawzip.build(
        [_deflated(rawzip.deflate(CONTENT), crc=zlib.crc32(short), size=len(short))]
    )


def _inflates_short_of_its_size() -> bytes:
    return rawzip.build([_deflated(rawzip.deflate(CONTENT), size=len(CONTENT) + 1000)])


def _trailing_bytes() -> bytes:
    return rawzip.build([_deflated(rawzip.deflate(CONTENT) + b"trailing bytes")])


def _stored_size_lies() -> bytes:
    return rawzip.build([rawzip.Entry(NAME.encode(), CONTENT + b"x", rawzip.STORED,
                                      zlib.crc32(CONTENT), len(CONTENT))])  # fmt: skip


def _archive_ends_inside_the_member() -> bytes:
    # The central directory says the data is longer than what the archive holds before it.
    entry = rawzip.entry(NAME, CONTENT, compress=True)
    data = rawzip.build([entry])
    central = data.index(b"PK\x01\x02")
    size_at = central + 20  # the central entry's compressed size
    longer = len(entry.data) + 64 * 1024
    return data[:size_at] + longer.to_bytes(4, "little") + data[size_at + 4 :]


def _bomb_lying_about_its_size() -> bytes:
    # 64 MiB of zeros declared as 1,000 bytes: no ratio to refuse it by, a stream to stop.
    zeros = b"\0" * (64 * 1024 * 1024)
    return rawzip.build([_deflated(rawzip.deflate(zeros), crc=zlib.crc32(zeros[:1000]),
                                   size=1000)])  # fmt: skip


def _flagged(flag: int) -> Callable[[], bytes]:
    def build() -> bytes:
        data = bytearray(_plain_deflated())
        data[6] |= flag  # the local header's flags
        data[data.index(b"PK\x01\x02") + 8] |= flag  # the central entry's
        return bytes(data)

    return build


def _bzip2() -> bytes:
    import bz2

    return rawzip.build([_deflated(bz2.compress(CONTENT), method=zipfile.ZIP_BZIP2)])


# (the archive, whether the member is plain)
CASES: dict[str, tuple[Callable[[], bytes], bool]] = {
    "deflated": (_plain_deflated, True),
    "stored": (_plain_stored, True),
    "empty": (_empty, True),
    # zipfile refuses what it reads: "Bad CRC-32 for file 'pkg/data.txt'".
    "bad crc": (_bad_crc, False),
    "bad crc, stored": (_bad_crc_stored, False),
    # "File name in directory ... and header ... differ."
    "local name differs": (_local_name_differs, False),
    "no local header": (_no_local_header, False),
    "truncated stream": (_truncated, False),
    "corrupt stream": (_corrupt_stream, False),
    # zipfile gives the declared size (its CRC-32 is of those bytes), or what the stream
    # holds when it ends first.
    "inflates past its size": (_inflates_past_its_size, False),
    "inflates short of its size": (_inflates_short_of_its_size, False),
    "bytes after the stream": (_trailing_bytes, False),
    "stored with more bytes than its size": (_stored_size_lies, False),
    "archive ends inside the member": (_archive_ends_inside_the_member, False),
    "bomb lying about its size": (_bomb_lying_about_its_size, False),
    "encrypted": (_flagged(0x01), False),
    "patched": (_flagged(0x20), False),
    "strong encryption": (_flagged(0x40), False),
    "bzip2": (_bzip2, False),
}


def _read(path: Path, name: str = NAME, limit: int | None = None) -> tuple[str, bytes | str]:
    """What reading the member whole gives: its bytes, or the MemberError's message."""
    try:
        with open_artifact(path) as tree:
            if limit is None:
                return ("bytes", tree.read(name))
            return ("bytes", tree._read_bounded(name, limit))
    except MemberError as error:
        return ("error", str(error))


def _zipfile_read(
    path: Path, monkeypatch: pytest.MonkeyPatch, limit: int | None = None
) -> tuple[str, bytes | str]:
    """The same, every member read by zipfile."""
    with monkeypatch.context() as patched:
        patched.setattr(archive, "read_plain", lambda *_, **__: False)
        return _read(path, limit=limit)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_whole_read_gives_what_zipfile_alone_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inflater: str, case: str
) -> None:
    build, plain = CASES[case]
    path = tmp_path / "pkg.zip"
    path.write_bytes(build())
    given: list[int] = []

    def spy(stream: IO[bytes], info: zipfile.ZipInfo | ZipEntry,
            sink: Callable[[bytes], object], *, crc: bool) -> bool:  # fmt: skip
        def counted(block: bytes) -> None:
            given.append(len(block))
            sink(block)

        found = zip_inflate.read_plain(stream, info, counted, crc=crc)
        assert crc  # what is parsed is checked as zipfile checks it
        return found

    with monkeypatch.context() as patched:
        patched.setattr(archive, "read_plain", spy)
        outcome = _read(path)
    # Never more than the declared size handed on, whatever the stream inflates to; all of
    # it when the member is plain.
    with zipfile.ZipFile(path) as archive_file:
        declared = archive_file.getinfo(NAME).file_size
    assert sum(given) <= declared
    assert sum(given) == declared or not plain
    assert outcome == _zipfile_read(path, monkeypatch)
    assert (outcome[0] == "bytes") == (plain or case in _ZIPFILE_READS)
    with zipfile.ZipFile(path) as archive_file:
        info = archive_file.getinfo(NAME)
        assert zip_inflate.read_plain(_file(archive_file), info, lambda _: None, crc=True) == plain


# Members that are not plain and zipfile still reads: to their declared size, or to the
# end of their deflate stream when it comes first.
_ZIPFILE_READS = {
    "inflates past its size",
    "inflates short of its size",
    "bytes after the stream",
    "stored with more bytes than its size",
    "bomb lying about its size",
    "bzip2",
}


def test_what_zipfile_says_of_a_bad_crc_is_said(tmp_path: Path) -> None:
    path = tmp_path / "pkg.zip"
    path.write_bytes(_bad_crc())
    assert _read(path) == ("error", f"{path}!/{NAME}: cannot be read: Bad CRC-32 for file "
                                    f"'{NAME}'")  # fmt: skip


def test_the_read_limit_holds_and_is_said_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inflater: str
) -> None:
    path = tmp_path / "pkg.zip"
    path.write_bytes(_plain_deflated())
    assert _read(path, limit=len(CONTENT)) == ("bytes", CONTENT)
    over = len(CONTENT) - 1
    said = ("error", f"{path}!/{NAME}: inflates past the {over} read limit")
    assert _read(path, limit=over) == said == _zipfile_read(path, monkeypatch, limit=over)
    with open_artifact(path) as tree, pytest.raises(MemberError, match="more than the 10 read"):
        tree.read(NAME, limit=10)


def test_a_zip_bomb_by_ratio_is_not_read(tmp_path: Path, inflater: str) -> None:
    zeros = b"\0" * (8 * 1024 * 1024)
    path = tmp_path / "pkg.zip"
    path.write_bytes(rawzip.build([rawzip.entry(NAME, zeros, compress=True)]))
    with open_artifact(path) as tree:
        assert NAME not in tree.names()
        ratio = len(zeros) // len(rawzip.deflate(zeros))
        assert [r.reason for r in tree.rejected] == [
            f"inflates {ratio}x ({len(zeros)} bytes): a zip bomb"
        ]
        with pytest.raises(MemberError, match="no such member"):
            tree.read(NAME)
