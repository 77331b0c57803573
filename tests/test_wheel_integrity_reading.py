"""RECORD's hashes are confirmed by reading plain members in large blocks, outside zipfile;
every other member is read by zipfile. These archives are written byte by byte
(tests/hostile/rawzip.py) with the members a careless or hostile packer makes: each
outcome is checked against the one zipfile alone gives, and stated. Every test runs with
each inflater the block reader may use (zlib, zlib-ng)."""

from __future__ import annotations

import base64
import hashlib
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from shiplint.artifacts import integrity

from tests.hostile import rawzip

pytestmark = pytest.mark.usefixtures("inflater")

NAME = "pkg/data.txt"
RECORD = "pkg-1.0.dist-info/RECORD"
# Compressible and long enough to take several of the blocks the reader inflates at once.
CONTENT = b"".join(b"line %d of the member\n" % i for i in range(60_000))


def _sha256(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(tmp_path: Path, member: rawzip.Entry, recorded: bytes = CONTENT) -> Path:
    """An archive of `member` and a RECORD that lists it with the hash and size of
    `recorded`."""
    record = f"{NAME},sha256={_sha256(recorded)},{len(recorded)}\n{RECORD},,\n".encode()
    path = tmp_path / "pkg-1.0-py3-none-any.whl"
    path.write_bytes(rawzip.build([member, rawzip.entry(RECORD, record, compress=True)]))
    return path


def _outcome(path: Path) -> list[tuple[str, str | None, str]]:
    with zipfile.ZipFile(path) as archive:
        return [(p.kind, p.member, p.detail) for p in integrity._check(archive)]


def _zipfile_outcome(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str | None, str]]:
    """The outcome when every member is read by zipfile."""
    with monkeypatch.context() as patched:
        patched.setattr(integrity, "_confirmed", lambda *_: False)
        return _outcome(path)


def _plain(path: Path) -> str | None:
    with zipfile.ZipFile(path) as archive:
        return integrity._plain_hash(archive, archive.getinfo(NAME), "sha256")


def _deflated(data: bytes, crc: int = zlib.crc32(CONTENT), size: int = len(CONTENT),
              method: int = rawzip.DEFLATED) -> rawzip.Entry:  # fmt: skip
    return rawzip.Entry(NAME.encode(), data, method, crc, size)


def test_a_plain_member_is_confirmed_without_zipfile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []
    monkeypatch.setattr(integrity, "_member_hash", lambda *a: asked.append(a))
    for compress in (True, False):
        path = _wheel(tmp_path, rawzip.entry(NAME, CONTENT, compress=compress))
        assert _plain(path) == _sha256(CONTENT)
        assert _outcome(path) == []
    assert asked == []


def test_a_changed_member_of_its_declared_size_is_a_hash_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changed = CONTENT.replace(b"line 7 ", b"LINE 7 ", 1)
    for compress in (True, False):
        path = _wheel(tmp_path, rawzip.entry(NAME, changed, compress=compress))
        assert _plain(path) == _sha256(changed)
        detail = f"its sha256 is {_sha256(changed)}, RECORD line 1 says {_sha256(CONTENT)}"
        assert _outcome(path) == [("record-hash", NAME, detail)]
        assert _outcome(path) == _zipfile_outcome(path, monkeypatch)


def _truncated() -> rawzip.Entry:
    return _deflated(rawzip.deflate(CONTENT)[:-300])


def _inflates_past_its_size() -> rawzip.Entry:
    # Declared 1000 bytes short of what its stream gives: zipfile stops at the size.
    short = CONTENT[:-1000]
    return _deflated(rawzip.deflate(CONTENT), crc=zlib.crc32(short), size=len(short))


def _trailing_bytes() -> rawzip.Entry:
    return _deflated(rawzip.deflate(CONTENT) + b"trailing bytes after the stream")


def _corrupt_stream() -> rawzip.Entry:
    data = bytearray(rawzip.deflate(CONTENT))
    data[len(data) // 2] ^= 0xFF
    return _deflated(bytes(data))


def _stored_size_lies() -> rawzip.Entry:
    return rawzip.Entry(NAME.encode(), CONTENT + b"x", rawzip.STORED, zlib.crc32(CONTENT),
                        len(CONTENT))  # fmt: skip


def _bzip2() -> rawzip.Entry:
    import bz2

    return _deflated(bz2.compress(CONTENT), method=zipfile.ZIP_BZIP2)


# (how the member is written, the problems of the member's RECORD row, what RECORD lists)
CASES: dict[str, tuple[Callable[[], rawzip.Entry], list[str], bytes]] = {
    # zipfile cannot read it (an EOFError or a CRC mismatch): the rules that read it say so.
    "truncated deflate stream": (_truncated, [], CONTENT),
    "corrupt deflate stream": (_corrupt_stream, [], CONTENT),
    # zipfile reads the declared size, which RECORD lists: no problem.
    "inflates past its size": (_inflates_past_its_size, [], CONTENT[:-1000]),
    "stored with more bytes than its size": (_stored_size_lies, [], CONTENT),
    # RECORD lists all the bytes stored: zipfile's read stops short of them.
    "inflates past its size, all listed": (
        _inflates_past_its_size,
        ["record-hash", "record-size"],
        CONTENT,
    ),
    "stored with more bytes, all listed": (
        _stored_size_lies,
        ["record-hash", "record-size"],
        CONTENT + b"x",
    ),
    # zipfile stops at the end of the deflate stream: what RECORD lists.
    "bytes after the stream": (_trailing_bytes, [], CONTENT),
    # A method the block reader leaves to zipfile, which reads it.
    "bzip2": (_bzip2, [], CONTENT),
    "bzip2, changed": (_bzip2, ["record-hash", "record-size"], CONTENT + b"more"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_member_that_is_not_plain_is_read_by_zipfile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    build, kinds, recorded = CASES[case]
    path = _wheel(tmp_path, build(), recorded)
    assert _plain(path) is None
    found = _outcome(path)
    assert sorted(kind for kind, member, _ in found if member == NAME) == kinds
    assert found == _zipfile_outcome(path, monkeypatch)


@pytest.mark.parametrize("changed", [False, True])
def test_a_bad_crc_leaves_the_member_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: bool
) -> None:
    content = CONTENT.replace(b"line 7 ", b"LINE 7 ", 1) if changed else CONTENT
    path = _wheel(tmp_path, _deflated(rawzip.deflate(content), crc=zlib.crc32(content) ^ 1))
    # The block reader leaves the CRC-32 to zipfile: a hash that RECORD confirms is no
    # problem whatever zipfile says; one it does not is zipfile's to read, and it cannot.
    assert _plain(path) == _sha256(content)
    assert _outcome(path) == [] == _zipfile_outcome(path, monkeypatch)


@pytest.mark.parametrize("flag", [0x01, 0x20, 0x40])
def test_an_encrypted_or_patched_member_is_read_by_zipfile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: int
) -> None:
    path = _wheel(tmp_path, rawzip.entry(NAME, CONTENT, compress=True))
    data = bytearray(path.read_bytes())
    # The flags of the member's local header (offset 6) and central entry (offset 8).
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    data[local + 6] |= flag
    data[central + 8] |= flag
    path.write_bytes(bytes(data))
    assert _plain(path) is None
    # zipfile refuses it (a password, or a feature it lacks): no RECORD problem of its own.
    assert _outcome(path) == [] == _zipfile_outcome(path, monkeypatch)


@pytest.mark.parametrize("changed", [False, True])
def test_a_member_read_before_is_hashed_from_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: bool
) -> None:
    from shiplint import cache
    from shiplint.artifacts.archive import open_artifact

    content = CONTENT.replace(b"line 7 ", b"LINE 7 ", 1) if changed else CONTENT
    path = _wheel(tmp_path, rawzip.entry(NAME, content, compress=True))
    asked: list[str] = []

    def counted(real: Callable[..., object]) -> Callable[..., object]:
        def reader(zip_file: zipfile.ZipFile, info: zipfile.ZipInfo, *rest: str) -> object:
            asked.append(info.filename)
            return real(zip_file, info, *rest)

        return reader

    monkeypatch.setattr(integrity, "_confirmed", counted(integrity._confirmed))
    monkeypatch.setattr(integrity, "_member_hash", counted(integrity._member_hash))
    with cache.refusing_reuse(), open_artifact(path) as tree:
        assert tree.read(NAME) == content
        problems = [(p.kind, p.member) for p in tree.integrity()]  # type: ignore[attr-defined]
    if changed:
        # Not confirmed by what was read: read again, and the mismatch said as before.
        assert problems == [("record-hash", NAME)]
        assert asked == [NAME, NAME]
    else:
        assert problems == []
        assert asked == []
